import { FakeClock, type Random } from '../../src/engine/clock.js';
import { createEngine, type EngineParts } from '../../src/runtime/create-engine.js';
import { openDatabase } from '../../src/store/database.js';

/** A random source that always answers the same value (0.5 gives a 2000 ms send spacing). */
export const fixedRandom = (value = 0.5): Random => ({ next: () => value });

/** An engine on an in-memory database with a fake clock (its own, or the one given), and the Local workspace ready. */
export function testEngine(parts: Partial<EngineParts> & { clock?: FakeClock } = {}) {
  const clock = parts.clock ?? new FakeClock();
  const engine = createEngine({ db: openDatabase(':memory:'), random: fixedRandom(), ...parts, clock });
  const local = engine.ensureLocalWorkspace();
  const api = engine.workspace(local.workspace_id);
  return { engine, clock, local, api, sim: engine.sim(local.workspace_id), db: engine.context.db };
}
