/**
 * The line for a pooled PostgreSQL connection: a statement that finds every connection in use waits for one
 * (it is not an outage, whatever the connect timeout), is refused as busy (429 with Retry-After) only after
 * the pool wait, and only a database that does not answer a connection is `unavailable` (503).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/wire/errors.js';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { query } from '../../src/store/sql.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

const ONE = query<{ one: number }>('SELECT 1 AS one');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let database: TestDatabase;
const opened: PgDatabase[] = [];
const open = (options: Partial<ConstructorParameters<typeof PgDatabase>[0]>): PgDatabase => {
  const db = new PgDatabase({ url: database.url, poolSize: 1, ...options });
  opened.push(db);
  return db;
};

beforeAll(async () => {
  database = await createTestDatabase('poolline');
});
afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
  await database.drop();
});

/** Holds the pool's only connection in a transaction for `ms`. */
const holdConnection = (db: PgDatabase, ms: number) =>
  db.write(async (tx) => {
    await tx.get(ONE);
    await sleep(ms);
  });

describe('PostgreSQL pool line', () => {
  it('a statement waits for a busy connection longer than the connect timeout, and succeeds', async () => {
    const db = open({ connectTimeoutMs: 200, poolWaitMs: 5000 });
    const held = holdConnection(db, 700);
    await sleep(50);
    const started = Date.now();
    expect(await db.sql.get(ONE)).toEqual({ one: 1 });
    expect(Date.now() - started).toBeGreaterThan(400);
    await held;
  });

  it('past the pool wait: 429 rate_limit_exceeded with a retry time, not unavailable', async () => {
    const db = open({ poolWaitMs: 200 });
    const held = holdConnection(db, 700);
    await sleep(50);
    const error = await db.sql.get(ONE).then(() => undefined, (e: unknown) => e);
    expect(isSvcError(error) && error.code).toBe('rate_limit_exceeded');
    expect(isSvcError(error) && error.details).toEqual({ retryAfterSec: 1 });
    await held;
    expect(await db.sql.get(ONE)).toEqual({ one: 1 });
  });

  it('a database that does not answer is unavailable, for statements and for the readiness ping', async () => {
    const url = new URL(database.url);
    url.port = '1'; // nothing listens there
    const db = new PgDatabase({ url: url.toString(), poolSize: 1 });
    opened.push(db);
    const error = await db.sql.get(ONE).then(() => undefined, (e: unknown) => e);
    expect(isSvcError(error) && error.code).toBe('unavailable');
    const ping = await db.ping().then(() => undefined, (e: unknown) => e);
    expect(isSvcError(ping) && ping.code).toBe('unavailable');
    await expect(open({}).ping()).resolves.toBeUndefined();
  });
});
