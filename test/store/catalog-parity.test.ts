/**
 * One schema, two stores: a fresh SQLite database and a fresh PostgreSQL database, each migrated by svc,
 * must hold the same tables, columns, nullability, indexes and foreign keys. The migrations are written per store, so this
 * reads what each database's own catalogue says rather than comparing the SQL text.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/store/database.js';
import { migratePostgresUrl } from '../../src/store/postgres/open-postgres.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

interface Column {
  name: string;
  notNull: boolean;
}
interface Catalog {
  /** table -> its columns, in name order */
  tables: Map<string, Column[]>;
  /** `table(columns)` -> unique?, for every index (primary keys and unique constraints included) */
  indexes: Map<string, boolean>;
  /** `table(column) -> parent`, for every foreign key */
  foreignKeys: Set<string>;
}

/**
 * What exists on one store only, on purpose. Each entry says why; anything else that differs fails the test.
 * - `rate_limit_counters`: PostgreSQL replicas share the rate limit through it; a single SQLite server counts
 *   in memory (ARCHITECTURE.md, "The rate limit").
 * - `svc_schema`: PostgreSQL records its schema version in a table; SQLite keeps it in `user_version`.
 */
const ONLY_ON_POSTGRES = new Set(['rate_limit_counters', 'svc_schema']);
/**
 * Foreign keys SQLite keeps and PostgreSQL dropped (migration 16): the rows every send writes pointing at rows
 * svc never deletes, whose per-row checks were a third of PostgreSQL's send flush. SQLite keeps them so
 * the storage tests, run on both stores, still catch a write that would break one.
 */
const FOREIGN_KEYS_ONLY_ON_SQLITE = new Set([
  'messages(workspace_id) -> workspaces',
  'messages(messenger_account_id) -> messenger_accounts',
  'credit_ledger(workspace_id) -> workspaces',
  'credit_ledger(message_id) -> messages',
]);

function sqliteCatalog(db: Database.Database): Catalog {
  const tables = new Map<string, Column[]>();
  const indexes = new Map<string, boolean>();
  const foreignKeys = new Set<string>();
  const names = db
    .prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
    .pluck()
    .all() as string[];
  for (const table of names) {
    const columns = db.prepare(`SELECT name, type, "notnull" AS nn, pk FROM pragma_table_info(?)`).all(table) as {
      name: string;
      type: string;
      nn: number;
      pk: number;
    }[];
    // A primary-key column is NOT NULL on PostgreSQL whatever its declaration; SQLite allows NULL in a
    // non-INTEGER primary key unless it says NOT NULL, but svc never writes one, so both read as NOT NULL.
    tables.set(table, sorted(columns.map((c) => ({ name: c.name, notNull: c.nn === 1 || c.pk > 0 }))));
    const list = db.prepare(`SELECT name, "unique" AS uq, origin FROM pragma_index_list(?)`).all(table) as {
      name: string;
      uq: number;
    }[];
    for (const index of list) {
      const cols = db.prepare(`SELECT name FROM pragma_index_info(?) ORDER BY seqno`).pluck().all(index.name) as string[];
      indexes.set(`${table}(${cols.join(',')})`, index.uq === 1);
    }
    // An INTEGER PRIMARY KEY is the rowid on SQLite and has no index of its own; PostgreSQL indexes it.
    const key = columns.filter((c) => c.pk > 0);
    if (key.length === 1 && key[0]!.type.toUpperCase() === 'INTEGER') indexes.set(`${table}(${key[0]!.name})`, true);
    const references = db.prepare(`SELECT "from", "table" AS parent FROM pragma_foreign_key_list(?)`).all(table) as {
      from: string;
      parent: string;
    }[];
    for (const r of references) foreignKeys.add(`${table}(${r.from}) -> ${r.parent}`);
  }
  return { tables, indexes, foreignKeys };
}

