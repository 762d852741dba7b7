import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { isDeadLocalOwner, processOwner } from '../../src/workers/lease-owners.js';
import { testEngine } from '../support/test-engine.js';

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('lease owners', () => {
  it('isDeadLocalOwner: only a process of this host that is gone is dead', () => {
    expect(isDeadLocalOwner(`${hostname()}:${deadPid()}:abcd`)).toBe(true);
    expect(isDeadLocalOwner(processOwner())).toBe(false);
    expect(isDeadLocalOwner(`${hostname()}:${process.ppid}:abcd`)).toBe(false);
    expect(isDeadLocalOwner(`another-host.example:${deadPid()}:abcd`)).toBe(false);
    expect(isDeadLocalOwner('0b6c3a52-6f0e-4b61-9d0e-3f5f6f1c2a10')).toBe(false);
  });

  it('send dispatcher: a job leased by a dead process is taken over at once, not after the lease', async () => {
    const t = await testEngine();
    const sent = await t.api.sendToPhone({ phone: '+14155550123', text: 'Hi' });
    const jobs = t.ctx.stores.jobs;
    const job = t.db.prepare<[], { id: number }>('SELECT id FROM jobs').get()!;
    await jobs.lease(job.id, `${hostname()}:${deadPid()}:dead`, t.clock.now() + 30_000);
    expect(await t.engine.workers.runDue()).toBe(1);
    expect((await t.api.getMessage(sent.message_uid)).status).toBe('Sent');
  });

  it('send dispatcher: a job leased by a live process waits for its lease', async () => {
    const t = await testEngine();
    const sent = await t.api.sendToPhone({ phone: '+14155550123', text: 'Hi' });
    const job = t.db.prepare<[], { id: number }>('SELECT id FROM jobs').get()!;
    await t.ctx.stores.jobs.lease(job.id, `${hostname()}:${process.ppid}:alive`, t.clock.now() + 30_000);
    expect(await t.engine.workers.runDue()).toBe(0);
    expect((await t.api.getMessage(sent.message_uid)).status).toBe('Pending');
  });
});
