/**
 * Look-ups by a key that is not the table's own, over tables that grow with the service, on both stores: each
 * goes through an index, or it reads the whole table at every call.
 * - The credit ledger holds a row for every message ever sent. Restoring a failed send's credits looks its debit
 *   and any earlier restore up by message, inside the completion's write transaction (on SQLite, holding the one
 *   write lock). The debit's had no index until migration 18.
 * - A user's latest account (the partner API's user list and reads, a QR link's connect) is looked up by user
 *   among the accounts of every workspace: no index until migration 19.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { openDatabase } from '../../src/store/database.js';
import { positionalValues, toPositional, type Statement } from '../../src/store/sql.js';
import type { TestDatabase } from '../support/postgres.js';
import { createMigratedTestDatabase } from '../support/store-engine.js';
import { tempDir } from '../support/run-cli.js';

/** Every statement the modules below make (module constants, made as they load), captured through `query`. */
const made = vi.hoisted((): Statement[] => []);
vi.mock('../../src/store/sql.js', async (importOriginal) =>
  (await import('../support/statement-capture.js')).capturingSql(await importOriginal(), made));

/** The look-ups, each with the index it must use: the restore's two by message, and a user's latest account. */
async function lookUps(): Promise<Array<{ statement: Statement; table: string; index: RegExp }>> {
  await import('../../src/store/workspace-store.js');
  await import('../../src/store/account-store.js');
  await import('../../src/store/partner-store.js');
  const byMessage = made.filter((s) => /FROM credit_ledger WHERE message_id = @messageId/.test(s.text.sqlite));
  expect(byMessage.map((s) => /reason = '(\w+)'/.exec(s.text.sqlite)?.[1]).sort()).toEqual(['debit', 'restore']);
  const byUser = made.filter((s) => /FROM messenger_accounts WHERE user_id = (@userId|u\.id)/.test(s.text.sqlite));
  expect(byUser.length).toBe(3); // the account store's, the partner store's user list and user read
  return [
    ...byMessage.map((statement) => ({ statement, table: 'credit_ledger', index: /credit_ledger_(message_debit|one_restore)/ })),
    ...byUser.map((statement) => ({ statement, table: 'messenger_accounts', index: /messenger_accounts_user/ })),
  ];
}

/** Some value for each `@name` of a statement. */
const someValues = (sql: string): Record<string, number> => Object.fromEntries([...sql.matchAll(/@(\w+)/g)].map((m) => [m[1]!, 4321]));

describe('look-ups by a foreign key on SQLite', () => {
  it('find the debit and the restore of a message, and a user\'s latest account, by index', async () => {
    const db = openDatabase(join(tempDir(), 'svc.db'));
    try {
      for (const { statement, table, index } of await lookUps()) {
        const sql = statement.text.sqlite;
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(someValues(sql)) as Array<{ detail: string }>).map((r) => r.detail).join('\n');
        expect(plan).toMatch(new RegExp(`SEARCH ${table} USING (COVERING )?INDEX ${index.source}`));
        expect(plan).not.toMatch(new RegExp(`SCAN ${table}\\b`));
      }
    } finally {
      db.close();
    }
  });
});

describe('look-ups by a foreign key on PostgreSQL', () => {
  let database: TestDatabase;
  let client: pg.Client;
  beforeAll(async () => {
    database = await createMigratedTestDatabase('lookup_indexes');
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    // 20,000 sends' debits and a few restores; 1,000 workspaces of 20 users, each with an account.
    await client.query(`INSERT INTO credit_ledger (workspace_id, message_id, delta, reason, created_at)
      SELECT 1, n, 1, CASE WHEN n % 100 = 0 THEN 'restore' ELSE 'debit' END, n FROM generate_series(1, 20000) AS n`);
    await client.query(`INSERT INTO workspaces (name, quota_total, quota_period_start, created_at) SELECT 'W' || n, 100, 0, 0 FROM generate_series(1, 1000) AS n`);
    await client.query(`INSERT INTO users (workspace_id, name, email, created_at) SELECT 1 + n / 20, 'U', 'u@example.com', 0 FROM generate_series(0, 19999) AS n`);
    await client.query(`INSERT INTO messenger_accounts (workspace_id, user_id, phone, full_name, email, status, created_at)
      SELECT u.workspace_id, u.id, '+1555' || u.id, 'A', 'a@example.com', 'connected', 0 FROM users u`);
    await client.query('ANALYZE credit_ledger, workspaces, users, messenger_accounts');
  });
  afterAll(async () => {
    await client?.end();
    await database?.drop();
  });

  it('find them by index among 20,000 ledger rows and 20,000 accounts, on the plan for the values and on the generic one', async () => {
    for (const { statement, index } of await lookUps()) {
      const { text, names } = toPositional(statement.text.postgres);
      const values = positionalValues(names, { ...someValues(statement.text.postgres), workspaceId: 500 }) as number[];
      // The generic plan is the one a failed send's completion runs (`WriteOptions.genericPlans`).
      await client.query(`PREPARE lookup AS ${text}`);
      try {
        for (const mode of ['force_custom_plan', 'force_generic_plan']) {
          await client.query(`SET plan_cache_mode = ${mode}`);
          const rows = (await client.query(`EXPLAIN EXECUTE lookup(${values.join(', ')})`)).rows as Array<{ 'QUERY PLAN': string }>;
          const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
          expect(plan).toMatch(new RegExp(`Index (Only )?Scan( Backward)? using ${index.source} on`));
          expect(plan).not.toMatch(/Seq Scan on (credit_ledger|messenger_accounts)/);
        }
      } finally {
        await client.query('DEALLOCATE lookup');
        await client.query('RESET plan_cache_mode');
      }
    }
  });
});
