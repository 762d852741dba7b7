import { beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import type { Db } from '../../src/store/database.js';
import type { SqliteDatabase } from '../../src/store/sqlite-database.js';
import { createDeliveryStore, type ClaimOptions, type DeliveryStore } from '../../src/store/webhooks/delivery-store.js';
import type { DeliveryOutbox } from '../../src/store/webhooks/delivery-outbox.js';
import { generateMessageId } from '../../src/webhooks/signature.js';
import { DEFAULT_ATTEMPT_RULES, insertSubscription, insertWorkspace, openOutbox } from '../support/webhook-helpers.js';

const OK = { ok: true, statusCode: 200, durationMs: 1, error: null } as const;

describe('the outbox claiming from a deep queue (migration 004 indexes)', () => {
  let db: Db;
  let database: SqliteDatabase;
  let queue: DeliveryStore;
  let outbox: DeliveryOutbox;
  let clock: FakeClock;
  let ws: number;
  const claim = (owner: string, extra: Partial<ClaimOptions> = {}) =>
    outbox.claimDue({ now: clock.now(), limit: 16, owner, leaseMs: 60_000, perSubscriptionCap: 4, ...extra });
  const enqueue = (subscriptionId: number, count: number, at = clock.now()) =>
    database.write(async (tx) => {
      const inTx = createDeliveryStore(tx, generateMessageId);
      for (let i = 0; i < count; i++) await inTx.enqueue({ subscriptionId, eventType: 'message:new', payload: { i }, now: at });
    });

  beforeEach(() => {
    ({ db, database, queue, outbox } = openOutbox());
    clock = new FakeClock();
    ws = insertWorkspace(db);
  });

  it('a subscription with thousands queued at its cap does not hold up a later delivery of another', async () => {
    const slow = insertSubscription(db, { workspaceId: ws });
    const other = insertSubscription(db, { workspaceId: ws, eventType: 'chat:created' });
    await enqueue(slow, 5000);
    await enqueue(other, 1, clock.now() + 10);
    clock.advance(10);
    expect((await claim('w1')).map((d) => d.subscriptionId)).toEqual([slow, other, slow, slow, slow]); // one per subscription per round
    // Slow is at its cap and other has nothing left: no claim, and no write lock taken for it.
    expect(await claim('w2')).toEqual([]);
    await enqueue(other, 2);
    expect((await claim('w2')).map((d) => d.subscriptionId)).toEqual([other, other]);
  });

  it('ordered by when each became due, an expired lease counting from when it ran out', async () => {
    const sub = insertSubscription(db, { workspaceId: ws });
    await enqueue(sub, 3);
    const [first] = await claim('w1', { limit: 1 });
    clock.advance(60_000); // w1's lease runs out now
    await enqueue(sub, 2);
    const f = first!.id;
    expect((await claim('w2', { perSubscriptionCap: 10 })).map((d) => d.id)).toEqual([f + 1, f + 2, f, f + 3, f + 4]);
  });

  it('drains a deep queue exactly once, never more than the cap in flight', async () => {
    const sub = insertSubscription(db, { workspaceId: ws });
    await enqueue(sub, 1000);
    const seen = new Set<number>();
    for (let round = 0; round < 400 && seen.size < 1000; round++) {
      const claimed = await claim(`w${round % 3}`);
      expect(claimed.length).toBeLessThanOrEqual(4);
      for (const d of claimed) {
        expect(seen.has(d.id)).toBe(false);
        seen.add(d.id);
        expect((await outbox.recordAttempt({ ...DEFAULT_ATTEMPT_RULES, deliveryId: d.id, owner: `w${round % 3}`, outcome: OK, now: clock.now() })).status).toBe('succeeded');
      }
    }
    expect(seen.size).toBe(1000);
    expect(await queue.nextDueAt()).toBeNull();
  });

  it('nextDueAt: the earliest pending or lease expiry of POSTed subscriptions only', async () => {
    db.prepare(`INSERT INTO listen_sessions (id, workspace_id, events, secret, last_seen_at, created_at) VALUES ('ls1', ?, '[]', 's', 0, 0)`).run(ws);
    const listener = insertSubscription(db, { workspaceId: ws, listenSessionId: 'ls1' });
    const disabled = insertSubscription(db, { workspaceId: ws, enabled: false });
    const posted = insertSubscription(db, { workspaceId: ws });
    const t0 = clock.now();
    await enqueue(listener, 1, t0 + 100);
    await enqueue(disabled, 1, t0 + 200);
    expect(await queue.nextDueAt()).toBeNull();
    await enqueue(posted, 2, t0 + 5000);
    await enqueue(posted, 1, t0 + 3000);
    expect(await queue.nextDueAt()).toBe(t0 + 3000);
    clock.advance(3000);
    expect(await claim('w1')).toHaveLength(1);
    // That one is leased until t0 + 63 000; the other two are due at t0 + 5000.
    expect(await queue.nextDueAt()).toBe(t0 + 5000);
  });
});
