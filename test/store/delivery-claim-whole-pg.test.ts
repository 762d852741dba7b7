/**
 * A webhook claim on PostgreSQL with every cap counted reads and leases its due rows in one statement when they
 * fit every cap together (`PickOptions.lease`), and reads, deals and then leases them when they might not. Either
 * way, replicas claiming one queue at once never lease a row twice and keep every subscription, receiver and tenant
 * under its cap.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { migratePostgres } from '../../src/store/postgres/pg-migrate.js';
import { query } from '../../src/store/sql.js';
import { createDeliveryStore, type ClaimedDelivery, type ClaimOptions } from '../../src/store/webhooks/delivery-store.js';
import { openDeliveryOutbox } from '../../src/store/webhooks/delivery-outbox.js';
import { generateMessageId } from '../../src/webhooks/signature.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { DEFAULT_ATTEMPT_RULES } from '../support/webhook-helpers.js';

const OK = { ok: true, statusCode: 200, durationMs: 3, error: null } as const;
const INSERT_WORKSPACE = query<{ id: number }>(
  `INSERT INTO workspaces (name, quota_total, quota_period_start, created_at) VALUES ('W', 100, 0, 0) RETURNING id`,
);
const INSERT_SUBSCRIPTION = query<{ id: number }>(`INSERT INTO webhook_subscriptions
  (workspace_id, event_type, url, enabled, secret, listen_session_id, created_at, updated_at)
  VALUES (@workspaceId, @eventType, @url, 1, 'whsec_x', NULL, 0, 0) RETURNING id`);

let database: TestDatabase;
const opened: PgDatabase[] = [];
/** A pool of its own (a replica), recording the first words of every statement its connections send. */
const open = (heads: string[] = []): PgDatabase => {
  const db = new PgDatabase({ url: database.url, poolSize: 4 });
  db.pool.on('connect', (client) => {
    const original = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    (client as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (config, ...rest) => {
      const text = typeof config === 'string' ? config : (config as { text: string }).text;
      heads.push(text.trim().split(/\s+/).slice(0, 3).join(' '));
      return original(config, ...rest);
    };
  });
  opened.push(db);
  return db;
};

beforeAll(async () => {
  database = await createTestDatabase('claim_whole');
  await migratePostgres(open().pool);
});
afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
  await database.drop();
});

describe('webhook claims on PostgreSQL, caps counted', () => {
  // Workspace A: two subscriptions on two receivers; workspace B: one, on A's first receiver's host. Caps of 4 a
  // subscription and a receiver: A's two subscriptions ask 8 together, which fits a tenant cap of 8, not one of 6.
  it.each([
    { tenantCap: 8, oneStatement: true },
    { tenantCap: 6, oneStatement: false },
  ])('tenant cap $tenantCap: replicas lease each row once, every cap holds (always read and leased in one statement: $oneStatement)', async ({ tenantCap, oneStatement }) => {
    const setup = open();
    const [a, b] = [(await setup.sql.get(INSERT_WORKSPACE))!.id, (await setup.sql.get(INSERT_WORKSPACE))!.id];
    const subscribe = async (workspaceId: number, eventType: string, url: string) =>
      (await setup.sql.get(INSERT_SUBSCRIPTION, { workspaceId, eventType, url }))!.id;
    const subs = [
      { id: await subscribe(a, `a1-${tenantCap}`, 'https://one.example.com/h'), tenant: a, endpoint: `${a} one` },
      { id: await subscribe(a, `a2-${tenantCap}`, 'https://two.example.com/h'), tenant: a, endpoint: `${a} two` },
      { id: await subscribe(b, `b1-${tenantCap}`, 'https://one.example.com/other'), tenant: b, endpoint: `${b} one` },
    ];
    await setup.write(async (tx) => {
      const queue = createDeliveryStore(tx, generateMessageId);
      for (const sub of subs) for (let i = 0; i < 40; i += 1) await queue.enqueue({ subscriptionId: sub.id, eventType: 'x', payload: { i }, now: 0 });
    });
    const heads: string[] = [];
    const replicas = [open(heads), open(heads), open(heads)].map((db) => openDeliveryOutbox(db, generateMessageId));
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
});
