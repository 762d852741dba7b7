import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { databasePath, openEngine } from '../../src/runtime/open-engine.js';
import { migrate, openDatabase, schemaVersion } from '../../src/store/database.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';
import { countRows, recordingSink, StalledSim, tempDir } from '../support/engine-fixtures.js';
import { fixedRandom } from '../support/test-engine.js';

/** Two engines on one database file: one whose process stalls inside deliver, and a healthy one. */
async function zombieAndSurvivor(deliverFirst: boolean) {
  const path = join(tempDir(), 'svc.db');
  const clock = new FakeClock();
  const zombieDb = openDatabase(path);
  const zombieDatabase = new SqliteDatabase(zombieDb);
  const stalled = new StalledSim(zombieDatabase.sql, clock, deliverFirst);
  const zombieSink = recordingSink();
  const zombie = createEngine({ database: zombieDatabase, clock, random: fixedRandom(), network: stalled, events: zombieSink.parts });
  const survivorSink = recordingSink();
  const survivor = createEngine({ database: new SqliteDatabase(openDatabase(path)), clock, random: fixedRandom(), events: survivorSink.parts });
  const local = await survivor.ensureLocalWorkspace();
  const api = survivor.workspace(local.workspace_id);
  const sentEvents = () => [...zombieSink.types(), ...survivorSink.types()].filter((t) => t === 'message:sent:new');
  /** Resolves once the zombie's dispatcher has handed `count` deliveries to its stalling driver. */
  const zombieStalled = (count = 1) => vi.waitFor(() => expect(stalled.requests).toHaveLength(count));
  return { clock, stalled, zombie, survivor, api, db: zombieDb, sentEvents, zombieStalled };
}

describe('send queue: leases and crashes', () => {
  it('runDue: a job leased by a stalled process is taken over once its lease runs out, and Sent once', async () => {
    const t = await zombieAndSurvivor(false);
    const sent = await t.api.sendToPhone({ phone: '+14155550123', text: 'Hi' });
    void t.zombie.workers.runDue();
    await t.zombieStalled();
    expect(t.stalled.requests.map((r) => r.messageUid)).toEqual([sent.message_uid]);
    expect((await t.api.getMessage(sent.message_uid)).status).toBe('Sending');

    t.clock.advance(t.zombie.context.config.sendLeaseMs - 1);
    expect(await t.survivor.workers.runDue()).toBe(0);
    t.clock.advance(1);
    expect(await t.survivor.workers.runDue()).toBe(1);
    expect((await t.api.getMessage(sent.message_uid)).status).toBe('Sent');
    expect(countRows(t.db, 'jobs')).toBe(0);
    expect(t.sentEvents()).toHaveLength(1);
  });

  it('runDue: a process that delivered and died before recording it is not delivered twice', async () => {
    const t = await zombieAndSurvivor(true);
    const sent = await t.api.sendToPhone({ phone: '+14155550123', text: 'Hi' });
    const zombieRun = t.zombie.workers.runDue();
    await t.zombieStalled();
    await vi.waitFor(() => expect(countRows(t.db, 'sim_deliveries')).toBe(1));

    t.clock.advance(t.zombie.context.config.sendLeaseMs);
    expect(await t.survivor.workers.runDue()).toBe(1);
    t.stalled.release();
    await zombieRun;
    expect((await t.api.getMessage(sent.message_uid)).status).toBe('Sent');
    expect(countRows(t.db, 'sim_deliveries')).toBe(1);
    expect(t.sentEvents()).toHaveLength(1);
  });

  it('runDue: a stalled process waking up after a takeover does not remove the job of a newer message', async () => {
    const t = await zombieAndSurvivor(false);
    const first = await t.api.sendToPhone({ phone: '+14155550123', text: 'one' });
    const zombieRun = t.zombie.workers.runDue();
    await t.zombieStalled();
    t.clock.advance(t.zombie.context.config.sendLeaseMs);
    expect(await t.survivor.workers.runDue()).toBe(1);
    const second = await t.api.sendToPhone({ phone: '+14155550124', text: 'two' });
    t.stalled.release();
    await zombieRun;

    t.clock.advance(2000);
    expect(await t.survivor.workers.runDue()).toBe(1);
    const statuses = [];
    for (const s of [first, second]) statuses.push((await t.api.getMessage(s.message_uid)).status);
    expect(statuses).toEqual(['Sent', 'Sent']);
  });

  it('sim driver: deliver is idempotent on the message uid', async () => {
    const t = await zombieAndSurvivor(false);
    const request = { messageUid: 'u-1', accountPhone: '+15550000001', recipientPhone: '+14155550123', text: 'x', attachment: null, replyToUid: null };
    const first = await t.survivor.context.network.deliver(request);
    const again = await t.survivor.context.network.deliver(request);
    expect(first.status).toBe('sent');
    expect(again).toEqual(first);
    expect(countRows(t.db, 'sim_deliveries')).toBe(1);
  });
});

describe('send queue: survives a restart', () => {
  it('openEngine: pending messages survive close and reopen, then go out spaced', async () => {
    const dataDir = tempDir();
    const clock = new FakeClock();
    const first = await openEngine({ dataDir, clock, random: fixedRandom() });
    const local = await first.ensureLocalWorkspace();
    const uids: string[] = [];
    for (const phone of ['+14155550001', '+14155550002']) uids.push((await first.workspace(local.workspace_id).sendToPhone({ phone, text: 'Hi' })).message_uid);
    await first.close();

    const second = await openEngine({ dataDir, clock, random: fixedRandom() });
    const api = second.workspace(local.workspace_id);
    const statuses = async () => Promise.all(uids.map(async (uid) => (await api.getMessage(uid)).status));
    expect(await statuses()).toEqual(['Pending', 'Pending']);
    expect(await second.ensureLocalWorkspace()).toEqual(local);
    expect(await second.workers.runDue()).toBe(1);
    clock.advance(2000);
    expect(await second.workers.runDue()).toBe(1);
    expect(await statuses()).toEqual(['Sent', 'Sent']);
    expect((await api.getWorkspace()).messaging_quota.used).toBe(2);
    await second.close();
  });

  it('openDatabase: migrations are applied once, and reopening or migrating again is a no-op', async () => {
    const dataDir = tempDir();
    const latest = Math.max(...MIGRATIONS.map((m) => m.version));
    const engine = await openEngine({ dataDir });
    await engine.ensureLocalWorkspace();
    await engine.close();

    const db = openDatabase(databasePath(dataDir));
    expect(schemaVersion(db)).toBe(latest);
    expect(() => migrate(db)).not.toThrow();
    expect(schemaVersion(db)).toBe(latest);
    expect(countRows(db, 'workspaces')).toBe(1);
    db.close();
  });
});
