/**
 * Migrations on PostgreSQL: forward-only, the same version numbers as SQLite's, recorded in `svc_schema`.
 * They run under a session advisory lock, so replicas starting together apply each version once: the second
 * waits for the lock, then finds the versions already there.
 */
import type pg from 'pg';
import { PG_MIGRATIONS } from './migrations/index.js';
import type { Migration } from '../migrations/index.js';

// Any fixed 64-bit key; it only has to be the same in every svc process.
const MIGRATION_LOCK_KEY = 7_310_492_001;

export interface MigrateResult {
  /** Versions this call applied (empty when another replica got there first, or nothing was new). */
  applied: number[];
  version: number;
}

/** Applies every migration newer than the database's version, each in its own transaction. */
export async function migratePostgres(pool: pg.Pool, migrations: readonly Migration[] = PG_MIGRATIONS): Promise<MigrateResult> {
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS svc_schema (
        version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`);
      let version = await currentVersion(client);
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
