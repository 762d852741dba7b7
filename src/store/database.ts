import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations/index.js';
import { newerSchemaError, SvcError } from '../wire/errors.js';
import { createDataFile, diskFull, prepareDataFile } from './data-directory.js';

export type Db = Database.Database;

export interface OpenOptions {
  /** Milliseconds a writer waits for another process's lock before failing with SQLITE_BUSY. */
  busyTimeoutMs?: number;
  /** Leave the schema as it is (`svc admin migrate` calls `migrate` itself, to report what it applied). */
  migrate?: boolean;
}

/** The schema version of this release: the last migration's. */
const KNOWN_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

/** Why a database cannot be opened, with what to do; raised before anything is written. */
const cannotOpen = (message: string, hint: string): SvcError => new SvcError('unavailable', message, { hint });

/**
 * Opens (creating when missing) the SQLite database at `path`, or an in-memory one for ':memory:'.
 * WAL lets the server, an admin command and a CLI share one file; `synchronous=NORMAL` in WAL keeps
 * every committed transaction across a process crash (only a power loss can drop the last ones).
 * In a data directory this process may not write to, the database is opened as a read-only snapshot.
 * A file that is not svc's, or was written by a newer svc, is refused before anything is written to it.
 */
export function openDatabase(path: string, options: OpenOptions = {}): Db {
  if (path === ':memory:') return prepared(new Database(path), path, options);
  try {
    let state = prepareDataFile(path);
    if (state === 'missing') {
      createDataFile(path, buildDatabase);
      state = prepareDataFile(path);
    }
    if (state === 'read-only') return openReadOnlySnapshot(path);
    // Never let SQLite create the file itself: only `createDataFile` makes a svc.db, complete.
    return prepared(new Database(path, { fileMustExist: true }), path, options);
  } catch (error) {
    throw damaged(error, path) ?? diskFull(dirname(path), error, `open ${path}`) ?? error;
  }
}

/**
 * Fills a new database under a temporary name that nobody else opens (`createDataFile` then gives it the name
 * svc.db), so it needs no journal and no sync per migration: a failure deletes the file, and the finished
 * file is synced once before it is named. It is born in WAL mode, so no opener has to switch it.
 */
function buildDatabase(path: string): void {
  const db = new Database(path);
  try {
    db.pragma('journal_mode = MEMORY');
    db.pragma('synchronous = OFF');
    db.pragma('auto_vacuum = INCREMENTAL');
    migrate(db);
    db.pragma('journal_mode = WAL');
  } finally {
    db.close();
  }
}

/** Configures and migrates an open connection; closes it when that fails. */
function prepared(db: Db, path: string, options: OpenOptions): Db {
  try {
    configure(db, path, options);
    if (options.migrate !== false) migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

function configure(db: Db, path: string, options: OpenOptions): void {
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 10_000}`);
  refuseUnlessSvc(db, path);
  // Pages freed by deleting files go back to the file system (the maintenance sweep runs incremental_vacuum).
  // Set before the first table exists; an older database is converted once by the VACUUM below.
  if ((db.pragma('auto_vacuum', { simple: true }) as number) !== 2) {
    db.pragma('auto_vacuum = INCREMENTAL');
    if (schemaVersion(db) > 0) db.exec('VACUUM');
  }
  if (path !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // Keep the hot indexes in memory: a bigger page cache and memory-mapped reads spare a system call
  // per page on every request once the database outgrows SQLite's 2 MB default cache.
  db.pragma('cache_size = -65536');
  db.pragma('mmap_size = 268435456');
  // Group commit runs its sends in savepoints, and SQLite copies each page a savepoint first changes into a
  // sub-journal that spills to a temporary file past 64 KiB: three of every five writes under load went to
  // /var/tmp. In memory it is a copy; a group of 512 sends holds a few MiB at most.
  db.pragma('temp_store = MEMORY');
  db.pragma('foreign_keys = ON');
}

/**
 * Refuses a database svc must not touch: one a newer svc wrote (its migrations are unknown here), or another
 * program's SQLite file (tables but no svc schema version, or a version without svc's first table).
 */
function refuseUnlessSvc(db: Db, path: string): void {
  const version = schemaVersion(db);
  if (version > KNOWN_VERSION) throw newerSchemaError(path, version, KNOWN_VERSION);
  const tables = db.prepare("SELECT count(*) AS n, count(*) FILTER (WHERE name = 'workspaces') AS svc FROM sqlite_master").get() as { n: number; svc: number };
  if (version === 0 ? tables.n > 0 : tables.svc === 0) {
    throw cannotOpen(`${path} is not an svc database: it holds another program's tables`, 'pick another --data directory, or move that file away');
  }
}

/**
 * Even a reader of a WAL database writes its -shm index next to it, which a read-only directory forbids. The
 * file is read whole into memory instead, marked read-only: reads work, every write fails with
 * SQLITE_READONLY. Changes still in a -wal file would be missed, so that case is refused.
 */
function openReadOnlySnapshot(path: string): Db {
  let image: Buffer;
  try {
    image = readFileSync(path);
  } catch (error) {
    throw cannotOpen(`Cannot read ${path}: ${(error as Error).message}`, 'check the permissions of the data directory');
  }
  // Bytes 18-19 name the journal mode; an in-memory copy has no WAL to read.
  image[18] = 1;
  image[19] = 1;
  const db = new Database(image, { readonly: true });
  try {
    db.pragma('foreign_keys = ON');
    refuseUnlessSvc(db, path);
    if (schemaVersion(db) < KNOWN_VERSION) {
      throw cannotOpen(`${path} needs a schema upgrade, which a read-only data directory does not allow`, 'run svc once with write access to the data directory');
    }
  } catch (error) {
    db.close();
    throw damaged(error, path) ?? error;
  }
  return db;
}

/** SQLite's answer to a file that is not a database, or a damaged one, as advice. */
function damaged(error: unknown, path: string): SvcError | null {
  const code = (error as { code?: string }).code ?? '';
  if (!code.startsWith('SQLITE_CORRUPT') && code !== 'SQLITE_NOTADB') return null;
  return cannotOpen(
    `${path} is damaged or is not an svc database (${code})`,
    'restore svc.db from a backup (stop every svc process first), or move the data directory away to start a fresh instance',
  );
}

/**
 * Reads every page of the database and refuses a damaged one, so `svc serve` fails at start-up with advice
 * rather than later in a worker. Costs about a second per GiB.
 */
export function checkIntegrity(db: Db, path: string): void {
  let result: string;
  try {
    result = db.pragma('quick_check', { simple: true }) as string;
  } catch (error) {
    throw damaged(error, path) ?? error;
  }
  if (result !== 'ok') throw damaged(Object.assign(new Error(result), { code: 'SQLITE_CORRUPT' }), path) as SvcError;
}

/**
 * Applies, in order and each in its own transaction, every migration newer than `user_version`; returns the
 * versions this call applied.
 */
export function migrate(db: Db): number[] {
  const apply = db.transaction((version: number, sql: string): boolean => {
    // Another process may have migrated while this one waited for the write lock.
    if (schemaVersion(db) >= version) return false;
    db.exec(sql);
    db.pragma(`user_version = ${version}`);
    return true;
  });
  const applied: number[] = [];
  for (const migration of MIGRATIONS) {
    if (schemaVersion(db) >= migration.version) continue;
    if (apply.immediate(migration.version, migration.sql)) applied.push(migration.version);
  }
  return applied;
}

export const schemaVersion = (db: Db): number => db.pragma('user_version', { simple: true }) as number;
