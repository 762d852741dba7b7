/**
 * Fair delivery across tenants, end to end with real sockets: one workspace has 6 receivers that hang (each
 * attempt runs into the 5 s timeout) and 96 events queued for them; another workspace's healthy receiver must
 * still get its events within 1 s at p99. Also: tenants sharing one receiver host, and subscriptions sharing
 * one receiver, get their turns.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock, systemClock } from '../../src/wire/clock.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { openDatabase } from '../../src/store/database.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';
import { fixedRandom } from '../support/test-engine.js';
import { DEFAULT_ATTEMPT_RULES, insertSubscription, insertWorkspace, openOutbox, startReceiver, type Receiver } from '../support/webhook-helpers.js';

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
};

describe('webhook fairness across tenants (real receivers)', () => {
  const receivers: Receiver[] = [];
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  it("6 hanging receivers with 96 events queued do not delay another workspace: p99 send → arrival under 1 s", async () => {
    const hanging = await Promise.all(Array.from({ length: 6 }, () => startReceiver(() => undefined)));
    const arrivals = new Map<string, number>();
    const healthy = await startReceiver((req, res) => {
      arrivals.set((JSON.parse(req.body) as { message: { text: string } }).message.text, performance.now());
      res.end('ok');
    });
    receivers.push(...hanging, healthy);
    const engine = createEngine({ database: new SqliteDatabase(openDatabase(':memory:')), clock: systemClock, random: fixedRandom(), config: { dev: true } });
    stop = async () => engine.close();
    const noisy = (await engine.admin.createWorkspace({ name: 'Noisy' })).workspace_id;
    const calm = (await engine.admin.createWorkspace({ name: 'Calm' })).workspace_id;
    for (const r of hanging) await engine.webhooks(noisy).create({ event_type: 'message:received:new', url: `${r.url}/hook` });
    await engine.webhooks(calm).create({ event_type: 'message:received:new', url: `${healthy.url}/hook` });
    await engine.sim(noisy).connect({ phone: '+15550004001' });
    await engine.sim(calm).connect({ phone: '+15550004002' });
    for (let i = 0; i < 16; i += 1) await engine.sim(noisy).receive({ from: `+4915100000${String(i).padStart(3, '0')}`, to: '+15550004001', text: `noise ${i}` });
    engine.workers.start();
    await new Promise((r) => setTimeout(r, 200)); // the noisy tenant's deliveries are in flight and hanging

    const sentAt = new Map<string, number>();
    for (let i = 0; i < 40; i += 1) {
      const text = `calm ${i}`;
      sentAt.set(text, performance.now());
      await engine.sim(calm).receive({ from: `+4915200000${String(i).padStart(3, '0')}`, to: '+15550004002', text });
      await new Promise((r) => setTimeout(r, 25));
    }
    const deadline = performance.now() + 4000;
    while (arrivals.size < sentAt.size && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(arrivals.size).toBe(40);
    const latencies = [...sentAt].map(([text, at]) => (arrivals.get(text) as number) - at);
    expect(percentile(latencies, 99)).toBeLessThan(1000);
    // And the noisy tenant really was hanging on its receivers meanwhile.
    expect(hanging.reduce((n, r) => n + r.requests.length, 0)).toBeGreaterThan(0);
  }, 15_000);
});

describe('fair claims (queue level)', () => {
  const OK = { ok: true, statusCode: 200, durationMs: 1, error: null } as const;

  it('tenants sharing one receiver host each have their own cap there', async () => {
    const { db, queue, outbox } = openOutbox();
    const clock = new FakeClock();
    const [a, b] = [insertWorkspace(db), insertWorkspace(db)];
    const slowPath = insertSubscription(db, { workspaceId: a, url: 'https://shared.example.com/slow' });
    const otherTenant = insertSubscription(db, { workspaceId: b, url: 'https://shared.example.com/fine' });
    for (let i = 0; i < 50; i += 1) await queue.enqueue({ subscriptionId: slowPath, eventType: 'message:new', payload: { i }, now: clock.now() });
    const options = { now: clock.now(), limit: 32, leaseMs: 60_000, perSubscriptionCap: 8, perEndpointCap: 8, perTenantCap: 16 };
    expect(await outbox.claimDue({ ...options, owner: 'w1' })).toHaveLength(8); // a's slow path: 8 hang
    await queue.enqueue({ subscriptionId: otherTenant, eventType: 'message:new', payload: {}, now: clock.now() });
    expect((await outbox.claimDue({ ...options, owner: 'w2' })).map((d) => d.subscriptionId)).toEqual([otherTenant]);
  });

  it('subscriptions sharing one receiver get equal turns, whatever their ids', async () => {
    const { db, queue, outbox } = openOutbox();
    const clock = new FakeClock();
    const ws = insertWorkspace(db);
    const subs = [1, 2, 3, 4].map((n) => insertSubscription(db, { workspaceId: ws, eventType: `e${n}`, url: 'https://one.example.com/h' }));
    for (const sub of subs) for (let i = 0; i < 100; i += 1) await queue.enqueue({ subscriptionId: sub, eventType: 'x', payload: {}, now: clock.now() });
    const served = new Map<number, number>();
    for (let round = 0; round < 50; round += 1) {
      const claimed = await outbox.claimDue({ now: clock.now(), limit: 8, owner: 'w', leaseMs: 60_000, perSubscriptionCap: 8, perEndpointCap: 8 });
      for (const d of claimed) {
        served.set(d.subscriptionId, (served.get(d.subscriptionId) ?? 0) + 1);
        await outbox.recordAttempt({ ...DEFAULT_ATTEMPT_RULES, deliveryId: d.id, owner: 'w', outcome: OK, now: clock.now() });
      }
    }
    const counts = subs.map((sub) => served.get(sub) ?? 0);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(2);
    expect(counts.reduce((a, b) => a + b)).toBe(400);
  });
});
