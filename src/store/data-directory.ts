import { randomBytes } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  statfsSync,
  statSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join, parse } from 'node:path';
import { diskFullError, SvcError } from '../wire/errors.js';

/** What `prepareDataFile` found: no database yet, one to open, or one to open read-only. */
export type DataFileState = 'missing' | 'existing' | 'read-only';

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
 * a file where a directory should be, an emptied svc.db, a svc.db-wal without its svc.db. Creates nothing
 * (`createDataFile` does); an existing directory and database are made owner-only (0700, 0600): they hold tokens.
 *
 * svc.db only ever appears complete (see `createDataFile`), so a 0-byte svc.db is always one whose data is gone:
 * it is refused, never opened, because SQLite would start a new database in it and delete the WAL beside it.
 */
export function prepareDataFile(dbPath: string): DataFileState {
  const dir = dirname(dbPath);
  if (missingDirectories(dir).length > 0) return 'missing';
  tighten(dir);
  const writable = canWrite(dir);
  if (writable) sweepAbandonedCreations(dir, basename(dbPath));
  const file = statOrNull(dbPath);
  const wal = statOrNull(`${dbPath}-wal`);
  if (file === null) {
    if (wal !== null && wal.size > 0) {
      throw refuse(
        `${dbPath} is missing, but ${dbPath}-wal beside it holds changes of that database: starting afresh would lose them`,
        `put svc.db back (from a backup, or where it was moved), or move ${dbPath}-wal away to start a new instance on purpose`,
      );
    }
    if (!writable) throw refuse(`Cannot create a database in ${dir}: the directory is not writable`, 'pick a writable --data directory');
    return 'missing';
  }
  if (!file.isFile()) throw refuse(`${dbPath} is not a file`, 'move it away, or pick another --data directory');
  if (file.size === 0) {
    throw refuse(
      `${dbPath} is empty (0 bytes): this instance's data is gone from it, and opening it would start a new, empty instance`,
      `restore svc.db from a backup (with any svc.db-wal beside it), or delete ${dbPath} to start afresh on purpose`,
    );
  }
  if (!writable) {
    if (wal !== null && wal.size > 0) {
      throw refuse(`${dir} is read-only and ${dbPath}-wal holds changes not yet in svc.db`, 'make the directory writable once (any svc command merges them), then it can be read read-only');
    }
    return 'read-only';
  }
  tighten(dbPath);
  return 'existing';
}

/**
 * Creates the database at `dbPath` (and its directory, owner-only) without a moment in which a half-made one
 * is visible: `build` fills a temporary file next to it, which is synced and then linked to the name svc.db,
 * an atomic step that never replaces a file. When processes race, the first link wins and the others discard
 * their copy and open the winner's. On any failure (a full disk) everything made here is removed again.
 */
export function createDataFile(dbPath: string, build: (path: string) => void): void {
  const dir = dirname(dbPath);
  const made = makeDirectories(missingDirectories(dir));
  const temp = join(dir, `${basename(dbPath)}.new-${process.pid}-${randomBytes(4).toString('hex')}`);
  const removeTemp = () => {
    for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(`${temp}${suffix}`, { force: true });
  };
  try {
    closeSync(openSync(temp, 'wx', 0o600));
    build(temp);
    syncFile(temp);
    publish(temp, dbPath);
  } catch (error) {
    removeTemp();
    for (const path of made.reverse()) removeEmptyDirectory(path);
    throw diskFull(dir, error, 'create its database there') ?? error;
  }
  removeTemp(); // svc.db is now a second name of the same file
  syncDirectory(dir);
}

/**
 * Removes what a creation killed half-way left behind (`svc.db.new-PID-...` and its journal files): only those
 * whose process is gone, so a creation running now in another process keeps its file.
 */
function sweepAbandonedCreations(dir: string, base: string): void {
  const leftover = new RegExp(`^${base.replace(/\./g, '\\.')}\\.new-(\\d+)-[0-9a-f]+(-journal|-wal|-shm)?$`);
  for (const name of readdirSync(dir)) {
    const pid = leftover.exec(name)?.[1];
    if (pid !== undefined && !processAlive(Number(pid))) rmSync(join(dir, name), { force: true });
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, but another user's
  }
}

/** Gives `temp` the name `dbPath` unless a file has it already (then someone else created it first). */
function publish(temp: string, dbPath: string): void {
  try {
    linkSync(temp, dbPath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    // A file system without hard links: rename, which would replace, only when nothing has the name yet.
    if ((code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') && !existsSync(dbPath)) renameSync(temp, dbPath);
    else throw error;
  }
}

/**
 * A full disk as SQLite or the file system reports it, or null. SQLite says SQLITE_FULL when a write finds no
 * room, but only "disk I/O error" when its shared-memory index cannot grow, so an I/O error is read as a full
 * disk when the file system has (almost) nothing left.
 */
export function diskFull(dir: string, error: unknown, doing: string): SvcError | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  const ioError = code.startsWith('SQLITE_IOERR');
  if (code !== 'SQLITE_FULL' && code !== 'ENOSPC' && !ioError) return null;
  const space = freeSpace(dir);
  if (ioError && (space === undefined || space.bytes >= 1024 * 1024)) return null;
  return diskFullError(dir, doing, space);
}

/** Free bytes of the file system holding `dir`, asked of its nearest existing ancestor (named for `df`). */
function freeSpace(dir: string): { path: string; bytes: number } | undefined {
  for (let path = dir; ; path = dirname(path)) {
    try {
      const stats = statfsSync(path);
      return { path, bytes: stats.bavail * stats.bsize };
    } catch {
      if (dirname(path) === path) return undefined;
    }
  }
}

/** The directories to make for `dir`, outermost first; refuses a file standing where a directory should be. */
function missingDirectories(dir: string): string[] {
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
  return missing;
}

// Made one level at a time: `mkdirSync(..., { recursive: true })` was seen spinning on paths under /proc.
function makeDirectories(paths: string[]): string[] {
  const made: string[] = [];
  for (const path of paths) {
    try {
      mkdirSync(path, { mode: 0o700 });
      made.push(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      for (const done of made.reverse()) removeEmptyDirectory(done);
      throw (
        diskFull(path, error, `create the data directory ${path}`) ??
        refuse(`Cannot create the data directory ${path}: ${(error as Error).message}`, 'pick a --data directory svc may create and write')
      );
    }
  }
  return made;
}

/** Removes a directory this process made, unless something (another process's database) is in it now. */
function removeEmptyDirectory(path: string): void {
  try {
    rmdirSync(path);
  } catch {
    // Not empty, or already gone: either way it is not ours to remove.
  }
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Makes the new name durable; some file systems cannot sync a directory, and then the name is as safe as it gets. */
function syncDirectory(dir: string): void {
  try {
    syncFile(dir);
  } catch {
    // EISDIR/EINVAL on file systems without directory fsync.
  }
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
