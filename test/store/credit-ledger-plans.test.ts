/**
 * The credit ledger holds a row for every message ever sent. Restoring a failed send's credits looks its debit
 * and any earlier restore up by message, inside the completion's write transaction (on SQLite, holding the one
 * write lock): both must go through an index on either store, or every failed send reads the whole ledger.
 * The debit's had none until migration 18.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { openDatabase } from '../../src/store/database.js';
import { migratePostgres } from '../../src/store/postgres/pg-migrate.js';
import { positionalValues, toPositional, type Statement } from '../../src/store/sql.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { tempDir } from '../support/run-cli.js';

/** Every statement the modules below make (module constants, made as they load), captured through `query`. */
const made = vi.hoisted((): Statement[] => []);
vi.mock('../../src/store/sql.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/store/sql.js')>();
  return {
    ...actual,
    query: (...args: Parameters<typeof actual.query>) => {
      const statement = actual.query(...args);
      made.push(statement);
      return statement;
    },
  };
});

/** The workspace store's reads of the ledger by message: the restore's two look-ups. */
async function byMessageStatements(): Promise<Statement[]> {
  await import('../../src/store/workspace-store.js');
  const found = made.filter((s) => /FROM credit_ledger WHERE message_id = @messageId/.test(s.text.sqlite));
  expect(found.map((s) => /reason = '(\w+)'/.exec(s.text.sqlite)?.[1]).sort()).toEqual(['debit', 'restore']);
  return found;
}

describe('credit ledger look-ups by message on SQLite', () => {
  it('find the debit and the restore of a message by index', async () => {
    const db = openDatabase(join(tempDir(), 'svc.db'));
    try {
      for (const statement of await byMessageStatements()) {
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${statement.text.sqlite}`).all({ messageId: 1 }) as Array<{ detail: string }>).map((r) => r.detail);
        expect(plan).toEqual([expect.stringMatching(/^SEARCH credit_ledger USING (COVERING )?INDEX credit_ledger_(message_debit|one_restore) \(message_id=\?\)$/)]);
      }
    } finally {
      db.close();
    }
  });
});

describe('credit ledger look-ups by message on PostgreSQL', () => {
  let database: TestDatabase;
  let client: pg.Client;
  beforeAll(async () => {
    database = await createTestDatabase('ledger_plans');
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    await migratePostgres(pool);
    await pool.end();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    // 20,000 sends' debits and a few restores, with fresh statistics.
    await client.query(`INSERT INTO credit_ledger (workspace_id, message_id, delta, reason, created_at)
      SELECT 1, n, 1, CASE WHEN n % 100 = 0 THEN 'restore' ELSE 'debit' END, n FROM generate_series(1, 20000) AS n`);
    await client.query('ANALYZE credit_ledger');
  });
  afterAll(async () => {
    await client?.end();
    await database?.drop();
  });

  it('find the debit and the restore of a message by index among 20,000 rows', async () => {
    for (const statement of await byMessageStatements()) {
      const { text, names } = toPositional(statement.text.postgres);
      const rows = (await client.query(`EXPLAIN ${text}`, positionalValues(names, { messageId: 4321 }))).rows as Array<{ 'QUERY PLAN': string }>;
      const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(plan).toMatch(/Index (Only )?Scan using credit_ledger_(message_debit|one_restore) on credit_ledger/);
      expect(plan).not.toContain('Seq Scan');
    }
  });
});
