/**
 * Another process (a local `svc` command, a backup) holds the database's write lock for 3 s while `svc serve`
 * runs. The server must stay responsive: /healthz under 300 ms throughout, and writes answered with a 503 and
 * Retry-After rather than waiting on the event loop; once the lock is released, writes work again.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ProcessSandbox, api } from '../support/svc-process.js';

describe('svc serve while another process holds the write lock', () => {
  let box: ProcessSandbox;
  afterEach(async () => box.cleanup());

  it('/healthz stays under 300 ms; writes get 503 with Retry-After, then succeed after the lock is gone', async () => {
    box = new ProcessSandbox();
    const dataDir = box.tempDir('svc-lock-');
    const { token } = await box.createWorkspace(dataDir, 'Lock');
    const server = await box.serve(dataDir);
    expect((await api(server, token, 'POST', '/sim/accounts/connect', { phone: '+15550003001' })).status).toBe(200);

    const holder = new Database(join(dataDir, 'svc.db'));
    holder.pragma('busy_timeout = 5000');
    holder.exec('BEGIN IMMEDIATE');
    const healthz: number[] = [];
    const writes: Array<{ status: number; retryAfter: string | null; ms: number }> = [];
    const until = Date.now() + 3000;
    const probeHealth = async () => {
      while (Date.now() < until) {
        const started = performance.now();
        const res = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(5000) });
        await res.text();
        healthz.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const write = async () => {
      while (Date.now() < until - 200) {
        const started = performance.now();
        const res = await fetch(`${server.url}/api/messages`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ phone: '+14155550123', text: 'while locked' }),
          signal: AbortSignal.timeout(5000),
        });
        const body = (await res.json()) as { error_code?: string };
        writes.push({ status: res.status, retryAfter: res.headers.get('retry-after'), ms: performance.now() - started });
        if (res.status === 503) expect(body.error_code).toBe('unavailable');
      }
    };
    await Promise.all([probeHealth(), write(), write(), write()]);
    holder.exec('COMMIT');
    holder.close();

    expect(healthz.length).toBeGreaterThan(20);
    expect(Math.max(...healthz)).toBeLessThan(300);
    expect(writes.length).toBeGreaterThan(10);
    expect(writes.every((w) => w.status === 503 && w.retryAfter !== null)).toBe(true);
    const after = await api<{ status: string }>(server, token, 'POST', '/api/messages', { phone: '+14155550123', text: 'after' });
    expect(after.status).toBe(200);
  });
});
