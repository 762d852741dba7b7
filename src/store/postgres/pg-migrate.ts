/**
 * Migrations on PostgreSQL: forward-only, the same version numbers as SQLite's, recorded in `svc_schema`.
 * They run under a session advisory lock, so replicas starting together apply each version once: the second
 * waits for the lock, then finds the versions already there.
 */
import type pg from 'pg';
import { newerSchemaError, SvcError } from '../../wire/errors.js';
import { PG_MIGRATIONS, type Migration } from '../migrations/index.js';

// Any fixed 64-bit key; it only has to be the same in every svc process.
const MIGRATION_LOCK_KEY = 7_310_492_001;
/** How often a waiting process asks for the lock again. */
const LOCK_POLL_MS = 100;

export interface MigrateResult {
  /** Versions this call applied (empty when another replica got there first, or nothing was new). */
  applied: number[];
  version: number;
}

/** How long to wait for another process's migration, and whom to tell. */
export interface MigrationWait {
  /** Give up after this long (default 60 s): a session that holds the lock and never lets go stalls nobody for ever. */
  maxWaitMs?: number;
  /** Say once that svc waits, after this long (default 1 s). */
  noticeAfterMs?: number;
  onWait?: (message: string) => void;
  /** The database as messages name it (its URL without the password). */
  label?: string;
}

/**
 * Applies every migration newer than the database's version, each in its own transaction. A database already
 * current is left without taking the lock; one written by a newer svc is refused.
 */
export async function migratePostgres(pool: pg.Pool, migrations: readonly Migration[] = PG_MIGRATIONS, wait: MigrationWait = {}): Promise<MigrateResult> {
  const known = migrations.at(-1)?.version ?? 0;
  const label = wait.label ?? 'the database';
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    let version = await checkedVersion(client, known, label);
    if (version === known) return { applied, version };
    await takeMigrationLock(client, wait, label);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS svc_schema (
        version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`);
      // Another process may have migrated (even to a newer release) while this one waited for the lock.
      version = await checkedVersion(client, known, label);
      for (const migration of migrations) {
        if (migration.version <= version) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO svc_schema (version, name, applied_at) VALUES ($1, $2, $3)', [
            migration.version,
            migration.name,
            Date.now(),
          ]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
        applied.push(migration.version);
        version = migration.version;
      }
      return { applied, version };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    }
  } finally {
    client.release();
  }
}

async function checkedVersion(client: pg.PoolClient, known: number, label: string): Promise<number> {
  const version = await postgresSchemaVersion(client);
  if (version > known) throw newerSchemaError(label, version, known);
  return version;
}

/**
 * Takes the migration lock, asking again every 100 ms rather than blocking in `pg_advisory_lock`, so that the
 * wait can be announced and bounded: replicas starting together wait a moment for each other, but a session
 * that holds the lock and never lets go (a stuck migration, a psql left open) gets a clear error, not a hang.
 */
async function takeMigrationLock(client: pg.PoolClient, wait: MigrationWait, label: string): Promise<void> {
  const maxWaitMs = wait.maxWaitMs ?? 60_000;
  const noticeAfterMs = wait.noticeAfterMs ?? 1000;
  const started = Date.now();
  let told = false;
  for (;;) {
    const result = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [MIGRATION_LOCK_KEY]);
    if (result.rows[0]?.locked === true) return;
    const waited = Date.now() - started;
    if (waited >= maxWaitMs) {
      const holder = await lockHolder(client);
      throw new SvcError('unavailable', `Gave up after ${seconds(maxWaitMs)} s waiting for another process's migration of ${label}${holding(holder)}`, {
        hint:
          holder === undefined
            ? 'run the command again; if it keeps waiting, look for a stuck svc process or session on that database'
            : `if no svc is starting or migrating, that session is stuck: end it (SELECT pg_terminate_backend(${holder})) and run the command again`,
      });
    }
    if (!told && waited >= noticeAfterMs) {
      told = true;
      const holder = await lockHolder(client);
      wait.onWait?.(`waiting for another process's migration of ${label}${holding(holder)}; giving up after ${seconds(maxWaitMs)} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(LOCK_POLL_MS, maxWaitMs - waited)));
  }
}

const seconds = (ms: number): number => Math.round(ms / 100) / 10;
const holding = (pid: number | undefined): string => (pid === undefined ? '' : ` (PostgreSQL session ${pid} holds svc's migration lock)`);

/** The backend holding the lock: a bigint advisory key shows as its high half in classid, low half in objid. */
async function lockHolder(client: pg.PoolClient): Promise<number | undefined> {
  const result = await client.query<{ pid: number }>(
    `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
       AND classid::bigint = $1 AND objid::bigint = $2 LIMIT 1`,
    [Math.floor(MIGRATION_LOCK_KEY / 2 ** 32), MIGRATION_LOCK_KEY % 2 ** 32],
  );
  return result.rows[0]?.pid;
}

/** The highest applied version, 0 for an empty database. */
export async function postgresSchemaVersion(pool: pg.Pool | pg.PoolClient): Promise<number> {
  const exists = await pool.query<{ present: string | null }>("SELECT to_regclass('svc_schema') AS present");
  if (exists.rows[0]?.present == null) return 0;
  return currentVersion(pool);
}

async function currentVersion(client: pg.Pool | pg.PoolClient): Promise<number> {
  const result = await client.query<{ version: number | null }>('SELECT MAX(version) AS version FROM svc_schema');
  return Number(result.rows[0]?.version ?? 0);
}
