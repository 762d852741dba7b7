import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import type { Db } from '../../src/store/database.js';
import type { SqliteDatabase } from '../../src/store/sqlite-database.js';
import { createDeliveryStore, type DeliveryStore } from '../../src/store/webhooks/delivery-store.js';
import type { DeliveryOutbox } from '../../src/store/webhooks/delivery-outbox.js';
import type { SendOutcome } from '../../src/wire/webhook-types.js';
import { generateMessageId } from '../../src/webhooks/signature.js';
import { DEFAULT_ATTEMPT_RULES, insertSubscription, insertWorkspace, openOutbox } from '../support/webhook-helpers.js';

const FAIL: SendOutcome = { ok: false, statusCode: 500, durationMs: 12, error: 'receiver answered 500' };
const OK: SendOutcome = { ok: true, statusCode: 200, durationMs: 8, error: null };

describe('DeliveryStore', () => {
  let db: Db;
  let database: SqliteDatabase;
  let queue: DeliveryStore;
  let outbox: DeliveryOutbox;
  let clock: FakeClock;
  let ws: number;
  const claim = (owner = 'w1', extra: Partial<Parameters<DeliveryOutbox['claimDue']>[0]> = {}) =>
    outbox.claimDue({ now: clock.now(), limit: 10, owner, leaseMs: 60_000, perSubscriptionCap: 5, ...extra });
  const subscription = (id: number) =>
    db.prepare('SELECT errors_counter, consecutive_failures, enabled FROM webhook_subscriptions WHERE id = ?').get(id) as {
      errors_counter: number; consecutive_failures: number; enabled: number;
    };
  const delivery = (id: number) =>
    db.prepare('SELECT * FROM webhook_deliveries WHERE id = ?').get(id) as Record<string, unknown>;
  const notifications = () => db.prepare('SELECT * FROM owner_notifications ORDER BY id').all() as Array<Record<string, unknown>>;

  beforeEach(() => {
    ({ db, database, queue, outbox } = openOutbox());
    clock = new FakeClock();
    ws = insertWorkspace(db);
  });

  it('schema: a subscription belongs to exactly one of a workspace or a partner', async () => {
    const insert = db.prepare(`INSERT INTO webhook_subscriptions (workspace_id, partner_id, event_type, url, secret, created_at, updated_at)
      VALUES (?, ?, 'message:new', 'https://x.example', 's', 0, 0)`);
    expect(() => insert.run(null, null)).toThrow(/CHECK/);
    expect(() => insert.run(ws, 7)).toThrow(/CHECK/);
    expect(() => insert.run(null, 7)).not.toThrow();
  });

  it('enqueueEvent: one delivery per enabled matching subscription, sharing one webhook-id', async () => {
    const a = insertSubscription(db, { workspaceId: ws, eventType: 'message:new' });
    const b = insertSubscription(db, { workspaceId: ws, eventType: 'message:new', url: 'https://b.example.com' });
    insertSubscription(db, { workspaceId: ws, eventType: 'message:new', enabled: false });
    insertSubscription(db, { workspaceId: ws, eventType: 'chat:created' });
    insertSubscription(db, { workspaceId: insertWorkspace(db), eventType: 'message:new' });
    const ids = await queue.enqueueEvent({ workspaceId: ws, eventType: 'message:new', payload: { event_type: 'message:new' }, now: clock.now() });
    expect(ids).toHaveLength(2);
    const rows = ids.map(delivery);
    expect(rows.map((r) => r['subscription_id'])).toEqual([a, b]);
    expect(rows[0]).toMatchObject({ status: 'pending', attempts: 0, next_attempt_at: clock.now(), payload: '{"event_type":"message:new"}' });
    expect(rows[0]?.['webhook_msg_id']).toMatch(/^msg_/);
    expect(rows[1]?.['webhook_msg_id']).toBe(rows[0]?.['webhook_msg_id']);
    expect(await queue.enqueueEvent({ workspaceId: ws, eventType: 'chat:assigned', payload: {}, now: 0 })).toEqual([]);
  });

  it('enqueueEvent: rolls back with the transaction that caused the event', async () => {
    insertSubscription(db, { workspaceId: ws });
    const change = database.write(async (tx) => {
      await createDeliveryStore(tx, generateMessageId).enqueueEvent({ workspaceId: ws, eventType: 'message:new', payload: {}, now: 0 });
      throw new Error('the change failed');
    });
    await expect(change).rejects.toThrow('the change failed');
    expect(db.prepare('SELECT COUNT(*) AS n FROM webhook_deliveries').get()).toEqual({ n: 0 });
  });

  it('claimDue: leases due deliveries once; an expired lease is claimed again and the old owner loses it', async () => {
    const sub = insertSubscription(db, { workspaceId: ws, url: 'https://a.example.com/h', secret: 'whsec_abc' });
    const [id] = await queue.enqueueEvent({ workspaceId: ws, eventType: 'message:new', payload: '{"x":1}', now: clock.now() + 1000 });
    expect(await claim()).toEqual([]); // not due yet
    clock.advance(1000);
    const [claimed] = await claim('w1');
    expect(claimed).toMatchObject({ id, subscriptionId: sub, payload: '{"x":1}', attempts: 0, url: 'https://a.example.com/h', secret: 'whsec_abc', listenSessionId: null });
    expect(delivery(id!)).toMatchObject({ status: 'delivering', lease_owner: 'w1', lease_until: clock.now() + 60_000 });
    expect(await claim('w2')).toEqual([]);
    clock.advance(60_000);
    expect((await claim('w2')).map((d) => d.id)).toEqual([id]);
    expect(await outbox.recordAttempt({ ...DEFAULT_ATTEMPT_RULES, deliveryId: id!, owner: 'w1', outcome: OK, now: clock.now() })).toEqual({ status: 'lease_lost' });
    expect(await outbox.recordAttempt({ ...DEFAULT_ATTEMPT_RULES, deliveryId: id!, owner: 'w2', outcome: OK, now: clock.now() })).toMatchObject({ status: 'succeeded', attemptNumber: 1 });
  });

  it('claimDue: caps deliveries in flight per subscription, counting leases held by others', async () => {
    const slow = insertSubscription(db, { workspaceId: ws, eventType: 'message:new' });
    const fast = insertSubscription(db, { workspaceId: ws, eventType: 'chat:created' });
    for (let i = 0; i < 5; i++) await queue.enqueueEvent({ workspaceId: ws, eventType: 'message:new', payload: {}, now: clock.now() });
    for (let i = 0; i < 3; i++) await queue.enqueueEvent({ workspaceId: ws, eventType: 'chat:created', payload: {}, now: clock.now() + 1 });
    clock.advance(1);
    const first = await claim('w1', { perSubscriptionCap: 2 });
    expect(first.map((d) => d.subscriptionId)).toEqual([slow, fast, slow, fast]); // dealt round-robin
    // Another process sees the two live leases of each subscription: nothing more for either.
    expect(await claim('w2', { perSubscriptionCap: 2 })).toEqual([]);
    await outbox.recordAttempt({ ...DEFAULT_ATTEMPT_RULES, deliveryId: first[3]!.id, owner: 'w1', outcome: OK, now: clock.now() });
    expect((await claim('w2', { perSubscriptionCap: 2 })).map((d) => d.subscriptionId)).toEqual([fast]);
  });

  it('claimDue: deliveries of listen sessions and disabled subscriptions are not POSTed', async () => {
    db.prepare(`INSERT INTO listen_sessions (id, workspace_id, events, secret, last_seen_at, created_at) VALUES ('ls1', ?, '[]', 's', 0, 0)`).run(ws);
    const listen = insertSubscription(db, { workspaceId: ws, listenSessionId: 'ls1' });
    const disabled = insertSubscription(db, { workspaceId: ws, eventType: 'chat:created' });
    await queue.enqueueEvent({ workspaceId: ws, eventType: 'message:new', payload: {}, now: 0 });
    await queue.enqueueEvent({ workspaceId: ws, eventType: 'chat:created', payload: {}, now: 0 });
    db.prepare('UPDATE webhook_subscriptions SET enabled = 0 WHERE id = ?').run(disabled);
    expect(await claim()).toEqual([]);
    expect((await claim('listener', { listenSessionId: 'ls1' })).map((d) => [d.subscriptionId, d.listenSessionId])).toEqual([[listen, 'ls1']]);
  });

  it('recordAttempt: retries after 5 s and 30 s, then fails and increments errors_counter once', async () => {
    const sub = insertSubscription(db, { workspaceId: ws });
    const [id] = await queue.enqueueEvent({ workspaceId: ws, eventType: 'message:new', payload: {}, now: clock.now() });
    const results = [];
    for (const wait of [0, 5000, 30_000]) {
      clock.advance(wait);
      expect((await claim()).map((d) => d.id)).toEqual([id]);
      results.push(await outbox.recordAttempt({ ...DEFAULT_ATTEMPT_RULES, deliveryId: id!, owner: 'w1', outcome: FAIL, now: clock.now() }));
      expect(await claim()).toEqual([]); // the retry is not due yet
      if (results.length < 3) expect(subscription(sub).errors_counter).toBe(0);
    }
    const start = Date.UTC(2026, 0, 15, 12, 0, 0);
    expect(results).toEqual([
      { status: 'retry_scheduled', attemptNumber: 1, nextAttemptAt: start + 5000, ownerNotified: false },
      { status: 'retry_scheduled', attemptNumber: 2, nextAttemptAt: start + 35_000, ownerNotified: false },
      { status: 'failed', attemptNumber: 3, nextAttemptAt: null, ownerNotified: false },
    ]);
    expect(subscription(sub)).toEqual({ errors_counter: 1, consecutive_failures: 1, enabled: 1 });
    expect(delivery(id!)).toMatchObject({ status: 'failed', attempts: 3, completed_at: start + 35_000, lease_owner: null });
    const attempts = db.prepare('SELECT attempt_number, ok, status_code, duration_ms, error, created_at FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt_number').all(id);
    expect(attempts).toEqual([1, 2, 3].map((n, i) => ({
      attempt_number: n, ok: 0, status_code: 500, duration_ms: 12, error: 'receiver answered 500', created_at: start + [0, 5000, 35_000][i]!,
    })));
    clock.advance(3_600_000);
    expect(await claim()).toEqual([]);
  });

  it('recordAttempt: a success after a failed attempt does not count an error', async () => {
    const sub = insertSubscription(db, { workspaceId: ws });
    const [id] = await queue.enqueueEvent({ workspaceId: ws, eventType: 'message:new', payload: {}, now: clock.now() });
    await claim();
    await outbox.recordAttempt({ ...DEFAULT_ATTEMPT_RULES, deliveryId: id!, owner: 'w1', outcome: FAIL, now: clock.now() });
    clock.advance(5000);
    await claim();
    expect(await outbox.recordAttempt({ ...DEFAULT_ATTEMPT_RULES, deliveryId: id!, owner: 'w1', outcome: OK, now: clock.now() })).toMatchObject({ status: 'succeeded', attemptNumber: 2 });
    expect(subscription(sub)).toEqual({ errors_counter: 0, consecutive_failures: 0, enabled: 1 });
    expect(delivery(id!)).toMatchObject({ status: 'succeeded', attempts: 2, completed_at: clock.now() });
  });

  /** Runs one delivery through all its attempts with the given final outcome. */
  const deliverOnce = async (final: SendOutcome, threshold = 3) => {
    const [id] = await queue.enqueueEvent({ workspaceId: ws, eventType: 'message:new', payload: {}, now: clock.now() });
    let result;
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect((await claim()).map((d) => d.id)).toEqual([id]);
      result = await outbox.recordAttempt({ ...DEFAULT_ATTEMPT_RULES, deliveryId: id!, owner: 'w1', outcome: attempt === 3 ? final : FAIL, now: clock.now(), failureNotifyThreshold: threshold });
      clock.advance(30_000);
      if (result.status === 'succeeded') break;
    }
    return result!;
  };

  it('recordAttempt: notifies the owner once when N deliveries in a row fail, never disables', async () => {
    const sub = insertSubscription(db, { workspaceId: ws });
    expect(await deliverOnce(FAIL)).toMatchObject({ status: 'failed', ownerNotified: false });
    expect(await deliverOnce(FAIL)).toMatchObject({ status: 'failed', ownerNotified: false });
    expect(await deliverOnce(FAIL)).toMatchObject({ status: 'failed', ownerNotified: true });
    expect(await deliverOnce(FAIL)).toMatchObject({ status: 'failed', ownerNotified: false });
    expect(subscription(sub)).toEqual({ errors_counter: 4, consecutive_failures: 4, enabled: 1 });
    expect(notifications()).toHaveLength(1);
    expect(notifications()[0]).toMatchObject({ workspace_id: ws, partner_id: null, subscription_id: sub, kind: 'webhook_failing', emailed_at: null });
    expect(JSON.parse(notifications()[0]!['details'] as string)).toMatchObject({ consecutive_failures: 3, last_error: 'receiver answered 500' });
    // A success ends the streak; the next streak notifies again.
    expect(await deliverOnce(OK)).toMatchObject({ status: 'succeeded' });
    expect(subscription(sub)).toEqual({ errors_counter: 4, consecutive_failures: 0, enabled: 1 });
    await deliverOnce(FAIL);
    await deliverOnce(FAIL);
    expect(await deliverOnce(FAIL)).toMatchObject({ ownerNotified: true });
    expect(notifications()).toHaveLength(2);
  });

  it('recordAttempt: the threshold is configurable', async () => {
    insertSubscription(db, { workspaceId: ws });
    expect(await deliverOnce(FAIL, 1)).toMatchObject({ status: 'failed', ownerNotified: true });
  });

  it('redeliver: a new pending delivery with the same webhook-id and body', async () => {
    insertSubscription(db, { workspaceId: ws });
    const [id] = await queue.enqueueEvent({ workspaceId: ws, eventType: 'message:new', payload: { a: 1 }, now: clock.now() });
    await claim();
    await outbox.recordAttempt({ ...DEFAULT_ATTEMPT_RULES, deliveryId: id!, owner: 'w1', outcome: OK, now: clock.now() });
    clock.advance(10);
    const again = await queue.redeliver(id!, clock.now());
    expect(again).not.toBe(id);
    expect(delivery(again!)).toMatchObject({ status: 'pending', attempts: 0, webhook_msg_id: delivery(id!)['webhook_msg_id'], payload: '{"a":1}', next_attempt_at: clock.now() });
    expect(await queue.redeliver(9999, clock.now())).toBeNull();
  });

  it('deleting a subscription removes its deliveries and attempts; an attempt in flight then finds nothing', async () => {
    const sub = insertSubscription(db, { workspaceId: ws });
    const [id] = await queue.enqueueEvent({ workspaceId: ws, eventType: 'message:new', payload: {}, now: clock.now() });
    await claim();
    db.prepare('DELETE FROM webhook_subscriptions WHERE id = ?').run(sub);
    expect(await outbox.recordAttempt({ ...DEFAULT_ATTEMPT_RULES, deliveryId: id!, owner: 'w1', outcome: OK, now: clock.now() })).toEqual({ status: 'lease_lost' });
  });

  it('durability: deliveries survive closing and reopening the database; a dead lease is claimed again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-webhooks-'));
    try {
      const path = join(dir, 'svc.db');
      let file = openOutbox(path);
      const fileWs = insertWorkspace(file.db);
      insertSubscription(file.db, { workspaceId: fileWs });
      const [id] = await file.queue.enqueueEvent({ workspaceId: fileWs, eventType: 'message:new', payload: { a: 1 }, now: clock.now() });
      await file.outbox.claimDue({ now: clock.now(), limit: 5, owner: 'killed', leaseMs: 60_000, perSubscriptionCap: 2 });
      file.db.close(); // the process dies holding the lease

      file = openOutbox(path);
      const reopened = file.outbox;
      expect(await reopened.claimDue({ now: clock.now() + 59_999, limit: 5, owner: 'next', leaseMs: 60_000, perSubscriptionCap: 2 })).toEqual([]);
      const claimed = await reopened.claimDue({ now: clock.now() + 60_000, limit: 5, owner: 'next', leaseMs: 60_000, perSubscriptionCap: 2 });
      expect(claimed.map((d) => [d.id, d.payload])).toEqual([[id, '{"a":1}']]);
      file.db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
