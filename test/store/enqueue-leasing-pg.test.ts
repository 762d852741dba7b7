/**
 * Deliveries leased as they are written (PostgreSQL, migration 22's `svc_enqueue_leasing`, through
 * `enqueueWorkspaceEvents` with an `EnqueueLease`). A subscription's new rows are leased to the worker only when
 * nothing of it is due before them, only as many as keep it under its cap, its tenant under the tenant cap and
 * the lease count under the worker's budget, and never while another transaction (a claim) holds its row; the
 * rest are written pending, for a claim. Each subscription's leased rows are its oldest new ones. Replicas
 * leasing as they write and claiming one subscription at once never lease a row twice nor pass its cap.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { migratePostgres } from '../../src/store/postgres/pg-migrate.js';
import { query } from '../../src/store/sql.js';
import { createDeliveryStore, type ClaimedDelivery, type EnqueueLease } from '../../src/store/webhooks/delivery-store.js';
import { openDeliveryOutbox } from '../../src/store/webhooks/delivery-outbox.js';
import { generateMessageId } from '../../src/webhooks/signature.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

const NOW = 100_000;
const INSERT_WORKSPACE = query<{ id: number }>(
  `INSERT INTO workspaces (name, quota_total, quota_period_start, created_at) VALUES ('W', 100, 0, 0) RETURNING id`,
);
const INSERT_SUBSCRIPTION = query<{ id: number }>(`INSERT INTO webhook_subscriptions
  (workspace_id, event_type, url, enabled, secret, listen_session_id, created_at, updated_at)
  VALUES (@workspaceId, @eventType, 'https://a.example.com/h', 1, 'whsec_x', @session, 0, 0) RETURNING id`);
const INSERT_DELIVERY = query(`INSERT INTO webhook_deliveries
  (subscription_id, webhook_msg_id, event_type, payload, status, attempts, next_attempt_at, created_at, lease_owner, lease_until)
  VALUES (@sub, 'msg_old', 'e', '{}', @status, 0, @at, 0, @owner, @until)`);
const ROWS = query<{ subscription_id: number; payload: string; status: string; lease_owner: string | null; lease_until: number | null }>(
  `SELECT subscription_id, payload, status, lease_owner, lease_until FROM webhook_deliveries WHERE webhook_msg_id <> 'msg_old' ORDER BY id`,
);
const INSERT_LISTEN_SESSION = query(`INSERT INTO listen_sessions (id, workspace_id, events, secret, last_seen_at, created_at)
  VALUES (@id, @workspaceId, '[]', 'whsec_l', 0, 0)`);
const LOCK_SUBSCRIPTION = query('SELECT id FROM webhook_subscriptions WHERE id = @id FOR NO KEY UPDATE');

let database: TestDatabase;
let db: PgDatabase;
let other: PgDatabase;

beforeAll(async () => {
  database = await createTestDatabase('enqlease');
  db = new PgDatabase({ url: database.url, poolSize: 2 });
  other = new PgDatabase({ url: database.url, poolSize: 1 });
  await migratePostgres(db.pool);
});
afterAll(async () => {
  await Promise.all([db.close(), other.close()]);
  await database.drop();
});

const workspace = async () => (await db.sql.get(INSERT_WORKSPACE))!.id;
const subscription = async (workspaceId: number, eventType: string, session: string | null = null) =>
  (await db.sql.get(INSERT_SUBSCRIPTION, { workspaceId, eventType, session }))!.id;
const existing = (sub: number, status: 'pending' | 'delivering', at: number, until: number | null = null) =>
  db.sql.run(INSERT_DELIVERY, { sub, status, at, owner: status === 'delivering' ? 'elsewhere' : null, until });

/** Writes the events in one transaction with a lease; what it leased, whether it left rows pending, and every new row. */
async function enqueue(events: Array<[workspaceId: number, eventType: string]>, lease: Partial<EnqueueLease> = {}) {
  await db.sql.run(query("DELETE FROM webhook_deliveries WHERE webhook_msg_id <> 'msg_old'"));
  let told: { claimed: ClaimedDelivery[]; leftPending: boolean } | undefined;
  await db.write(async (tx) => {
    await createDeliveryStore(tx, generateMessageId).enqueueWorkspaceEvents(
      events.map(([workspaceId, eventType], n) => ({ workspaceId, eventType, payload: { n }, now: NOW })),
      {
        owner: 'me', now: NOW, leaseUntil: NOW + 15_000, budget: 100, subscriptionCap: 3, tenantCap: 100,
        onLeased: (claimed, leftPending) => void (told = { claimed, leftPending }),
        ...lease,
      },
    );
  }, { isolation: 'read committed' });
  const rows = await db.sql.all(ROWS);
  return { ...told!, rows: rows.map((row) => [row.subscription_id, JSON.parse(row.payload).n as number, row.status]) };
}

