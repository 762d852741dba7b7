import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { isSvcError } from '../../src/wire/errors.js';
import { openDatabase } from '../../src/store/database.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';
import { compileEngine } from '../support/compiled-engine.js';
import { countRows, recordingSink, tempDir } from '../support/engine-fixtures.js';
import { fixedRandom } from '../support/test-engine.js';
import { raceWorkers } from '../support/worker-race.js';
import { partnerEventTypes } from '../support/partner-fixtures.js';

const SEATS = 10;

/** A database file with a partner and a workspace of SEATS seats. */
async function sharedDatabase(clock: FakeClock) {
  const path = join(tempDir(), 'svc.db');
  const db = openDatabase(path);
  const setup = createEngine({ database: new SqliteDatabase(db), clock, random: fixedRandom() });
  const partner = await setup.admin.createPartner({ name: 'Acme' });
  const { workspace_id } = await setup.partner(partner.partner_id).createWorkspace({ display_name: 'Race', seats_purchased: SEATS });
  return { path, db, partnerId: partner.partner_id, workspaceId: workspace_id, setup };
}

describe('partner seats: concurrent batches never overcommit', () => {
  it('createUsers: interleaved batches from several connections fill the seats exactly', async () => {
    const clock = new FakeClock();
    const { path, db, partnerId, workspaceId, setup } = await sharedDatabase(clock);
    const engines = Array.from({ length: 4 }, () => createEngine({ database: new SqliteDatabase(openDatabase(path)), clock, random: fixedRandom() }));
    let created = 0;
    let refused = 0;
    for (let round = 0; round < 3; round += 1) {
      for (const engine of engines) {
        try {
          created += (await engine.partner(partnerId).createUsers(workspaceId, { count: 3 })).length;
        } catch (error) {
          if (!isSvcError(error) || error.code !== 'seats_full') throw error;
          refused += 1;
        }
      }
    }
    // 3 batches of 3 fit in 10 seats; the one free seat is not enough for a fourth batch.
    expect(created).toBe(9);
    expect(refused).toBe(12 - 3);
    expect(countRows(db, 'users')).toBe(9);
    for (const engine of [setup, ...engines]) await engine.close();
  });

  it('createUsers: worker threads racing on one database file never exceed the seats', async () => {
    const clock = new FakeClock();
    const { path, partnerId, workspaceId, setup } = await sharedDatabase(clock);
    const buildDir = compileEngine(tempDir());
    const all = await raceWorkers<{ created: number; refused: number; other: string[] }>(resolve(import.meta.dirname, '../support/partner-batch-worker.mjs'), 4, { buildDir, dbPath: path, partnerId, workspaceId, batches: 3, size: 2 });

    expect(all.flatMap((r) => r.other)).toEqual([]);
    // 24 users asked for in batches of 2; exactly the 10 seats are handed out, 5 batches fit.
    expect(all.reduce((n, r) => n + r.created, 0)).toBe(SEATS);
    expect(all.reduce((n, r) => n + r.refused, 0)).toBe(12 - 5);
    expect(await setup.partner(partnerId).getWorkspace(workspaceId)).toMatchObject({ seats_used: SEATS, seats_purchased: SEATS });
    await setup.close();
  });
});

describe('partner alerts: once per crossing', () => {
  async function alertEngine(quota: number) {
    const clock = new FakeClock();
    const sink = recordingSink();
    const engine = createEngine({ database: new SqliteDatabase(openDatabase(':memory:')), clock, random: fixedRandom(), events: sink.parts });
    const partner = await engine.admin.createPartner({ name: 'Acme' });
    const api = engine.partner(partner.partner_id);
    const { workspace_id: ws } = await api.createWorkspace({ display_name: 'Alerts', seats_purchased: 3 });
    await engine.admin.updateWorkspace(ws, { quota });
    await engine.sim(ws).connect({ phone: '+15550003001' });
    sink.clear();
    return { engine, api, ws, sink, clock };
  }

  it('debit: quota_near_full at 90% and quota_full at 100%, each once per period', async () => {
    const { engine, ws, sink, clock } = await alertEngine(10);
    const send = (i: number) => engine.workspace(ws).sendToPhone({ phone: `+1415555${String(i).padStart(4, '0')}`, text: 'x' });
    for (let i = 0; i < 8; i += 1) await send(i);
    expect(partnerEventTypes(sink)).toEqual([]);
    await send(8);
    expect(partnerEventTypes(sink)).toEqual(['workspace:quota_near_full']);
    await send(9);
    expect(partnerEventTypes(sink)).toEqual(['workspace:quota_near_full', 'workspace:quota_full']);
    await engine.admin.updateWorkspace(ws, { quota: 12 });
    await send(10);
    await send(11);
    // Same period: already told; nothing repeats.
    expect(partnerEventTypes(sink)).toEqual(['workspace:quota_near_full', 'workspace:quota_full']);
    expect(sink.events.find((e) => e.type === 'workspace:quota_full')).toMatchObject({ data: { workspace_id: ws, quota_total: 10, quota_used: 10 } });
    // A new period is a new crossing.
    clock.advance(32 * 24 * 3_600_000);
    for (let i = 12; i < 23; i += 1) await send(i);
    expect(partnerEventTypes(sink)).toEqual([
      'workspace:quota_near_full',
      'workspace:quota_full',
      'workspace:quota_near_full',
    ]);
    await engine.close();
  });

  it('createUsers: seats_full when the seats fill, once per seat count', async () => {
    const { engine, api, ws, sink } = await alertEngine(100);
    await api.createUsers(ws, { count: 2 });
    expect(partnerEventTypes(sink)).toEqual([]);
    await api.createUsers(ws, { count: 1 });
    expect(partnerEventTypes(sink)).toEqual(['workspace:seats_full']);
    expect(sink.events[0]).toMatchObject({ data: { seats_purchased: 3, seats_used: 3 } });
    await api.updateWorkspace(ws, { seats_purchased: 4 });
    await api.updateWorkspace(ws, { seats_purchased: 3 });
    await expect(api.createUsers(ws, { count: 1 })).rejects.toThrow(/free seats/);
    expect(partnerEventTypes(sink)).toEqual(['workspace:seats_full']);
    await api.updateWorkspace(ws, { seats_purchased: 4 });
    await api.createUsers(ws, { count: 1 });
    expect(partnerEventTypes(sink)).toEqual(['workspace:seats_full', 'workspace:seats_full']);
    await engine.close();
  });

  it('workspaces without a partner never emit partner events', async () => {
    const clock = new FakeClock();
    const sink = recordingSink();
    const engine = createEngine({ database: new SqliteDatabase(openDatabase(':memory:')), clock, random: fixedRandom(), events: sink.parts });
    const { workspace_id: ws } = await engine.admin.createWorkspace({ name: 'Plain', quota: 1 });
    await engine.sim(ws).connect({ phone: '+15550003002' });
    await engine.workspace(ws).sendToPhone({ phone: '+14155550000', text: 'x' });
    expect(partnerEventTypes(sink)).toEqual([]);
    await engine.close();
  });
});
