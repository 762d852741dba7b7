import { FakeClock, type Random } from '../../src/wire/clock.js';
import { createEngine, type EngineParts } from '../../src/runtime/create-engine.js';
import { openDatabase } from '../../src/store/database.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';

/** A random source that always answers the same value (0.5 gives a 2000 ms send spacing). */
export const fixedRandom = (value = 0.5): Random => ({ next: () => value });

/**
 * An engine on an in-memory database with a fake clock (its own, or the one given), and the Local workspace ready. `db` is the
 * raw better-sqlite3 handle, for tests that look at or damage rows directly.
 */
export async function testEngine(parts: Partial<EngineParts> & { clock?: FakeClock } = {}) {
  const clock = parts.clock ?? new FakeClock();
  const database = parts.database ?? new SqliteDatabase(openDatabase(':memory:'));
  const engine = createEngine({ random: fixedRandom(), ...parts, database, clock });
  const local = await engine.ensureLocalWorkspace();
  const api = engine.workspace(local.workspace_id);
  return { engine, clock, local, api, sim: engine.sim(local.workspace_id), ctx: engine.context, db: (database as SqliteDatabase).db };
}
