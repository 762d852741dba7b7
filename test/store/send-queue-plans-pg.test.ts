/**
 * The send queue's "when is the next send due" on PostgreSQL looks up each account's head by index: its cost
 * grows with the accounts, not with the queued messages. Joined on `j.id = (SELECT MIN(h.id) ...)`, PostgreSQL
 * hashed every queued job instead (a sequential scan of the table at every poll of the dispatcher).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { migratePostgres } from '../../src/store/postgres/pg-migrate.js';
import { toPositional, type Statement } from '../../src/store/sql.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

/** Every statement the modules below make (module constants, made as they load), captured through `query`. */
const made = vi.hoisted((): Statement[] => []);
vi.mock('../../src/store/sql.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/store/sql.js')>();
  return {
    ...actual,
    query: ((...args: Parameters<typeof actual.query>) => {
      const statement = actual.query(...args);
      made.push(statement);
      return statement;
    }) as typeof actual.query,
  };
});

let database: TestDatabase;
let client: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase('send_queue_plans');
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  await migratePostgres(pool);
  await pool.end();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  // One account with 15,000 queued sends among the queues of 50 accounts, with fresh statistics.
  await client.query(`INSERT INTO workspaces (name, quota_total, quota_period_start, created_at) VALUES ('W', 100, 0, 0)`);
  await client.query(`INSERT INTO messenger_accounts (workspace_id, phone, full_name, email, status, created_at) VALUES (1, '+15550001111', 'A', 'a@example.com', 'connected', 0)`);
  await client.query(`INSERT INTO jobs (kind, ref_id, queue_key, run_at, created_at) SELECT 'send', n, 1 + n % 50, 0, 0 FROM generate_series(1, 15000) AS n`);
  await client.query('ANALYZE jobs');
});
afterAll(async () => {
  await client?.end();
  await database.drop();
});

describe('send queue query plans on PostgreSQL', () => {
  it('the next send time reads each account\'s head by index, never the whole queue', async () => {
    await import('../../src/store/job-store.js');
    const next = made.find((s) => s.text.postgres.startsWith('SELECT MIN(GREATEST('));
    expect(next).toBeDefined();
    const plan = ((await client.query(`EXPLAIN ${toPositional(next!.text.postgres).text}`)).rows as Array<{ 'QUERY PLAN': string }>)
      .map((row) => row['QUERY PLAN'])
      .join('\n');
    expect(plan).toMatch(/Index (Only )?Scan using jobs_queue_head on jobs/);
    expect(plan).not.toContain('Seq Scan on jobs');
    // And it answers: the account's head is due at 0, its next slot at whatever the account says.
    const { rows } = await client.query<{ t: string }>(toPositional(next!.text.postgres).text);
    expect(rows[0]!.t).not.toBeNull();
  });
});
