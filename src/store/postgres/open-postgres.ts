/**
 * Opens svc's PostgreSQL store: connects, applies any missing migration (under the advisory lock, so
 * replicas starting together apply each once) and hands back the database. Imported only for a
 * `postgres://` URL, so the SQLite path never loads the driver.
 */
import { SvcError } from '../../wire/errors.js';
import { redactDatabaseUrl } from './database-url.js';
import { PgDatabase, type PgDatabaseOptions } from './pg-database.js';
import { isUnavailable } from './pg-errors.js';
import { PG_MIGRATIONS } from '../migrations/index.js';
import { migratePostgres, type MigrateResult, type MigrationWait } from './pg-migrate.js';

export interface OpenPostgresOptions extends Omit<PgDatabaseOptions, 'url'> {
  /** Leave the schema as it is (`svc admin migrate` applies it on its own, with a report). */
  migrate?: boolean;
  /** Waiting for another process's migration: the bound and who hears about it (default: stderr, 60 s). */
  migrationWait?: MigrationWait;
}

/**
 * The wait for another process's migration: announced on stderr (every svc process, server or one-shot
 * command, has one the operator reads) and bounded by 60 s, or SVC_MIGRATION_WAIT_MS.
 */
function migrationWait(url: string, given: MigrationWait = {}): MigrationWait {
  const fromEnv = Number(process.env['SVC_MIGRATION_WAIT_MS']);
  return {
    label: redactDatabaseUrl(url),
    onWait: (message) => process.stderr.write(`warning: ${message}\n`),
    ...(Number.isInteger(fromEnv) && fromEnv > 0 ? { maxWaitMs: fromEnv } : {}),
    ...given,
  };
}

export async function openPostgres(url: string, options: OpenPostgresOptions = {}): Promise<PgDatabase> {
  const database = new PgDatabase({ url, ...options });
  try {
    if (options.migrate !== false) await migratePostgres(database.pool, PG_MIGRATIONS, migrationWait(url, options.migrationWait));
  } catch (error) {
    await database.close().catch(() => undefined);
    throw cannotReach(url, error);
  }
  return database;
}

/** Applies missing migrations and reports what it did (`svc admin migrate`). */
export async function migratePostgresUrl(url: string): Promise<MigrateResult> {
  const database = new PgDatabase({ url });
  try {
    return await migratePostgres(database.pool, PG_MIGRATIONS, migrationWait(url));
  } catch (error) {
    throw cannotReach(url, error);
  } finally {
    await database.close().catch(() => undefined);
  }
}

/** The driver's failure as advice; the URL is shown without its password. */
export function cannotReach(url: string, error: unknown): unknown {
  // svc's own refusals (a newer schema, a migration lock never released) pass; a wrapped driver failure does not.
  if (error instanceof SvcError && (error.code !== 'unavailable' || error.cause === undefined)) return error;
  const message = (error as Error).message ?? String(error);
  const code = (error as { code?: string }).code;
  if (code === '3D000') {
    return new SvcError('unavailable', `Database of ${redactDatabaseUrl(url)} does not exist`, {
      hint: 'create it first (createdb, or CREATE DATABASE in psql), then run the command again',
    });
  }
  if (code === '28P01' || code === '28000') {
    return new SvcError('unavailable', `PostgreSQL refused the login of ${redactDatabaseUrl(url)}: ${message}`, {
      hint: 'check the user and password in the URL',
    });
  }
  if (isUnavailable(error) || (error instanceof SvcError && error.code === 'unavailable')) {
    return new SvcError('unavailable', `Cannot reach PostgreSQL at ${redactDatabaseUrl(url)}`, {
      hint: 'check that the server runs and the URL is right (host, port, database)',
    });
  }
  return error;
}
