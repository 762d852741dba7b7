/**
 * The delivery worker's group commit, on both stores: results are recorded many to a statement, claims and
 * records run one transaction at a time per process (on PostgreSQL two of one process's claims would skip each
 * other's locked rows and claim nothing), and the fair caps hold with every subscription's due rows read in one
 * statement on PostgreSQL.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { openDatabase } from '../../src/store/database.js';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { migratePostgres } from '../../src/store/postgres/pg-migrate.js';
import { query, type SqlExecutor } from '../../src/store/sql.js';
import type { SqlDatabase } from '../../src/store/sql-database.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';
import { createDeliveryOutbox, openDeliveryOutbox } from '../../src/store/webhooks/delivery-outbox.js';
import { createDeliveryStore, type ClaimOptions } from '../../src/store/webhooks/delivery-store.js';
import { DeliveryWorker } from '../../src/webhooks/delivery-worker.js';
import { generateMessageId } from '../../src/webhooks/signature.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { DEFAULT_ATTEMPT_RULES } from '../support/webhook-helpers.js';

const OK = { ok: true, statusCode: 200, durationMs: 2, error: null } as const;
const FAIL = { ok: false, statusCode: 500, durationMs: 3, error: 'receiver answered 500' } as const;

const INSERT_WORKSPACE = query<{ id: number }>(
  `INSERT INTO workspaces (name, quota_total, quota_period_start, created_at) VALUES ('W', 100, 0, 0) RETURNING id`,
);
const INSERT_SUBSCRIPTION = query<{ id: number }>(`INSERT INTO webhook_subscriptions
  (workspace_id, event_type, url, enabled, secret, listen_session_id, created_at, updated_at)
  VALUES (@workspaceId, @eventType, @url, 1, @secret, NULL, 0, 0) RETURNING id`);
const SECRET = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
const DELIVERY = query<{ status: string; attempts: number; next_attempt_at: number | null }>(
  'SELECT status, attempts, next_attempt_at FROM webhook_deliveries WHERE id = @id',
);
const ATTEMPTS = query<{ n: number }>('SELECT COUNT(*) AS n FROM webhook_attempts WHERE ok = 1');

/** An executor that counts the statements run through it. */
function counting(sql: SqlExecutor, count: { statements: number }): SqlExecutor {
  return {
    dialect: sql.dialect,
    all: (statement, params) => ((count.statements += 1), sql.all(statement, params)),
    get: (statement, params) => ((count.statements += 1), sql.get(statement, params)),
    run: (statement, params) => ((count.statements += 1), sql.run(statement, params)),
  };
}

/** An outbox whose transactions are counted: how many, how many at once at most, and their statements. */
function countedOutbox(database: SqlDatabase) {
  const count = { transactions: 0, open: 0, mostOpen: 0, statements: 0 };
  const outbox = createDeliveryOutbox(createDeliveryStore(database.sql, generateMessageId), async (fn) => {
    count.transactions += 1;
    count.open += 1;
    count.mostOpen = Math.max(count.mostOpen, count.open);
    try {
      return await database.write((tx) => fn(createDeliveryStore(counting(tx, count), generateMessageId)), { isolation: 'read committed' });
    } finally {
      count.open -= 1;
    }
  });
  return { outbox, count };
}

let pg: TestDatabase | undefined;
const opened: SqlDatabase[] = [];
afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
  await pg?.drop();
});

const stores: Record<string, () => Promise<SqlDatabase>> = {
  sqlite: async () => new SqliteDatabase(openDatabase(':memory:')),
  postgres: async () => {
    pg ??= await createTestDatabase('groupcommit');
    const db = new PgDatabase({ url: pg.url, poolSize: 4 });
    opened.push(db);
    await migratePostgres(db.pool);
    // One database for the file: each test starts from an empty outbox.
    await db.sql.run(query('TRUNCATE webhook_attempts, webhook_deliveries, webhook_subscriptions, owner_notifications, workspaces CASCADE'));
    return db;
  },
};

