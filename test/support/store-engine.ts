/**
 * Engines on either store, so a suite can run once per store with `for (const store of STORES)`: SQLite in
 * memory, or a fresh, migrated PostgreSQL database of its own on the test server (dropped by `drop`).
 */
import { afterAll, beforeAll } from 'vitest';
import type { FakeClock } from '../../src/wire/clock.js';
import type { EngineParts } from '../../src/runtime/create-engine.js';
import { openDatabase } from '../../src/store/database.js';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { migratePostgres } from '../../src/store/postgres/pg-migrate.js';
import type { SqlDatabase } from '../../src/store/sql-database.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';
import { createTestDatabase, type TestDatabase } from './postgres.js';
import { testEngine } from './test-engine.js';

export const STORES = ['sqlite', 'postgres'] as const;
export type Store = (typeof STORES)[number];

/** A new, empty database of `store` for one engine; `drop` removes a PostgreSQL one (after the engine closed). */
export async function storeDatabase(store: Store): Promise<{ database: SqlDatabase; drop: () => Promise<void> }> {
  if (store === 'sqlite') return { database: new SqliteDatabase(openDatabase(':memory:')), drop: async () => undefined };
  const created = await createMigratedTestDatabase('store_engine');
  return { database: new PgDatabase({ url: created.url, poolSize: 4 }), drop: () => created.drop() };
}

/**
 * A migrated PostgreSQL database for the tests of the calling file: made before them, dropped after them.
 * Returns its URL (read it inside a test or hook, once the database is made).
 */
export function postgresForThisFile(label: string): () => string {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createMigratedTestDatabase(label);
  });
  afterAll(async () => {
    await database?.drop();
  });
  return () => database!.url;
}

/** An empty PostgreSQL database for one test file, migrated to the current schema. */
export async function createMigratedTestDatabase(label: string): Promise<TestDatabase> {
  const created = await createTestDatabase(label);
  const setup = new PgDatabase({ url: created.url, poolSize: 1 });
  await migratePostgres(setup.pool);
  await setup.close();
  return created;
}

/** `describe.each` rows: a fresh in-memory SQLite, and a pool on the (migrated) PostgreSQL database `url()` names. */
export const sqliteAndPostgres = (url: () => string, poolSize = 4): Array<[string, () => SqlDatabase]> => [
  ['SQLite', () => new SqliteDatabase(openDatabase(':memory:'))],
  ['PostgreSQL', () => new PgDatabase({ url: url(), poolSize })],
];

/** `testEngine` on `store`; `drop` closes the engine and removes its database. */
export async function storeTestEngine(store: Store, parts: Partial<EngineParts> & { clock?: FakeClock } = {}) {
  const { database, drop } = await storeDatabase(store);
  const t = await testEngine({ ...parts, database });
  return {
    ...t,
    store,
    drop: async () => {
      await t.engine.close();
      await drop();
    },
  };
}
