import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { migratePostgres, postgresSchemaVersion } from '../../src/store/postgres/pg-migrate.js';
import { MIGRATIONS, PG_MIGRATIONS } from '../../src/store/migrations/index.js';
import { RESYNC_TOPIC } from '../../src/store/postgres/pg-notifications.js';
import { query } from '../../src/store/sql.js';
import { isSvcError } from '../../src/wire/errors.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

let database: TestDatabase;
const opened: PgDatabase[] = [];
const open = (options: Partial<ConstructorParameters<typeof PgDatabase>[0]> = {}): PgDatabase => {
  const db = new PgDatabase({ url: database.url, poolSize: 4, ...options });
  opened.push(db);
  return db;
};

beforeAll(async () => {
  database = await createTestDatabase('pgdb');
});
afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
  await database.drop();
});

const waitUntil = async (check: () => boolean, timeoutMs = 3000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/** What `db`'s connections send and when each is answered, in order: `sent BEGIN`, `sent statement`, `answered BEGIN`... */
function wireEvents(db: PgDatabase): string[] {
  const events: string[] = [];
  db.pool.on('connect', (client) => {
    const original = client.query.bind(client) as (config: unknown) => Promise<unknown>;
    (client as unknown as { query: (config: unknown) => Promise<unknown> }).query = (config) => {
      const label = typeof config === 'string' ? config.split(' ')[0]! : 'statement';
      events.push(`sent ${label}`);
      return original(config).finally(() => events.push(`answered ${label}`));
    };
  });
  return events;
}

describe('PostgreSQL store', () => {
  it('migrate: replicas starting together apply every version exactly once, the same versions as SQLite', async () => {
    const pools = [open(), open(), open()];
    const results = await Promise.all(pools.map((db) => migratePostgres(db.pool)));
    const applied = results.flatMap((result) => result.applied).sort((a, b) => a - b);
    expect(applied).toEqual(PG_MIGRATIONS.map((m) => m.version));
    expect(results.every((result) => result.version === PG_MIGRATIONS.at(-1)?.version)).toBe(true);
    expect(await postgresSchemaVersion(pools[0]!.pool)).toBe(PG_MIGRATIONS.at(-1)?.version);
    expect(PG_MIGRATIONS.map((m) => [m.version, m.name])).toEqual(MIGRATIONS.map((m) => [m.version, m.name]));
  });

  it('statements: named parameters, BIGINT read back as numbers, rows changed', async () => {
    const db = open();
    const insert = query<{ id: number }>(
      `INSERT INTO workspaces (name, quota_total, quota_period_start, created_at) VALUES (@name, @quota, @now, @now) RETURNING id`,
    );
    const byId = query<{ id: number; name: string; quota_total: number; created_at: number }>('SELECT * FROM workspaces WHERE id = @id');
    const now = Date.now();
    const row = await db.sql.get(insert, { name: 'Acme', quota: 5_000_000_000, now });
    const read = await db.sql.get(byId, { id: row!.id });
    expect(read).toMatchObject({ id: row!.id, name: 'Acme', quota_total: 5_000_000_000, created_at: now });
    expect(typeof read!.id).toBe('number');
    const rename = query("UPDATE workspaces SET name = @name WHERE name = 'Acme'");
    expect(await db.sql.run(rename, { name: 'Acme 2' })).toBe(1);
    await expect(db.sql.get(byId, {})).rejects.toThrow(/missing named parameter "id"/);
  });

  it('write: an error rolls everything back; a serialization conflict runs the transaction again', async () => {
    const db = open();
    const count = query<{ n: number }>("SELECT COUNT(*) AS n FROM settings WHERE key LIKE 'tx-%'");
    const put = query("INSERT INTO settings (key, value) VALUES (@key, 'v')");
    await expect(
      db.write(async (tx) => {
        await tx.run(put, { key: 'tx-1' });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect((await db.sql.get(count))?.n).toBe(0);

    let runs = 0;
    await db.write(async (tx) => {
      runs += 1;
      if (runs === 1) throw Object.assign(new Error('could not serialize access'), { code: '40001' });
      await tx.run(put, { key: 'tx-2' });
    });
    expect(runs).toBe(2);
    expect((await db.sql.get(count))?.n).toBe(1);
  });

  it('write: BEGIN goes out with the first statement, not a round trip before it; a failing first statement still rolls back', async () => {
    const db = open({ poolSize: 1 });
    const events = wireEvents(db);
    const put = query("INSERT INTO settings (key, value) VALUES (@key, 'v')");
    await db.write((tx) => tx.run(put, { key: 'pipelined-1' }));
    expect(events.slice(0, 3)).toEqual(['sent BEGIN', 'sent statement', 'answered BEGIN']);

    // The key exists: the first statement fails inside the transaction, which is rolled back, and the one
    // connection of the pool serves the next transaction.
    await expect(db.write((tx) => tx.run(put, { key: 'pipelined-1' }))).rejects.toThrow();
    await db.write((tx) => tx.run(put, { key: 'pipelined-2' }));
    const keys = query<{ key: string }>("SELECT key FROM settings WHERE key LIKE 'pipelined-%' ORDER BY key");
    expect((await db.sql.all(keys)).map((row) => row.key)).toEqual(['pipelined-1', 'pipelined-2']);
  });

  it('write: a write sent unanswered has what follows it, the COMMIT too, go without waiting; its failure fails the transaction with its own error', async () => {
    const db = open({ poolSize: 1 });
    const events = wireEvents(db);
    const put = query("INSERT INTO settings (key, value) VALUES (@key, 'v')");
    const keys = query<{ key: string }>("SELECT key FROM settings WHERE key LIKE 'last-%' ORDER BY key");
    await db.write(async (tx) => {
      await tx.run(put, { key: 'last-1' });
      tx.sendBeforeCommit!(put, { key: 'last-2' });
    });
    expect(events.slice(-4)).toEqual(['sent statement', 'sent COMMIT', 'answered statement', 'answered COMMIT']);
    expect((await db.sql.all(keys)).map((row) => row.key)).toEqual(['last-1', 'last-2']);

    // The key exists: the write sent last fails, so does the transaction (its first write undone with it), with
    // the write's own error (a unique violation); the pool's one connection serves the next transaction.
    const failed = await db.write(async (tx) => {
      await tx.run(put, { key: 'last-3' });
      tx.sendBeforeCommit!(put, { key: 'last-2' });
    }).catch((error: unknown) => error);
    expect((failed as { code?: string }).code).toBe('23505');
    await db.write(async (tx) => tx.sendBeforeCommit!(put, { key: 'last-4' }));
    expect((await db.sql.all(keys)).map((row) => row.key)).toEqual(['last-1', 'last-2', 'last-4']);

    // A statement sent after it runs after it (it sees its row); if it failed, its error is the one thrown, not
    // the "transaction is aborted" of the statement after it.
    const seen = await db.write(async (tx) => {
      tx.sendBeforeCommit!(put, { key: 'last-5' });
      return (await tx.all(keys)).map((row) => row.key);
    });
    expect(seen).toEqual(['last-1', 'last-2', 'last-4', 'last-5']);
    const failedBefore = await db.write(async (tx) => {
      tx.sendBeforeCommit!(put, { key: 'last-5' });
      await tx.all(keys);
    }).catch((error: unknown) => error);
    expect((failedBefore as { code?: string }).code).toBe('23505');
  });

  it('write: genericPlans plans every statement of the transaction generically, and only that transaction; it carries its other settings too', async () => {
    const db = open({ poolSize: 1 });
    const settings = query<{ plan: string; bitmap: string }>("SELECT current_setting('plan_cache_mode') AS plan, current_setting('enable_bitmapscan') AS bitmap");
    const inside = await db.write(async (tx) => {
      expect(tx.genericPlans).toBe(true);
      return tx.get(settings);
    }, { isolation: 'read committed', genericPlans: true, indexScans: true });
    expect(inside).toEqual({ plan: 'force_generic_plan', bitmap: 'off' });
    // The same (only) connection afterwards: the settings ended with the transaction.
    expect(await db.write(async (tx) => tx.get(settings))).toEqual({ plan: 'auto', bitmap: 'on' });
    expect(await db.sql.get(settings)).toEqual({ plan: 'auto', bitmap: 'on' });
  });

  it('notify: the topics of a wake-up sent in a transaction reach every replica after the commit, not before', async () => {
    const [a, b] = [open(), open()];
    const seen: string[] = [];
    b.notifications.subscribe((topic) => seen.push(topic));
    await b.listening();
    let committed = false;
    await a.write(async (tx) => {
      await a.notifications.notify(tx, ['send', 'webhooks']);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(seen).toEqual([]);
      committed = true;
    });
    await waitUntil(() => seen.includes('send') && seen.includes('webhooks'));
    expect(committed).toBe(true);
  });

  it('notify: a listener whose connection is cut reconnects by itself and wakes every subscriber to look again', async () => {
    const db = open();
    const seen: string[] = [];
    db.notifications.subscribe((topic) => seen.push(topic));
    await db.listening();
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'svc-listen' AND datname = current_database()");
    await waitUntil(() => seen.includes(RESYNC_TOPIC), 5000);
    await admin.query("SELECT pg_notify('svc_wake', 'after-reconnect')");
    await admin.end();
    await waitUntil(() => seen.includes('after-reconnect'));
  });

  it('unavailable: a server that cannot be reached is a 503 "unavailable", not an internal error', async () => {
    const db = new PgDatabase({ url: 'postgres://postgres@127.0.0.1:1/none', poolSize: 1, connectTimeoutMs: 500 });
    opened.push(db);
    const error = await db.sql.get(query('SELECT 1')).catch((caught: unknown) => caught);
    expect(isSvcError(error) && error.code).toBe('unavailable');
    const inTransaction = await db.write(async () => 1).catch((caught: unknown) => caught);
    expect(isSvcError(inTransaction) && inTransaction.status).toBe(503);
  });
});