describe.each(Object.keys(stores))('delivery group commit on %s', (store) => {
  const open = stores[store] as () => Promise<SqlDatabase>;
  const workspace = async (db: SqlDatabase) => (await db.sql.get(INSERT_WORKSPACE))!.id;
  const subscription = async (db: SqlDatabase, workspaceId: number, url = 'https://a.example.com/h', eventType = 'message:new') =>
    (await db.sql.get(INSERT_SUBSCRIPTION, { workspaceId, eventType, url, secret: SECRET }))!.id;
  const options = (owner: string, now: number, extra: Partial<ClaimOptions> = {}): ClaimOptions => ({
    now, limit: 64, owner, leaseMs: 60_000, perSubscriptionCap: 64, ...extra,
  });

  it('recordAndClaim: 20 successes take 3 statements (1 on PostgreSQL); a lease taken over is reported lost and left alone; a failure is scheduled for retry', async () => {
    const db = await open();
    const clock = new FakeClock();
    const { outbox, count } = countedOutbox(db);
    const sub = await subscription(db, await workspace(db));
    for (let i = 0; i < 22; i += 1) await outbox.deliveries.enqueue({ subscriptionId: sub, eventType: 'message:new', payload: { i }, now: clock.now() });
    const claimed = await outbox.claimDue(options('w1', clock.now()));
    expect(claimed).toHaveLength(22);
    // One lease runs out and another worker takes it over before w1 records.
    const [stolen, failed, ...rest] = claimed;
    await db.sql.run(query('UPDATE webhook_deliveries SET lease_owner = @owner WHERE id = @id'), { owner: 'w2', id: stolen!.id });

    count.statements = 0;
    const now = clock.now() + 10;
    const input = (deliveryId: number, outcome: typeof OK | typeof FAIL) => ({ ...DEFAULT_ATTEMPT_RULES, deliveryId, owner: 'w1', outcome, now });
    const done = await outbox.recordAndClaim([input(stolen!.id, OK), input(failed!.id, FAIL), ...rest.map((d) => input(d.id, OK))], null);
    expect(done.results[0]).toEqual({ status: 'lease_lost' });
    expect(done.results[1]).toMatchObject({ status: 'retry_scheduled', attemptNumber: 1 });
    expect(done.results.slice(2).every((r) => r.status === 'succeeded')).toBe(true);
    // 3 for the 20 successes (one writing statement on PostgreSQL), the rest is the failure's own.
    const failureStatements = 3; // LEASED, ATTEMPT, FINISH
    expect(count.statements).toBe((store === 'postgres' ? 1 : 3) + failureStatements);
    expect((await db.sql.get(DELIVERY, { id: stolen!.id }))!.status).toBe('delivering');
    expect(await db.sql.get(DELIVERY, { id: failed!.id })).toMatchObject({ status: 'pending', attempts: 1 });
    expect(await db.sql.get(DELIVERY, { id: rest[0]!.id })).toMatchObject({ status: 'succeeded', attempts: 1, next_attempt_at: null });
    expect((await db.sql.get(ATTEMPTS))!.n).toBe(20);
  });

  it('DeliveryWorker: one transaction at a time; 80 deliveries through 16 slots take a transaction and a few statements per batch, not per delivery', async () => {
    const db = await open();
    const clock = new FakeClock();
    const { outbox, count } = countedOutbox(db);
    const ws = await workspace(db);
    const subs = [await subscription(db, ws, 'https://a.example.com/h'), await subscription(db, ws, 'https://b.example.com/h')];
    for (let i = 0; i < 80; i += 1) {
      await outbox.deliveries.enqueue({ subscriptionId: subs[i % 2]!, eventType: 'message:new', payload: { i }, now: clock.now() });
    }
    const sent: number[] = [];
    const worker = new DeliveryWorker({
      outbox, clock, owner: 'w1', concurrency: 16, perSubscriptionCap: 16, onError: (error) => {
        throw error;
      },
      // A receiver that answers after a millisecond or two, as one on the same host does.
      send: async (request) => {
        await new Promise((r) => setTimeout(r, 1 + (request.deliveryId % 2)));
        sent.push(request.deliveryId);
        return OK;
      },
    });
    expect(await worker.runDue()).toBe(80);
    expect(new Set(sent).size).toBe(80);
    expect((await db.sql.get(ATTEMPTS))!.n).toBe(80);
    expect(count.mostOpen).toBe(1);
    // Measured: 13-14 transactions and 60-90 statements; one transaction and 3 statements per delivery were 300+.
    expect(count.transactions).toBeLessThanOrEqual(24);
    expect(count.statements).toBeLessThanOrEqual(150);
  });

  it('caps: tenants sharing a receiver host each have their own cap there, and subscriptions get equal turns', async () => {
    const db = await open();
    const clock = new FakeClock();
    const outbox = openDeliveryOutbox(db, generateMessageId);
    const [a, b] = [await workspace(db), await workspace(db)];
    const slowPath = await subscription(db, a, 'https://shared.example.com/slow');
    const otherTenant = await subscription(db, b, 'https://shared.example.com/fine');
    for (let i = 0; i < 50; i += 1) await outbox.deliveries.enqueue({ subscriptionId: slowPath, eventType: 'message:new', payload: { i }, now: clock.now() });
    const capped = { limit: 32, perSubscriptionCap: 8, perEndpointCap: 8, perTenantCap: 16 };
    expect(await outbox.claimDue(options('w1', clock.now(), capped))).toHaveLength(8);
    await outbox.deliveries.enqueue({ subscriptionId: otherTenant, eventType: 'message:new', payload: {}, now: clock.now() });
    expect((await outbox.claimDue(options('w2', clock.now(), capped))).map((d) => d.subscriptionId)).toEqual([otherTenant]);

    const ws = await workspace(db);
    const subs: number[] = [];
    for (let n = 1; n <= 4; n += 1) subs.push(await subscription(db, ws, 'https://one.example.com/h', `e${n}`));
    for (const sub of subs) for (let i = 0; i < 40; i += 1) await outbox.deliveries.enqueue({ subscriptionId: sub, eventType: 'x', payload: {}, now: clock.now() });
    const served = new Map<number, number>();
    for (let round = 0; round < 20; round += 1) {
      const claimed = await outbox.claimDue(options('w3', clock.now(), { limit: 8, perSubscriptionCap: 8, perEndpointCap: 8, perTenantCap: 16 }));
      for (const d of claimed) served.set(d.subscriptionId, (served.get(d.subscriptionId) ?? 0) + 1);
      await outbox.recordAndClaim(claimed.map((d) => ({ ...DEFAULT_ATTEMPT_RULES, deliveryId: d.id, owner: 'w3', outcome: OK, now: clock.now() })), null);
    }
    const counts = subs.map((sub) => served.get(sub) ?? 0);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(2);
    expect(counts.reduce((x, y) => x + y)).toBe(160);
  });
  it('a pick says whether it left due work behind: a subscription at its cap, or given all its room; not when it took everything', async () => {
    const db = await open();
    const clock = new FakeClock();
    const outbox = openDeliveryOutbox(db, generateMessageId);
    const sub = await subscription(db, await workspace(db));
    const told: boolean[] = [];
    const onPicked = (leftBehind: boolean) => void told.push(leftBehind);
    const caps = { perEndpointCap: 64, perTenantCap: 64, onPicked };
    expect(await outbox.claimDue(options('w1', clock.now(), caps))).toHaveLength(0);
    for (let i = 0; i < 3; i += 1) await outbox.deliveries.enqueue({ subscriptionId: sub, eventType: 'message:new', payload: { i }, now: clock.now() });
    expect(await outbox.claimQueued(options('w1', clock.now(), caps))).toHaveLength(3);
    for (let i = 0; i < 10; i += 1) await outbox.deliveries.enqueue({ subscriptionId: sub, eventType: 'message:new', payload: { i }, now: clock.now() });
    // Its cap of 8 leaves 5 behind (3 still in flight); then at its cap, it takes none.
    expect(await outbox.claimQueued(options('w1', clock.now(), { ...caps, perSubscriptionCap: 8 }))).toHaveLength(5);
    expect(await outbox.claimQueued(options('w1', clock.now(), { ...caps, perSubscriptionCap: 8 }))).toHaveLength(0);
    expect(told.at(0)).toBe(false);
    expect(told.at(-3)).toBe(false);
    expect(told.slice(-2)).toEqual([true, true]);
  });

  /** A started worker fed one delivery at a time, `gapMs` apart, each woken for; its transactions counted. */
  async function trickle(db: SqlDatabase, recordLingerMs: number, gapMs: number, deliveries: number) {
    const clock = new FakeClock();
    const { outbox, count } = countedOutbox(db);
    const sub = await subscription(db, await workspace(db));
    const worker = new DeliveryWorker({
      outbox, clock, owner: `w-${recordLingerMs}`, concurrency: 16, perSubscriptionCap: 16, perEndpointCap: 16, perTenantCap: 16, recordLingerMs,
      onError: (error) => {
        throw error;
      },
      send: async () => OK,
    });
    worker.start(60_000);
    await new Promise((r) => setTimeout(r, 20));
    count.transactions = 0;
    for (let i = 0; i < deliveries; i += 1) {
      await outbox.deliveries.enqueue({ subscriptionId: sub, eventType: 'message:new', payload: { i }, now: clock.now() });
      worker.wake();
      await new Promise((r) => setTimeout(r, gapMs));
    }
    await worker.stop();
    return { transactions: count.transactions, succeeded: (await db.sql.get(ATTEMPTS))!.n };
  }

  it('a started worker records a finished attempt with the next claim under a trickle, not in a transaction of its own', async () => {
    const db = await open();
    const atOnce = await trickle(db, 0, 15, 10);
    const lingering = await trickle(db, 500, 15, 10);
    expect(atOnce.succeeded).toBe(10);
    expect(lingering.succeeded).toBe(20);
    // At once: a claim and a record for each delivery. Lingering: one claim each, the record riding in the next
    // (and the last recorded when the worker stops).
    expect(atOnce.transactions).toBeGreaterThanOrEqual(18);
    expect(lingering.transactions).toBeLessThanOrEqual(13);
  });

  it('a started worker does not hold results back while its claims leave work behind: a capped backlog drains at once', async () => {
    const db = await open();
    const clock = new FakeClock();
    const outbox = openDeliveryOutbox(db, generateMessageId);
    const sub = await subscription(db, await workspace(db));
    for (let i = 0; i < 40; i += 1) await outbox.deliveries.enqueue({ subscriptionId: sub, eventType: 'message:new', payload: { i }, now: clock.now() });
    let sent = 0;
    const worker = new DeliveryWorker({
      outbox, clock, owner: 'w1', concurrency: 16, perSubscriptionCap: 4, perEndpointCap: 16, perTenantCap: 16, recordLingerMs: 5_000,
      onError: (error) => {
        throw error;
      },
      send: async () => ((sent += 1), OK),
    });
    const started = performance.now();
    worker.start(60_000);
    // Ten claims of 4, each freed by the records before it: with the records held back 5 s each, this took 45 s.
    while (sent < 40 && performance.now() - started < 4_000) await new Promise((r) => setTimeout(r, 10));
    await worker.stop();
    expect(sent).toBe(40);
    expect((await db.sql.get(ATTEMPTS))!.n).toBe(40);
  });
});
