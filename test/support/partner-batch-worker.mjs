// A worker thread that opens its own engine on a shared database file and creates partner users in batches.
import { parentPort, workerData } from 'node:worker_threads';

const { buildDir, dbPath, partnerId, workspaceId, batches, size, gate } = workerData;
const { openDatabase } = await import(`${buildDir}/store/database.js`);
const { SqliteDatabase } = await import(`${buildDir}/store/sqlite-database.js`);
const { createEngine } = await import(`${buildDir}/runtime/create-engine.js`);
const engine = createEngine({ database: new SqliteDatabase(openDatabase(dbPath)) });
const api = engine.partner(partnerId);

// Every worker waits here until all are ready, so their batches really overlap.
const flag = new Int32Array(gate);
Atomics.add(flag, 1, 1);
Atomics.wait(flag, 0, 0);

const result = { created: 0, refused: 0, other: [] };
for (let i = 0; i < batches; i += 1) {
  try {
    result.created += (await api.createUsers(workspaceId, { count: size })).length;
  } catch (error) {
    if (error?.code === 'seats_full') result.refused += 1;
    else result.other.push(String(error));
  }
}
await engine.close();
parentPort.postMessage(result);
