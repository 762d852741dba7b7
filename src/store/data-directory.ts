import { accessSync, chmodSync, closeSync, constants, mkdirSync, openSync, statSync, type Stats } from 'node:fs';
import { dirname, parse } from 'node:path';
import { SvcError } from '../wire/errors.js';

/** What `prepareDataFile` found: a database to create, one to open, or one to open read-only. */
export type DataFileState = 'new' | 'existing' | 'read-only';

/** An empty svc.db younger than this is one another process is creating right now, not a damaged one. */
const CREATION_GRACE_MS = 5_000;

const refuse = (message: string, hint: string): SvcError => new SvcError('unavailable', message, { hint });

const statOrNull = (path: string): Stats | null => {
  try {
    return statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') {
      throw refuse(`Cannot use ${path}: a folder on its path is a file`, 'pass a directory to --data (svc keeps svc.db inside it)');
    }
    throw refuse(`Cannot use ${path}: ${(error as Error).message}`, 'pick another --data directory');
  }
};

/**
 * Checks the data directory of `dbPath` before SQLite touches it, so every bad path fails at once with advice:
 * a file where a directory should be, a path that cannot be created (under /proc, on a read-only mount), an
 * emptied svc.db. The directory is made owner-only (0700) and the database file 0600: they hold tokens.
 */
export function prepareDataFile(dbPath: string): DataFileState {
  const dir = dirname(dbPath);
  ensureDirectory(dir);
  const writable = canWrite(dir);
  const file = statOrNull(dbPath);
  if (file === null) {
    if (!writable) throw refuse(`Cannot create a database in ${dir}: the directory is not writable`, 'pick a writable --data directory');
    createOwnerOnly(dbPath);
    return 'new';
  }
  if (!file.isFile()) throw refuse(`${dbPath} is not a file`, 'move it away, or pick another --data directory');
  if (file.size === 0 && Date.now() - file.mtimeMs > CREATION_GRACE_MS) {
    throw refuse(
      `${dbPath} is empty (0 bytes): this instance's data is gone from it, and opening it would start a new, empty instance`,
      `restore svc.db from a backup (with any svc.db-wal beside it), or delete ${dbPath} to start afresh on purpose`,
    );
  }
  if (!writable) {
    const wal = statOrNull(`${dbPath}-wal`);
    if (wal !== null && wal.size > 0) {
      throw refuse(`${dir} is read-only and ${dbPath}-wal holds changes not yet in svc.db`, 'make the directory writable once (any svc command merges them), then it can be read read-only');
    }
    return 'read-only';
  }
  tighten(dbPath);
  return 'existing';
}

// Created one level at a time: `mkdirSync(..., { recursive: true })` was seen spinning on paths under /proc.
function ensureDirectory(dir: string): void {
  const missing: string[] = [];
  let cursor = dir;
  for (let stat = statOrNull(cursor); stat === null; stat = statOrNull(cursor)) {
    missing.unshift(cursor);
    const parent = dirname(cursor);
    if (parent === cursor || cursor === parse(cursor).root) break;
    cursor = parent;
  }
  const existing = missing.length === 0 ? dir : dirname(missing[0] as string);
  const stat = statOrNull(existing);
  if (stat !== null && !stat.isDirectory()) {
    throw refuse(`--data ${dir}: ${existing} is a file, not a directory`, 'pass a directory to --data (svc keeps svc.db inside it)');
  }
  for (const path of missing) {
    try {
      mkdirSync(path, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw refuse(`Cannot create the data directory ${path}: ${(error as Error).message}`, 'pick a --data directory svc may create and write');
    }
  }
  if (missing.length === 0) tighten(dir);
}

/** Takes group and other bits off something we own (a directory made 0755 by hand); never adds any. */
function tighten(path: string): void {
  try {
    const stat = statSync(path);
    const mode = stat.mode & 0o777;
    if ((mode & 0o077) !== 0 && stat.uid === process.getuid?.()) chmodSync(path, mode & 0o700);
  } catch {
    // Not ours, or a read-only mount: leave it as it is.
  }
}

function canWrite(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function createOwnerOnly(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw refuse(`Cannot create ${path}: ${(error as Error).message}`, 'pick a writable --data directory');
    }
  }
}
