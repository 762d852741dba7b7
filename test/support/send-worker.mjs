// A worker thread that opens its own engine on a shared database file and fires sends at it.
import { parentPort, workerData } from 'node:worker_threads';

const { buildDir, dbPath, workspaceId, sends, now, gate } = workerData;
const { openDatabase } = await import(`${buildDir}/store/database.js`);
const { SqliteDatabase } = await import(`${buildDir}/store/sqlite-database.js`);
const { createEngine } = await import(`${buildDir}/runtime/create-engine.js`);
const engine = createEngine({ database: new SqliteDatabase(openDatabase(dbPath)), clock: { now: () => now } });
const api = engine.workspace(workspaceId);

// Every worker waits here until all are ready, so their sends really overlap.
const flag = new Int32Array(gate);
Atomics.add(flag, 1, 1);
Atomics.wait(flag, 0, 0);

const result = { accepted: [], refused: 0, other: [] };
for (let i = 0; i < sends; i += 1) {
  try {
    result.accepted.push((await api.sendToPhone({ phone: `+1415555${String(i).padStart(4, '0')}`, text: 'race' })).message_uid);
  } catch (error) {
    if (error?.code === 'quota_exceeded') result.refused += 1;
    else result.other.push(String(error));
  }
}
await engine.close();
parentPort.postMessage(result);
