/**
 * Entry points of `svc admin migrate` and `svc admin copy`: the CLI reaches the stores only through runtime.
 * The PostgreSQL driver is loaded only when a `postgres://` URL is given.
 */
import type { CopiedTable } from '../store/postgres/copy-from-sqlite.js';

export type { CopiedTable };

export interface MigrateReport {
  version: number;
  /** Versions this call applied (empty when the database was current). */
  applied: number[];
}

export async function migratePostgresDatabase(url: string): Promise<MigrateReport> {
  const { migratePostgresUrl } = await import('../store/postgres/open-postgres.js');
  return migratePostgresUrl(url);
}

/** Migrates the SQLite database of an instance that exists (`path` is its svc.db). */
export async function migrateSqliteInstance(path: string): Promise<MigrateReport> {
  const { migrate, openDatabase, schemaVersion } = await import('../store/database.js');
  const db = openDatabase(path, { migrate: false });
  try {
    const applied = migrate(db);
    return { version: schemaVersion(db), applied };
  } finally {
    db.close();
  }
}

/** Copies every row of the SQLite database at `path` into the empty PostgreSQL database at `url`. */
export async function copySqliteInstanceToPostgres(path: string, url: string): Promise<CopiedTable[]> {
  const { openDatabase } = await import('../store/database.js');
  const { openPostgres } = await import('../store/postgres/open-postgres.js');
  const { copySqliteToPostgres } = await import('../store/postgres/copy-from-sqlite.js');
  const source = openDatabase(path);
  try {
    const target = await openPostgres(url);
    try {
      return await copySqliteToPostgres(source, target.pool);
    } finally {
      await target.close();
    }
  } finally {
    source.close();
  }
}
