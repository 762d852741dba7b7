import { Worker } from 'node:worker_threads';

/**
 * Starts `count` worker threads on `script`, holds them at a shared gate until every one is ready, releases
 * them at the same instant, and resolves with the message each posts back. The script receives the gate as
 * `workerData.gate`: it does `Atomics.add(flag, 1, 1)` then `Atomics.wait(flag, 0, 0)` before its work.
 */
export async function raceWorkers<T>(script: string, count: number, workerData: Record<string, unknown>): Promise<T[]> {
  const gate = new SharedArrayBuffer(8);
  const flag = new Int32Array(gate);
  const workers = Array.from({ length: count }, () => new Worker(script, { workerData: { ...workerData, gate } }));
  const results = workers.map(
    (worker) =>
      new Promise<T>((done, fail) => {
        worker.once('message', done);
        worker.once('error', fail);
      }),
  );
  while (Atomics.load(flag, 1) < count) await new Promise((r) => setTimeout(r, 5));
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
  return Promise.all(results);
}
