/**
 * The webhook outbox on PostgreSQL: the same claims, records and reads as on SQLite, and replicas (separate
 * pools) claiming one queue at once: FOR UPDATE SKIP LOCKED in READ COMMITTED transactions never leases a
 * row twice, and a killed replica's leases (columns) run out and are taken over. With every cap counted, a claim
 * reads and leases its due rows in one statement when they fit every cap together (`PickOptions.lease`), and reads,
 * deals and then leases them when they might not: either way every subscription, receiver and tenant stays under
 * its cap, and each subscription's rows come oldest due first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { migratePostgres } from '../../src/store/postgres/pg-migrate.js';
import { query } from '../../src/store/sql.js';
import { createStatsStore } from '../../src/store/stats-store.js';
import { createDeliveryLogStore } from '../../src/store/webhooks/delivery-log-store.js';
import { createDeliveryStore, type ClaimedDelivery, type ClaimOptions } from '../../src/store/webhooks/delivery-store.js';
import { OUTBOX_TRANSACTION, openDeliveryOutbox } from '../../src/store/webhooks/delivery-outbox.js';
import { generateMessageId } from '../../src/webhooks/signature.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { DEFAULT_ATTEMPT_RULES } from '../support/webhook-helpers.js';
import { recordTransactions } from '../support/wire-recorder.js';

const OK = { ok: true, statusCode: 200, durationMs: 3, error: null } as const;
const FAIL = { ok: false, statusCode: 500, durationMs: 4, error: 'receiver answered 500' } as const;

const INSERT_WORKSPACE = query<{ id: number }>(
  `INSERT INTO workspaces (name, quota_total, quota_period_start, created_at) VALUES ('W', 100, 0, 0) RETURNING id`,
);
const INSERT_SUBSCRIPTION = query<{ id: number }>(`INSERT INTO webhook_subscriptions
  (workspace_id, event_type, url, enabled, secret, listen_session_id, created_at, updated_at)
  VALUES (@workspaceId, @eventType, @url, 1, 'whsec_x', NULL, 0, 0) RETURNING id`);
const DELIVERY = query<{ status: string; attempts: number; lease_owner: string | null }>(
  'SELECT status, attempts, lease_owner FROM webhook_deliveries WHERE id = @id',
);
const COUNTERS = query<{ errors_counter: number; consecutive_failures: number }>(
  'SELECT errors_counter, consecutive_failures FROM webhook_subscriptions WHERE id = @id',
);
const BITMAP_SCANS = query<{ enable_bitmapscan: string }>('SHOW enable_bitmapscan');
const NOTICES = query<{ n: number }>(`SELECT COUNT(*) AS n FROM owner_notifications WHERE kind = 'webhook_failing'`);

let database: TestDatabase;
const opened: PgDatabase[] = [];
const open = (): PgDatabase => {
  const db = new PgDatabase({ url: database.url, poolSize: 4 });
  opened.push(db);
  return db;
};

beforeAll(async () => {
  database = await createTestDatabase('outbox');
  await migratePostgres(open().pool);
});
afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
  await database.drop();
});

const workspace = async (db: PgDatabase) => (await db.sql.get(INSERT_WORKSPACE))!.id;
const subscription = async (db: PgDatabase, workspaceId: number, eventType = 'message:new', url = 'https://a.example.com/h') =>
  (await db.sql.get(INSERT_SUBSCRIPTION, { workspaceId, eventType, url }))!.id;

describe('webhook outbox on PostgreSQL', () => {
  it("plans its transactions without bitmap scans (they revisit every stale index entry), and the setting ends with each", async () => {
    const db = open();
    expect(await db.write((tx) => tx.get(BITMAP_SCANS), OUTBOX_TRANSACTION)).toEqual({ enable_bitmapscan: 'off' });
    // SET LOCAL: neither the pooled connection's next statement nor another transaction keeps it.
    expect(await db.sql.get(BITMAP_SCANS)).toEqual({ enable_bitmapscan: 'on' });
    expect(await db.write((tx) => tx.get(BITMAP_SCANS), { isolation: 'read committed' })).toEqual({ enable_bitmapscan: 'on' });
    // A transaction that fails rolls back the setting with it.
    await expect(db.write(async (tx) => {
      await tx.get(BITMAP_SCANS);
      throw new Error('the claim failed');
    }, OUTBOX_TRANSACTION)).rejects.toThrow('the claim failed');
    expect(await db.sql.get(BITMAP_SCANS)).toEqual({ enable_bitmapscan: 'on' });
  });

  it('enqueue, claim, retry, fail, notify, redeliver and the log: as on SQLite', async () => {
    const db = open();
    const outbox = openDeliveryOutbox(db, generateMessageId);
    const ws = await workspace(db);
    const sub = await subscription(db, ws);
    const claim = (now: number) => outbox.claimDue({ now, limit: 10, owner: 'w1', leaseMs: 60_000, perSubscriptionCap: 5 });
    const [id] = await outbox.deliveries.enqueueEvent({ workspaceId: ws, eventType: 'message:new', payload: { a: 1 }, now: 1000 });
    expect(await outbox.nextDueAt()).toBe(1000);
    expect(await claim(999)).toEqual([]);
    for (const [at, expected] of [[1000, 'retry_scheduled'], [6000, 'retry_scheduled'], [36_000, 'failed']] as const) {
      const claimed = await claim(at);
      expect(claimed).toMatchObject([{ id, subscriptionId: sub, payload: '{"a":1}', url: 'https://a.example.com/h', listenSessionId: null, partnerId: null }]);
      expect(await claim(at)).toEqual([]);
      expect(await outbox.recordAttempt({ ...DEFAULT_ATTEMPT_RULES, deliveryId: id!, owner: 'w1', outcome: FAIL, now: at, failureNotifyThreshold: 1 })).toMatchObject({ status: expected });
    }
    expect(await db.sql.get(DELIVERY, { id })).toEqual({ status: 'failed', attempts: 3, lease_owner: null });
    expect(await db.sql.get(COUNTERS, { id: sub })).toEqual({ errors_counter: 1, consecutive_failures: 1 });
    expect((await db.sql.get(NOTICES))!.n).toBe(1);
    expect(await outbox.nextDueAt()).toBeNull();

    const again = await outbox.deliveries.redeliver(id!, 40_000);
    expect(again).toBeGreaterThan(id!);
    expect(await outbox.deliveries.redeliver(999_999, 40_000)).toBeNull();
    const [redelivered] = await claim(40_000);
    expect(await outbox.recordAttempt({ ...DEFAULT_ATTEMPT_RULES, deliveryId: redelivered!.id, owner: 'w1', outcome: OK, now: 40_000 })).toMatchObject({ status: 'succeeded', attemptNumber: 1 });
    expect(await db.sql.get(COUNTERS, { id: sub })).toEqual({ errors_counter: 1, consecutive_failures: 0 });

    const log = createDeliveryLogStore(db.sql);
    const page = await log.list(sub, 1);
    expect(page.items.map((d) => [d.id, d.status, d.attempts.length])).toEqual([[again, 'succeeded', 1], [id, 'failed', 3]]);
    expect((await log.get(sub, id!))?.attempts.map((a) => a.response_code)).toEqual([500, 500, 500]);

    const stats = createStatsStore(db.sql);
    expect(await stats.webhooks()).toEqual([]);
    expect(await stats.pendingBySubscription()).toEqual([]);
    await outbox.deliveries.enqueueEvent({ workspaceId: ws, eventType: 'message:new', payload: {}, now: 50_000 });
    expect(await stats.webhooks()).toEqual([{ kind: 'workspace', status: 'pending', count: 1, oldest: 50_000 }]);
    expect(await stats.pendingBySubscription()).toMatchObject([{ id: sub, workspace_id: ws, partner_id: null, count: 1, oldest: 50_000 }]);
  });

  it('an enqueue rolls back with the transaction that caused it', async () => {
    const db = open();
    const ws = await workspace(db);
    await subscription(db, ws, 'chat:created');
    const change = db.write(async (tx) => {
      await createDeliveryStore(tx, generateMessageId).enqueueEvent({ workspaceId: ws, eventType: 'chat:created', payload: {}, now: 0 });
      throw new Error('the change failed');
    });
    await expect(change).rejects.toThrow('the change failed');
    expect(await createDeliveryStore(db.sql, generateMessageId).enqueueEvent({ workspaceId: ws + 1, eventType: 'chat:created', payload: {}, now: 0 })).toEqual([]);
  });

  it('replicas claiming one deep queue at once never lease a row twice, and keep each subscription under its cap', async () => {
    const setup = open();
    const ws = await workspace(setup);
    const subs = [await subscription(setup, ws, 'e1'), await subscription(setup, ws, 'e2', 'https://b.example.com/h')];
    await setup.write(async (tx) => {
      const queue = createDeliveryStore(tx, generateMessageId);
      for (const sub of subs) for (let i = 0; i < 150; i += 1) await queue.enqueue({ subscriptionId: sub, eventType: 'x', payload: { i }, now: 0 });
    });
    const replicas = [open(), open(), open()].map((db) => openDeliveryOutbox(db, generateMessageId));
    const seen = new Map<number, string>();
    const cap = 4;
    let inFlight = new Map<number, number>();
    const options = (owner: string): ClaimOptions => ({ now: 1, limit: 16, owner, leaseMs: 60_000, perSubscriptionCap: cap });
    for (let round = 0; seen.size < 300 && round < 200; round += 1) {
      // Every replica claims at once; then each records what it took. The two subscriptions' caps (8 rows) are all a
      // round can lease, so whichever claim takes the lock first takes the round: the replica that starts first
      // changes from round to round, as it would between machines, so the work is shared whatever the timing.
      const claims: ClaimedDelivery[][] = new Array(replicas.length);
      await Promise.all(
        replicas.map((_, i) => {
          const r = (i + round) % replicas.length;
          return replicas[r]!.claimDue(options(`r${r}`)).then((claimed) => (claims[r] = claimed));
        }),
      );
      inFlight = new Map();
      claims.forEach((claimed, r) => {
        for (const d of claimed) {
          expect(seen.has(d.id)).toBe(false);
          seen.set(d.id, `r${r}`);
          inFlight.set(d.subscriptionId, (inFlight.get(d.subscriptionId) ?? 0) + 1);
        }
      });
      for (const n of inFlight.values()) expect(n).toBeLessThanOrEqual(cap);
      await Promise.all(
        claims.map((claimed, r) =>
          replicas[r]!.recordAndClaim(claimed.map((d) => ({ ...DEFAULT_ATTEMPT_RULES, deliveryId: d.id, owner: `r${r}`, outcome: OK, now: 1 })), null),
        ),
      );
    }
    expect(seen.size).toBe(300);
    expect(new Set(seen.values()).size).toBeGreaterThan(1); // the replicas shared the work
  });

  it("a killed replica's leases run out and another takes its deliveries over", async () => {
    const killed = open();
    const ws = await workspace(killed);
    const sub = await subscription(killed, ws, 'takeover');
    const dead = openDeliveryOutbox(killed, generateMessageId);
    const [id] = await dead.deliveries.enqueueEvent({ workspaceId: ws, eventType: 'takeover', payload: {}, now: 0 });
    expect((await dead.claimDue({ now: 0, limit: 5, owner: 'dead', leaseMs: 30_000, perSubscriptionCap: 2 })).map((d) => d.id)).toEqual([id]);
    await killed.close(); // its connections are gone; the lease stays in the row

    const other = openDeliveryOutbox(open(), generateMessageId);
    const claim = (now: number) => other.claimDue({ now, limit: 5, owner: 'other', leaseMs: 30_000, perSubscriptionCap: 2 });
    expect(await other.nextDueAt()).toBe(30_000);
    expect(await claim(29_999)).toEqual([]);
    expect((await claim(30_000)).map((d) => [d.id, d.subscriptionId])).toEqual([[id, sub]]);
    expect(await other.recordAttempt({ ...DEFAULT_ATTEMPT_RULES, deliveryId: id!, owner: 'dead', outcome: OK, now: 30_001 })).toEqual({ status: 'lease_lost' });
    expect(await other.recordAttempt({ ...DEFAULT_ATTEMPT_RULES, deliveryId: id!, owner: 'other', outcome: OK, now: 30_001 })).toMatchObject({ status: 'succeeded' });
    expect(await other.liveOwners(30_001)).toEqual([]);
  });
});

describe('webhook claims on PostgreSQL, caps counted', () => {
  // Workspace A: two subscriptions on two receivers; workspace B: one, on A's first receiver's host. Caps of 4 a
  // subscription and a receiver: A's two subscriptions ask 8 together, which fits a tenant cap of 8, not one of 6.
  it.each([
    { tenantCap: 8, oneStatement: true },
    { tenantCap: 6, oneStatement: false },
  ])('tenant cap $tenantCap: replicas lease each row once, every cap holds (always read and leased in one statement: $oneStatement)', async ({ tenantCap, oneStatement }) => {
    const setup = open();
    const [a, b] = [await workspace(setup), await workspace(setup)];
    const subs = [
      { id: await subscription(setup, a, `a1-${tenantCap}`, 'https://one.example.com/h'), tenant: a, endpoint: `${a} one` },
      { id: await subscription(setup, a, `a2-${tenantCap}`, 'https://two.example.com/h'), tenant: a, endpoint: `${a} two` },
      { id: await subscription(setup, b, `b1-${tenantCap}`, 'https://one.example.com/other'), tenant: b, endpoint: `${b} one` },
    ];
    await setup.write(async (tx) => {
      const queue = createDeliveryStore(tx, generateMessageId);
      for (const sub of subs) for (let i = 0; i < 40; i += 1) await queue.enqueue({ subscriptionId: sub.id, eventType: 'x', payload: { i }, now: 0 });
    });
    // Three replicas, the first words of every statement they send recorded.
    const heads: string[] = [];
    const replicas = [open(), open(), open()].map((db) => (recordTransactions(db, heads), openDeliveryOutbox(db, generateMessageId)));
    const options = (owner: string): ClaimOptions => ({
      now: 1, limit: 16, owner, leaseMs: 60_000, perSubscriptionCap: 4, perEndpointCap: 4, perTenantCap: tenantCap,
    });
    const seen = new Set<number>();
    for (let round = 0; seen.size < 120 && round < 100; round += 1) {
      const claims: ClaimedDelivery[][] = await Promise.all(replicas.map((replica, r) => replica.claimQueued(options(`r${r}`))));
      const inFlight = new Map<string, number>();
      const count = (key: string) => inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
      for (const d of claims.flat()) {
        expect(seen.has(d.id)).toBe(false);
        seen.add(d.id);
        const sub = subs.find((s) => s.id === d.subscriptionId)!;
        count(`sub ${sub.id}`);
        count(`endpoint ${sub.endpoint}`);
        count(`tenant ${sub.tenant}`);
      }
      for (const [key, n] of inFlight) expect(n).toBeLessThanOrEqual(key.startsWith('tenant') ? tenantCap : 4);
      await Promise.all(
        claims.map((claimed, r) =>
          replicas[r]!.recordAndClaim(claimed.map((d) => ({ ...DEFAULT_ATTEMPT_RULES, deliveryId: d.id, owner: `r${r}`, outcome: OK, now: 1 })), null),
        ),
      );
    }
    expect(seen.size).toBe(120);
    const leasedInOne = heads.filter((head) => head.startsWith('WITH due AS')).length;
    const dealtFirst = heads.filter((head) => head.startsWith('SELECT a.sub, due.id,')).length;
    // A tenant cap of 8 always fits A's asks: every claim leases in one statement. One of 6 does not while both of
    // A's subscriptions have rows due and no lease: those claims read and deal first.
    if (oneStatement) expect([leasedInOne > 0, dealtFirst]).toEqual([true, 0]);
    else expect(dealtFirst).toBeGreaterThan(0);
  });

  it('a claim in one statement hands over a subscription\'s rows oldest due first, an expired lease by when it ran out', async () => {
    const db = open();
    const heads: string[] = [];
    recordTransactions(db, heads);
    const sub = await subscription(db, await workspace(db), 'oldest-first');
    const outbox = openDeliveryOutbox(db, generateMessageId);
    const enqueue = (now: number) => db.write(async (tx) => (await createDeliveryStore(tx, generateMessageId).enqueue({ subscriptionId: sub, eventType: 'x', payload: { now }, now }))!);
    const options = { limit: 10, leaseMs: 15, perSubscriptionCap: 10, perEndpointCap: 10, perTenantCap: 10 };
    // The first delivery leased at 0 until 15 and never answered; two more due at 5 and 10.
    const expired = await enqueue(0);
    expect((await outbox.claimQueued({ ...options, now: 0, owner: 'dead' })).map((d) => d.id)).toEqual([expired]);
    const [at5, at10] = [await enqueue(5), await enqueue(10)];
    heads.length = 0;
    const claimed = await outbox.claimQueued({ ...options, now: 20, owner: 'next' });
    expect(heads.some((head) => head.startsWith('WITH due AS'))).toBe(true);
    // Due at 5, 10 and 15: neither the order of the ids nor its reverse.
    expect(claimed.map((d) => d.id)).toEqual([at5, at10, expired]);
  });
});