async function postgresCatalog(client: pg.Client): Promise<Catalog> {
  const tables = new Map<string, Column[]>();
  const indexes = new Map<string, boolean>();
  const columns = await client.query<{ table_name: string; column_name: string; is_nullable: string }>(
    `SELECT table_name, column_name, is_nullable FROM information_schema.columns
      WHERE table_schema = 'public' ORDER BY table_name, column_name`,
  );
  for (const row of columns.rows) {
    const list = tables.get(row.table_name) ?? [];
    list.push({ name: row.column_name, notNull: row.is_nullable === 'NO' });
    tables.set(row.table_name, list);
  }
  for (const [table, list] of tables) tables.set(table, sorted(list));
  // pg_index gives each index's columns in order (indkey); expression indexes have a 0 there and none exist.
  const found = await client.query<{ table_name: string; columns: string[]; unique: boolean }>(
    `SELECT t.relname AS table_name, i.indisunique AS unique,
            array_agg(a.attname::text ORDER BY k.ordinality) AS columns
       FROM pg_index i
       JOIN pg_class t ON t.oid = i.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = 'public'
       CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ordinality)
       JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
      GROUP BY i.indexrelid, t.relname, i.indisunique`,
  );
  for (const row of found.rows) indexes.set(`${row.table_name}(${row.columns.join(',')})`, row.unique);
  const references = await client.query<{ table_name: string; columns: string[]; parent: string }>(
    `SELECT c.conrelid::regclass::text AS table_name, c.confrelid::regclass::text AS parent,
            array_agg(a.attname::text ORDER BY k.ordinality) AS columns
       FROM pg_constraint c
       CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, ordinality)
       JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
      WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace
      GROUP BY c.oid, c.conrelid, c.confrelid`,
  );
  const foreignKeys = new Set(references.rows.map((r) => `${r.table_name}(${r.columns.join(',')}) -> ${r.parent}`));
  return { tables, indexes, foreignKeys };
}

const sorted = (columns: Column[]): Column[] => [...columns].sort((a, b) => a.name.localeCompare(b.name));

const withoutPostgresOnly = (catalog: Catalog): Catalog => ({
  tables: new Map([...catalog.tables].filter(([table]) => !ONLY_ON_POSTGRES.has(table))),
  indexes: new Map([...catalog.indexes].filter(([key]) => !ONLY_ON_POSTGRES.has(key.slice(0, key.indexOf('('))))),
  foreignKeys: catalog.foreignKeys,
});

describe('catalog parity: one schema on SQLite and PostgreSQL', () => {
  let dir: string;
  let database: TestDatabase;
  let sqlite: Catalog;
  let postgres: Catalog;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-catalog-'));
    const db = new Database(join(dir, 'svc.db'));
    migrate(db);
    sqlite = sqliteCatalog(db);
    db.close();
    database = await createTestDatabase('catalog');
    await migratePostgresUrl(database.url);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      postgres = withoutPostgresOnly(await postgresCatalog(client));
    } finally {
      await client.end();
    }
  });

  afterAll(async () => {
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the same tables', () => {
    expect([...postgres.tables.keys()].sort()).toEqual([...sqlite.tables.keys()].sort());
    expect(sqlite.tables.size).toBeGreaterThan(10);
  });

  it('the same columns in every table, NULL and NOT NULL alike', () => {
    for (const [table, columns] of sqlite.tables) expect({ table, columns: postgres.tables.get(table) }).toEqual({ table, columns });
  });

  it('the same indexes over the same columns in the same order, unique alike', () => {
    expect(Object.fromEntries([...postgres.indexes].sort())).toEqual(Object.fromEntries([...sqlite.indexes].sort()));
  });

  it('the same foreign keys, but for those PostgreSQL dropped from the send path', () => {
    expect([...FOREIGN_KEYS_ONLY_ON_SQLITE].filter((key) => !sqlite.foreignKeys.has(key))).toEqual([]);
    const expected = [...sqlite.foreignKeys].filter((key) => !FOREIGN_KEYS_ONLY_ON_SQLITE.has(key)).sort();
    expect([...postgres.foreignKeys].sort()).toEqual(expected);
    expect(expected.length).toBeGreaterThan(20);
  });
});
