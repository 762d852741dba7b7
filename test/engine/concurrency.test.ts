import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { isSvcError } from '../../src/wire/errors.js';
import { openDatabase } from '../../src/store/database.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';
import { compileEngine } from '../support/compiled-engine.js';
import { countRows, ledgerSum, tempDir } from '../support/engine-fixtures.js';
import { fixedRandom } from '../support/test-engine.js';
import { raceWorkers } from '../support/worker-race.js';

const QUOTA = 7;

/** A database file with a workspace of QUOTA credits and a connected account; `db` is the setup engine's raw handle. */
async function sharedDatabase(clock: FakeClock) {
  const path = join(tempDir(), 'svc.db');
  const db = openDatabase(path);
  const setup = createEngine({ database: new SqliteDatabase(db), clock, random: fixedRandom() });
  const { workspace_id } = await setup.admin.createWorkspace({ name: 'Race', quota: QUOTA });
  await setup.sim(workspace_id).connect({ phone: '+15550004001' });
  return { path, workspaceId: workspace_id, setup, db };
}

/** Counts accepted and quota-refused sends; any other failure fails the test. */
function tally(outcomes: Array<PromiseSettledResult<unknown>>): { accepted: number; refused: number } {
  let accepted = 0;
  let refused = 0;
  for (const outcome of outcomes) {
    if (outcome.status === 'fulfilled') accepted += 1;
    else if (isSvcError(outcome.reason) && outcome.reason.code === 'quota_exceeded') refused += 1;
    else throw outcome.reason;
  }
  return { accepted, refused };
}

describe('credits: concurrent sends never overspend', () => {
  it('sendToPhone: interleaved sends from several connections accept exactly the quota', async () => {
    const clock = new FakeClock();
    const { path, workspaceId, setup, db } = await sharedDatabase(clock);
    const engines = Array.from({ length: 4 }, () => createEngine({ database: new SqliteDatabase(openDatabase(path)), clock, random: fixedRandom() }));
    let accepted = 0;
    let refused = 0;
    for (let round = 0; round < 5; round += 1) {
      for (const [index, engine] of engines.entries()) {
        try {
          await engine.workspace(workspaceId).sendToPhone({ phone: `+141555500${index}${round}`, text: 'race' });
          accepted += 1;
        } catch (error) {
          if (!isSvcError(error) || error.code !== 'quota_exceeded') throw error;
          refused += 1;
        }
      }
    }
    expect(accepted).toBe(QUOTA);
    expect(refused).toBe(20 - QUOTA);
    expect((await setup.workspace(workspaceId).getWorkspace()).messaging_quota).toMatchObject({ used: QUOTA, remaining: 0 });
    expect(ledgerSum(db, workspaceId)).toBe(QUOTA);
    expect(countRows(db, 'jobs')).toBe(QUOTA);
    for (const engine of [setup, ...engines]) await engine.close();
  });

  it('sendToPhone: sends in flight at once on one engine accept exactly the quota', async () => {
    const clock = new FakeClock();
    const { workspaceId, setup, db } = await sharedDatabase(clock);
    const api = setup.workspace(workspaceId);
    // All started before any is answered: their transactions interleave on the event loop.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => api.sendToPhone({ phone: `+14155550${String(i).padStart(3, '0')}`, text: 'race' })),
    );
    expect(tally(outcomes)).toEqual({ accepted: QUOTA, refused: 20 - QUOTA });
    expect((await api.getWorkspace()).messaging_quota).toMatchObject({ used: QUOTA, remaining: 0 });
    expect(ledgerSum(db, workspaceId)).toBe(QUOTA);
    expect(countRows(db, 'jobs')).toBe(QUOTA);
    expect(countRows(db, 'messages')).toBe(QUOTA);
    await setup.close();
  });

  it('sendToPhone: worker threads racing on one database file accept exactly the quota', async () => {
    const clock = new FakeClock();
    const { path, workspaceId, setup, db } = await sharedDatabase(clock);
    const buildDir = compileEngine(tempDir());
    const all = await raceWorkers<{ accepted: string[]; refused: number; other: string[] }>(resolve(import.meta.dirname, '../support/send-worker.mjs'), 4, { buildDir, dbPath: path, workspaceId, sends: 6, now: clock.now() });

    expect(all.flatMap((r) => r.other)).toEqual([]);
    const accepted = all.flatMap((r) => r.accepted);
    expect(accepted).toHaveLength(QUOTA);
    expect(new Set(accepted).size).toBe(QUOTA);
    expect(all.reduce((n, r) => n + r.refused, 0)).toBe(24 - QUOTA);
    expect((await setup.workspace(workspaceId).getWorkspace()).messaging_quota.used).toBe(QUOTA);
    expect(ledgerSum(db, workspaceId)).toBe(QUOTA);
    expect(countRows(db, 'messages')).toBe(QUOTA);
    await setup.close();
  });
});
