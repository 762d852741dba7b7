import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Db } from './database.js';

/** How often the background thread copies the WAL back into the database file while it is being written. */
export const CHECKPOINT_INTERVAL_MS = 100;

/** How long the thread waits at most between looks once nothing has been written for a while. */
export const CHECKPOINT_IDLE_INTERVAL_MS = 800;

// The thread's whole program. It runs PASSIVE checkpoints only: they never take the write lock and never
// wait, so the server's writers are not held up. A RESTART or TRUNCATE would block them. The statement is
// prepared once (a PRAGMA prepared at every tick took a quarter of an idle server's CPU samples), and while the WAL stays
// as it was the thread looks less often, up to \`maxIntervalMs\`, so an idle server's thread mostly sleeps.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
let seen = '';
let wait = workerData.intervalMs;
let timer;
const tick = () => {
  try {
    const { busy, log, checkpointed } = checkpoint.get();
    const now = busy + ' ' + log + ' ' + checkpointed;
    wait = now === seen ? Math.min(wait * 2, workerData.maxIntervalMs) : workerData.intervalMs;
    seen = now;
  } catch {
    wait = workerData.intervalMs; // busy or closing: the next tick tries again
  }
  timer = setTimeout(tick, wait);
};
timer = setTimeout(tick, wait);
parentPort.on('message', () => { clearTimeout(timer); db.close(); parentPort.close(); });
`;

/** A running background checkpointer; `stop` hands checkpointing back to the connection. */
export interface BackgroundCheckpoints {
  stop(): Promise<void>;
}

/**
 * Moves WAL checkpoints of `db` (the file at `path`) off the event loop. By default SQLite checkpoints inside
 * whichever commit crosses 1000 WAL pages, and a checkpoint writes those pages into the database file and
 * fsyncs it: in a busy server that is one commit in a hundred stalling every request and delivery for
 * milliseconds. Here the connection's automatic checkpoints are turned off and a thread of its own, on a
 * connection of its own, checkpoints every `intervalMs` while the WAL changes (every `maxIntervalMs` at most once
 * it stops changing); the WAL restarts from its beginning once it is fully copied, so it stays small. Should the
 * thread fail, the connection checkpoints by itself again.
 */
export function checkpointInBackground(
  db: Db,
  path: string,
  intervalMs = CHECKPOINT_INTERVAL_MS,
  maxIntervalMs = CHECKPOINT_IDLE_INTERVAL_MS,
): BackgroundCheckpoints {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, path, intervalMs, maxIntervalMs } });
  worker.unref();
  const automatic = db.pragma('wal_autocheckpoint', { simple: true }) as number;
  db.pragma('wal_autocheckpoint = 0');
  const restore = () => {
    if (db.open) db.pragma(`wal_autocheckpoint = ${automatic}`);
  };
  const exited = new Promise<void>((resolve) => {
    worker.once('error', restore);
    worker.once('exit', () => {
      restore();
      resolve();
    });
  });
  return {
    stop: async () => {
      // Held by the event loop while it finishes (unref'd, a process with nothing else to do would exit
      // before the thread's 'exit' event, leaving this promise unsettled).
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
