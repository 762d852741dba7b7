/**
 * Deliveries leased as they are written (`DeliveryHandOff`, src/engine/webhooks/delivery-hand-off.ts). On
 * PostgreSQL, while this process's webhook worker runs, the transaction that writes an event's deliveries leases
 * those that may go at once to the worker and hands them to it after its COMMIT: no wake-up and no claim in their
 * path. SQLite claims in a fraction of a millisecond and does not do this. Either way each delivery is POSTed
 * once. A worker that stopped meanwhile ends their leases instead, for the next claim.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { query } from '../../src/store/sql.js';
import { openDeliveryOutbox } from '../../src/store/webhooks/delivery-outbox.js';
import { createDeliveryStore, type ClaimedDelivery } from '../../src/store/webhooks/delivery-store.js';
import { DeliveryWorker, type SendFn } from '../../src/webhooks/delivery-worker.js';
import { generateMessageId, generateSecret } from '../../src/webhooks/signature.js';
import { FakeClock } from '../../src/wire/clock.js';
import { STORES, storeDatabase, storeTestEngine } from '../support/store-engine.js';
import { fakeSender, ok } from '../support/webhook-engine.js';

const DELIVERIES = query<{ status: string; lease_owner: string | null; lease_until: number | null }>(
  'SELECT status, lease_owner, lease_until FROM webhook_deliveries ORDER BY id',
);

describe.each(STORES)('deliveries leased as they are written, on %s', (store) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('an incoming message\'s delivery is leased by its own transaction (PostgreSQL: no wake-up, no claim) and POSTed once', async () => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    const sender = fakeSender(async () => {
      await opened;
      return ok(200);
    });
    const t = await storeTestEngine(store, { clock: new FakeClock(), webhookSend: sender.send, config: { dev: true } });
    cleanups.push(async () => {
      open();
      await t.drop();
    });
    await t.engine.webhooks(t.local.workspace_id).create({ event_type: 'message:received:new', url: 'http://localhost/in' });
    const wakes: string[] = [];
    const wake = t.ctx.wake;
    t.ctx.wake = (name) => {
      wakes.push(name);
      wake(name);
    };
    t.engine.workers.start();

    await t.sim.receive({ from: '+4915110000001', to: '+15550000001', text: 'hello' });
    await vi.waitFor(() => expect(sender.sent).toHaveLength(1));
    const [row] = await t.ctx.sql.all(DELIVERIES);
    expect(row).toMatchObject({ status: 'delivering', lease_owner: expect.any(String) });
    expect(wakes.includes('webhooks')).toBe(store === 'sqlite');

    open();
    await vi.waitFor(async () => expect((await t.ctx.sql.all(DELIVERIES)).map((d) => d.status)).toEqual(['succeeded']));
    expect(sender.sent).toHaveLength(1);
  });

  it('slots are set aside only while the worker runs, from the half it keeps for claims, and freed when not used', async () => {
    const { database, drop } = await storeDatabase(store);
    cleanups.push(drop);
    const worker = new DeliveryWorker({ outbox: openDeliveryOutbox(database, generateMessageId), clock: new FakeClock(), send: async () => ok(), owner: 'w', concurrency: 8 });
    cleanups.push(async () => {
      await worker.stop();
      await database.close();
    });
    expect(worker.reserveSlots(4)).toBe(0);
    worker.start(60_000);
    expect(worker.reserveSlots(3)).toBe(3);
    expect(worker.reserveSlots(3)).toBe(1);
    worker.releaseSlots(2);
    worker.adopt([], 2);
    expect(worker.reserveSlots(10)).toBe(4);
  });

  it('a worker stopped before its deliveries are handed over ends their leases, and a claim takes them', async () => {
    const { database, drop } = await storeDatabase(store);
    cleanups.push(drop);
    const clock = new FakeClock();
    const outbox = openDeliveryOutbox(database, generateMessageId);
    const sent: string[] = [];
    const send: SendFn = async (request) => {
      sent.push(request.body);
      return ok();
    };
    const stopped = new DeliveryWorker({ outbox, clock, send, owner: 'stopped' });
    const next = new DeliveryWorker({ outbox, clock, send, owner: 'next' });
    cleanups.push(async () => {
      await Promise.all([stopped.stop(), next.stop()]);
      await database.close();
    });
    const ws = await database.write(async (tx) => {
      const id = (await tx.get(query<{ id: number }>(`INSERT INTO workspaces (name, quota_total, quota_period_start, created_at) VALUES ('W', 10, 0, 0) RETURNING id`)))!.id;
      await tx.run(query(`INSERT INTO webhook_subscriptions (workspace_id, event_type, url, enabled, secret, listen_session_id, created_at, updated_at)
        VALUES (@id, 'message:new', 'http://localhost/h', 1, @secret, NULL, 0, 0)`), { id, secret: generateSecret() });
      return id;
    });
    stopped.start(60_000);
    const reserved = stopped.reserveSlots(1);
    let leased: ClaimedDelivery[] = [];
    await database.write(async (tx) => {
      await createDeliveryStore(tx, generateMessageId).enqueueWorkspaceEvents([{ workspaceId: ws, eventType: 'message:new', payload: { n: 1 }, now: clock.now() }], {
        owner: 'stopped', now: clock.now(), leaseUntil: clock.now() + 60_000, budget: reserved, subscriptionCap: 4, tenantCap: 4,
        onLeased: (claimed) => void (leased = claimed),
      });
    }, { isolation: 'read committed' });
    await stopped.stop();
    stopped.adopt(leased, reserved);
    if (store === 'postgres') {
      expect(leased).toHaveLength(1);
      await vi.waitFor(async () => expect(await database.sql.all(DELIVERIES)).toEqual([{ status: 'delivering', lease_owner: 'stopped', lease_until: clock.now() }]));
    }
    // PostgreSQL: due now, its lease ended, and the next claim takes it. SQLite: the stopped worker's own claim
    // took it before it stopped. Sent once either way.
    const taken = await next.runDue();
    if (store === 'postgres') expect(taken).toBe(1);
    expect(sent).toEqual(['{"n":1}']);
  });
});
