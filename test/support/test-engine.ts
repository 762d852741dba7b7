import { FakeClock, type Random } from '../../src/engine/clock.js';
import { createEngine, type EngineParts } from '../../src/engine/create-engine.js';
import { openDatabase } from '../../src/store/database.js';

/** A random source that always answers the same value (0.5 gives a 2000 ms send spacing). */
export const fixedRandom = (value = 0.5): Random => ({ next: () => value });

/** An engine on an in-memory database with a fake clock, and the Local workspace ready. */
export function testEngine(parts: Partial<EngineParts> = {}) {
  const clock = new FakeClock();
  const engine = createEngine({ db: openDatabase(':memory:'), clock, random: fixedRandom(), ...parts });
  const local = engine.ensureLocalWorkspace();
  const api = engine.workspace(local.workspace_id);
  return { engine, clock, local, api, sim: engine.sim(local.workspace_id) };
}
