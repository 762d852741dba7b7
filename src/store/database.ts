import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations/index.js';

export type Db = Database.Database;

export interface OpenOptions {
  /** Milliseconds a writer waits for another process's lock before failing. */
  busyTimeoutMs?: number;
}

/**
 * Opens (creating when missing) the SQLite database at `path`, or an in-memory one for ':memory:'.
 * WAL lets the server, an admin command and a CLI share one file; `synchronous=NORMAL` in WAL keeps
 * every committed transaction across a process crash (only a power loss can drop the last ones).
 */
export function openDatabase(path: string, options: OpenOptions = {}): Db {
  if (path !== ':memory:') createOwnerOnlyFile(path);
  const db = new Database(path);
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 10_000}`);
  if (path !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // Keep the hot indexes in memory: a bigger page cache and memory-mapped reads spare a system call
  // per page on every request once the database outgrows SQLite's 2 MB default cache.
  db.pragma('cache_size = -65536');
  db.pragma('mmap_size = 268435456');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}

/** The database holds tokens and secrets: it is created readable by its owner only. */
function createOwnerOnlyFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
  chmodSync(path, 0o600);
}

/** Applies, in order and each in its own transaction, every migration newer than `user_version`. */
export function migrate(db: Db): void {
  const apply = db.transaction((version: number, sql: string) => {
    // Another process may have migrated while this one waited for the write lock.
    if ((db.pragma('user_version', { simple: true }) as number) >= version) return;
    db.exec(sql);
    db.pragma(`user_version = ${version}`);
  });
  for (const migration of MIGRATIONS) {
    if ((db.pragma('user_version', { simple: true }) as number) >= migration.version) continue;
    apply.immediate(migration.version, migration.sql);
  }
}

export const schemaVersion = (db: Db): number => db.pragma('user_version', { simple: true }) as number;
