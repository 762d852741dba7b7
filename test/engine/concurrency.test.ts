import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/engine/clock.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { isSvcError } from '../../src/engine/errors.js';
import { openDatabase } from '../../src/store/database.js';
import { compileEngine } from '../support/compiled-engine.js';
import { countRows, ledgerSum, tempDir } from '../support/engine-fixtures.js';
import { fixedRandom } from '../support/test-engine.js';
import { raceWorkers } from '../support/worker-race.js';

const QUOTA = 7;

/** A database file with a workspace of QUOTA credits and a connected account. */
function sharedDatabase(clock: FakeClock) {
  const path = join(tempDir(), 'svc.db');
  const setup = createEngine({ db: openDatabase(path), clock, random: fixedRandom() });
  const { workspace_id } = setup.admin.createWorkspace({ name: 'Race', quota: QUOTA });
  setup.sim(workspace_id).connect({ phone: '+15550004001' });
  return { path, workspaceId: workspace_id, setup };
}

describe('credits: concurrent sends never overspend', () => {
  it('sendToPhone: interleaved sends from several connections accept exactly the quota', async () => {
    const clock = new FakeClock();
    const { path, workspaceId, setup } = sharedDatabase(clock);
    const engines = Array.from({ length: 4 }, () => createEngine({ db: openDatabase(path), clock, random: fixedRandom() }));
    let accepted = 0;
    let refused = 0;
    for (let round = 0; round < 5; round += 1) {
      for (const [index, engine] of engines.entries()) {
        try {
          engine.workspace(workspaceId).sendToPhone({ phone: `+141555500${index}${round}`, text: 'race' });
          accepted += 1;
        } catch (error) {
          if (!isSvcError(error) || error.code !== 'quota_exceeded') throw error;
          refused += 1;
        }
      }
    }
    expect(accepted).toBe(QUOTA);
    expect(refused).toBe(20 - QUOTA);
    expect(setup.workspace(workspaceId).getWorkspace().messaging_quota).toMatchObject({ used: QUOTA, remaining: 0 });
    expect(ledgerSum(setup.context.db, workspaceId)).toBe(QUOTA);
    expect(countRows(setup.context.db, 'jobs')).toBe(QUOTA);
    for (const engine of [setup, ...engines]) await engine.close();
  });

  it('sendToPhone: worker threads racing on one database file accept exactly the quota', async () => {
    const clock = new FakeClock();
    const { path, workspaceId, setup } = sharedDatabase(clock);
    const buildDir = compileEngine(tempDir());
    const all = await raceWorkers<{ accepted: string[]; refused: number; other: string[] }>(resolve(import.meta.dirname, '../support/send-worker.mjs'), 4, { buildDir, dbPath: path, workspaceId, sends: 6, now: clock.now() });

    expect(all.flatMap((r) => r.other)).toEqual([]);
    const accepted = all.flatMap((r) => r.accepted);
    expect(accepted).toHaveLength(QUOTA);
    expect(new Set(accepted).size).toBe(QUOTA);
    expect(all.reduce((n, r) => n + r.refused, 0)).toBe(24 - QUOTA);
    expect(setup.workspace(workspaceId).getWorkspace().messaging_quota.used).toBe(QUOTA);
    expect(ledgerSum(setup.context.db, workspaceId)).toBe(QUOTA);
    expect(countRows(setup.context.db, 'messages')).toBe(QUOTA);
    await setup.close();
  });
});