describe('deliveries leased as they are written, on PostgreSQL', () => {
  it('leases the oldest new rows of each subscription with nothing due, up to its cap, and hands them over whole', async () => {
    const ws = await workspace();
    const idle = await subscription(ws, 'message:new');
    const { claimed, leftPending, rows } = await enqueue([[ws, 'message:new'], [ws, 'message:new'], [ws, 'message:new'], [ws, 'message:new']]);
    expect(rows).toEqual([[idle, 0, 'delivering'], [idle, 1, 'delivering'], [idle, 2, 'delivering'], [idle, 3, 'pending']]);
    expect(leftPending).toBe(true);
    expect(claimed.map((d) => JSON.parse(d.payload).n)).toEqual([0, 1, 2]);
    expect(claimed[0]).toMatchObject({
      subscriptionId: idle, eventType: 'message:new', attempts: 0, url: 'https://a.example.com/h', secret: 'whsec_x',
      listenSessionId: null, partnerId: null, createdAt: NOW,
    });
    const leased = await db.sql.all(ROWS);
    expect(leased.filter((row) => row.status === 'delivering').every((row) => row.lease_owner === 'me' && Number(row.lease_until) === NOW + 15_000)).toBe(true);
    expect(leased.filter((row) => row.status === 'pending').every((row) => row.lease_owner === null && row.lease_until === null)).toBe(true);

    // All of them fit: nothing is left for a claim.
    const one = await enqueue([[ws, 'message:new']]);
    expect(one.leftPending).toBe(false);
    expect(one.rows).toEqual([[idle, 0, 'delivering']]);
  });

  it('leaves pending the rows of a subscription with work due (never overtaking it), at its cap, or of a listen session', async () => {
    const ws = await workspace();
    const due = await subscription(ws, 'due');
    const expired = await subscription(ws, 'expired');
    const full = await subscription(ws, 'full');
    const almost = await subscription(ws, 'almost');
    await db.sql.run(INSERT_LISTEN_SESSION, { id: 'ls_1', workspaceId: ws });
    const listened = await subscription(ws, 'listened', 'ls_1');
    const later = await subscription(ws, 'retry later');
    await existing(due, 'pending', NOW - 1);
    await existing(expired, 'delivering', 0, NOW - 1);
    for (let i = 0; i < 3; i += 1) await existing(full, 'delivering', 0, NOW + 5_000);
    for (let i = 0; i < 2; i += 1) await existing(almost, 'delivering', 0, NOW + 5_000);
    // A retry not due yet holds nothing back: a claim would take the new row first too.
    await existing(later, 'pending', NOW + 60_000);
    const { claimed, rows } = await enqueue([[ws, 'due'], [ws, 'expired'], [ws, 'full'], [ws, 'almost'], [ws, 'almost'], [ws, 'listened'], [ws, 'retry later']]);
    expect(rows).toEqual([
      [due, 0, 'pending'], [expired, 1, 'pending'], [full, 2, 'pending'], [almost, 3, 'delivering'], [almost, 4, 'pending'],
      [listened, 5, 'pending'], [later, 6, 'delivering'],
    ]);
    expect(claimed.map((d) => d.subscriptionId)).toEqual([almost, later]);
  });

  it("counts a tenant's leases over all its subscriptions, and stops at the worker's budget", async () => {
    const ws = await workspace();
    const [a, b, c] = [await subscription(ws, 'a'), await subscription(ws, 'b'), await subscription(ws, 'c')];
    await existing(c, 'delivering', 0, NOW + 5_000);
    const tenant = await enqueue([[ws, 'a'], [ws, 'b'], [ws, 'a'], [ws, 'b']], { tenantCap: 3 });
    expect(tenant.rows).toEqual([[a, 0, 'delivering'], [b, 1, 'delivering'], [a, 2, 'pending'], [b, 3, 'pending']]);

    const other = await workspace();
    const d = await subscription(other, 'a');
    const budget = await enqueue([[ws, 'a'], [other, 'a'], [other, 'a']], { budget: 2 });
    expect(budget.rows).toEqual([[a, 0, 'delivering'], [d, 1, 'delivering'], [d, 2, 'pending']]);
  });

  it('skips a subscription whose row another transaction holds (a claim under way): its rows wait for a claim', async () => {
    const ws = await workspace();
    const held = await subscription(ws, 'held');
    const free = await subscription(ws, 'free');
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const claim = other.write(async (tx) => {
      await tx.run(LOCK_SUBSCRIPTION, { id: held });
      locked();
      await released;
    }, { isolation: 'read committed' });
    await lockTaken;
    try {
      const { rows } = await enqueue([[ws, 'held'], [ws, 'free']]);
      expect(rows).toEqual([[held, 0, 'pending'], [free, 1, 'delivering']]);
    } finally {
      release();
      await claim;
    }
  });

  it('replicas writing and claiming one subscription at once never lease a row twice, nor more than its cap', async () => {
    const ws = await workspace();
    const sub = await subscription(ws, 'raced');
    const cap = 4;
    const replicas = [0, 1, 2].map(() => new PgDatabase({ url: database.url, poolSize: 2 }));
    const LIVE = query<{ n: number }>(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE subscription_id = @sub AND status = 'delivering'`);
    const FINISH = query(`UPDATE webhook_deliveries SET status = 'succeeded', lease_owner = NULL, lease_until = NULL
      WHERE id = ANY(@ids::bigint[]) AND status = 'delivering' AND lease_owner = @owner`);
    const leasedBy = new Map<number, string>();
    let most = 0;
    const take = (owner: string, claimed: ClaimedDelivery[]) => {
      for (const d of claimed) {
        expect(leasedBy.has(d.id)).toBe(false);
        leasedBy.set(d.id, owner);
      }
    };
    try {
      await Promise.all(replicas.map(async (replica, r) => {
        const owner = `r${r}`;
        const outbox = openDeliveryOutbox(replica, generateMessageId);
        for (let round = 0; round < 30; round += 1) {
          let leased: ClaimedDelivery[] = [];
          await replica.write(async (tx) => {
            await createDeliveryStore(tx, generateMessageId).enqueueWorkspaceEvents(
              [0, 1, 2].map((n) => ({ workspaceId: ws, eventType: 'raced', payload: { r, round, n }, now: NOW })),
              { owner, now: NOW, leaseUntil: NOW + 60_000, budget: 8, subscriptionCap: cap, tenantCap: 100, onLeased: (claimed) => void (leased = claimed) },
            );
          }, { isolation: 'read committed' });
          take(owner, leased);
          const claimed = await outbox.claimDue({ now: NOW, limit: 8, owner, leaseMs: 60_000, perSubscriptionCap: cap });
          take(owner, claimed);
          most = Math.max(most, (await replica.sql.get(LIVE, { sub }))!.n);
          // Finishes what it holds, so the subscription has room again.
          const held = [...leased, ...claimed].map((d) => d.id);
          if (held.length > 0) await replica.sql.run(FINISH, { ids: held, owner });
        }
      }));
    } finally {
      await Promise.all(replicas.map((replica) => replica.close()));
    }
    expect(most).toBeLessThanOrEqual(cap);
    expect(most).toBeGreaterThan(0);
    // Every row was leased once, some as they were written and some by claims, by more than one replica.
    expect(leasedBy.size).toBeGreaterThan(0);
    expect(new Set(leasedBy.values()).size).toBeGreaterThan(1);
  });

  it('rolls back with its transaction: nothing stays leased', async () => {
    const ws = await workspace();
    await subscription(ws, 'rolled back');
    await db.sql.run(query("DELETE FROM webhook_deliveries WHERE webhook_msg_id <> 'msg_old'"));
    await expect(db.write(async (tx) => {
      await createDeliveryStore(tx, generateMessageId).enqueueWorkspaceEvents([{ workspaceId: ws, eventType: 'rolled back', payload: {}, now: NOW }], {
        owner: 'me', now: NOW, leaseUntil: NOW + 15_000, budget: 10, subscriptionCap: 3, tenantCap: 10, onLeased: () => undefined,
      });
      throw new Error('the change failed');
    })).rejects.toThrow('the change failed');
    expect(await db.sql.all(ROWS)).toEqual([]);
  });
});
