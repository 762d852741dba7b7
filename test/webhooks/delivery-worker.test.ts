import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import type { Db } from '../../src/store/database.js';
import type { JobRunner } from '../../src/workers/worker-runner.js';
import type { DeliveryStore } from '../../src/store/webhooks/delivery-store.js';
import type { DeliveryOutbox } from '../../src/store/webhooks/delivery-outbox.js';
import { DeliveryWorker, type OutgoingWebhook, type SendFn } from '../../src/webhooks/delivery-worker.js';
import { httpSend } from '../../src/webhooks/http-sender.js';
import { createWebhookDispatcher } from '../../src/webhooks/guarded-dispatcher.js';
import type { SendOutcome } from '../../src/wire/webhook-types.js';
import { generateSecret, verify } from '../../src/webhooks/signature.js';
import { insertSubscription, insertWorkspace, openOutbox, startReceiver, type Receiver } from '../support/webhook-helpers.js';

const OK: SendOutcome = { ok: true, statusCode: 200, durationMs: 1, error: null };
const FAIL: SendOutcome = { ok: false, statusCode: 503, durationMs: 1, error: 'receiver answered 503' };

/** A sender that records requests and answers from a script (default: success). */
function fakeSender(answer: (req: OutgoingWebhook) => SendOutcome | Promise<SendOutcome> = () => OK) {
  const sent: OutgoingWebhook[] = [];
  const send: SendFn = async (req) => {
    sent.push(req);
    return answer(req);
  };
  return { sent, send };
}

describe('DeliveryWorker', () => {
  let db: Db;
  let queue: DeliveryStore;
  let outbox: DeliveryOutbox;
  let clock: FakeClock;
  let ws: number;
  const workers: DeliveryWorker[] = [];
  const worker = (send: SendFn, extra: Partial<ConstructorParameters<typeof DeliveryWorker>[0]> = {}) => {
    const w = new DeliveryWorker({ outbox, clock, send, owner: `test-${workers.length}`, ...extra });
    workers.push(w);
    return w;
  };
  const counter = (id: number) =>
    (db.prepare('SELECT errors_counter FROM webhook_subscriptions WHERE id = ?').get(id) as { errors_counter: number }).errors_counter;
  const statusOf = (id: number) => (db.prepare('SELECT status FROM webhook_deliveries WHERE id = ?').get(id) as { status: string }).status;

  beforeEach(() => {
    ({ db, queue, outbox } = openOutbox());
    clock = new FakeClock();
    ws = insertWorkspace(db);
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
  });

  it('runDue: follows the retry schedule on fake time and increments errors_counter after the last attempt', async () => {
    const sub = insertSubscription(db, { workspaceId: ws });
    const { sent, send } = fakeSender(() => FAIL);
    const w = worker(send);
    const [id] = await queue.enqueueEvent({ workspaceId: ws, eventType: 'message:new', payload: { n: 1 }, now: clock.now() });
    expect(await w.runDue()).toBe(1);
    expect(await w.nextDueAt()).toBe(clock.now() + 5000);
    clock.advance(4999);
    expect(await w.runDue()).toBe(0);
    clock.advance(1);
    expect(await w.runDue()).toBe(1);
    expect(counter(sub)).toBe(0);
    clock.advance(29_999);
    expect(await w.runDue()).toBe(0);
    clock.advance(1);
    expect(await w.runDue()).toBe(1);
    expect(counter(sub)).toBe(1);
    expect(statusOf(id!)).toBe('failed');
    expect(await w.nextDueAt()).toBeNull();
    clock.advance(3_600_000);
    expect(await w.runDue()).toBe(0);
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((r) => r.headers['webhook-id'])).size).toBe(1);
    const first = Number(sent[0]!.headers['webhook-timestamp']);
    expect(sent.map((r) => (Number(r.headers['webhook-timestamp']) - first) * 1000)).toEqual([0, 5000, 35_000]);
  });

  it('DeliveryWorker: can be handed to the engine as a JobRunner', async () => {
    const runner: JobRunner = worker(fakeSender().send);
    expect(runner.name).toBe('webhook-delivery');
    expect(await runner.nextDueAt()).toBeNull();
  });

  it('runDue: configured retry delays are used', async () => {
    insertSubscription(db, { workspaceId: ws });
    const { sent, send } = fakeSender(() => FAIL);
    const w = worker(send, { retryDelays: [100, 200] });
    await queue.enqueueEvent({ workspaceId: ws, eventType: 'message:new', payload: {}, now: clock.now() });
    await w.runDue();
    clock.advance(100);
    await w.runDue();
    clock.advance(200);
    await w.runDue();
    expect(sent).toHaveLength(3);
  });

  it('runDue: every request is signed so the standardwebhooks package verifies it; a redelivery keeps its webhook-id', async () => {
    clock.set(Date.now()); // standardwebhooks checks the timestamp against the real clock
    const secret = generateSecret();
    insertSubscription(db, { workspaceId: ws, secret, url: 'https://hooks.example.com/in' });
    const { sent, send } = fakeSender();
    const w = worker(send);
    const [id] = await queue.enqueueEvent({ workspaceId: ws, eventType: 'message:new', payload: { event_type: 'message:new', message: { message_uid: 'u1' } }, now: clock.now() });
    await w.runDue();
    await queue.redeliver(id!, clock.now());
    await w.runDue();
    expect(sent).toHaveLength(2);
    for (const req of sent) {
      expect(req.url).toBe('https://hooks.example.com/in');
      expect(new Webhook(secret).verify(req.body, req.headers)).toEqual({ event_type: 'message:new', message: { message_uid: 'u1' } });
      expect(verify({ secret, body: req.body, headers: req.headers, nowMs: clock.now() }).valid).toBe(true);
      expect(req.headers['user-agent']).toBe('svc-webhooks/1');
    }
    expect(sent[1]!.headers['webhook-id']).toBe(sent[0]!.headers['webhook-id']);
  });

  it('tick: a slow endpoint never holds up deliveries to other subscriptions', async () => {
    const slow = insertSubscription(db, { workspaceId: ws, eventType: 'message:new', url: 'https://slow.example.com' });
    const fast = insertSubscription(db, { workspaceId: ws, eventType: 'chat:created', url: 'https://fast.example.com' });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { sent, send } = fakeSender(async (req) => {
      if (req.subscriptionId === slow) await gate;
      return OK;
    });
    const w = worker(send, { concurrency: 4, perSubscriptionCap: 1 });
    for (let i = 0; i < 5; i++) await queue.enqueueEvent({ workspaceId: ws, eventType: 'message:new', payload: { i }, now: clock.now() });
    for (let i = 0; i < 6; i++) await queue.enqueueEvent({ workspaceId: ws, eventType: 'chat:created', payload: { i }, now: clock.now() });
    const done = w.runDue();
    await expect.poll(() => sent.filter((r) => r.subscriptionId === fast).length).toBe(6);
    expect(sent.filter((r) => r.subscriptionId === slow)).toHaveLength(1); // capped, and stuck
    const fastDone = db.prepare(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE subscription_id = ? AND status = 'succeeded'`).get(fast);
    expect(fastDone).toEqual({ n: 6 });
    release();
    expect(await done).toBe(11);
  });

  it('tick: a worker that died mid-delivery loses nothing; another process takes over when the lease runs out', async () => {
    insertSubscription(db, { workspaceId: ws });
    const hung = fakeSender(() => new Promise<SendOutcome>(() => {})); // the "killed" process never finishes
    // Not registered for afterEach: its delivery never finishes, so stop() would wait forever.
    const dead = new DeliveryWorker({ outbox, clock, send: hung.send, owner: 'dead', leaseMs: 30_000 });
    const [id] = await queue.enqueueEvent({ workspaceId: ws, eventType: 'message:new', payload: {}, now: clock.now() });
    expect(await dead.tick()).toBe(1);
    const alive = fakeSender();
    const other = new DeliveryWorker({ outbox, clock, send: alive.send, owner: 'other', leaseMs: 30_000 });
    expect(await other.runDue()).toBe(0);
    clock.advance(30_000);
    expect(await other.runDue()).toBe(1);
    expect(statusOf(id!)).toBe('succeeded');
    expect(alive.sent[0]!.headers['webhook-id']).toBe(hung.sent[0]!.headers['webhook-id']);
  });

  it('runDue: a sender that throws and a URL the policy now refuses become failed attempts', async () => {
    insertSubscription(db, { workspaceId: ws, url: 'http://hooks.example.com/plain' });
    const w = worker(async () => {
      throw new Error('boom');
    }, { urlPolicy: 'strict' });
    const [id] = await queue.enqueueEvent({ workspaceId: ws, eventType: 'message:new', payload: {}, now: clock.now() });
    await w.runDue();
    const attempt = db.prepare('SELECT ok, status_code, error FROM webhook_attempts WHERE delivery_id = ?').get(id);
    expect(attempt).toEqual({ ok: 0, status_code: null, error: 'url must use https on this server' });
  });

  describe('against a real receiver', () => {
    let receiver: Receiver;
    afterEach(async () => {
      await receiver.close();
    });

    it('httpSend: a receiver that fails once is retried after 5 s and verifies the signature', async () => {
      clock.set(Date.now());
      const secret = generateSecret();
      let calls = 0;
      const verified: unknown[] = [];
      receiver = await startReceiver((req, res) => {
        verified.push(new Webhook(secret).verify(req.body, req.headers as Record<string, string>));
        res.writeHead(++calls === 1 ? 500 : 200).end();
      });
      const sub = insertSubscription(db, { workspaceId: ws, secret, url: `${receiver.url}/hooks` });
      const dispatcher = createWebhookDispatcher('dev');
      const w = worker(httpSend(dispatcher, 1000));
      await queue.enqueueEvent({ workspaceId: ws, eventType: 'message:new', payload: { event_type: 'message:new' }, now: clock.now() });
      await w.runDue();
      clock.advance(5000);
      await w.runDue();
      expect(verified).toEqual([{ event_type: 'message:new' }, { event_type: 'message:new' }]);
      const attempts = db.prepare('SELECT attempt_number, ok, status_code, error FROM webhook_attempts ORDER BY id').all();
      expect(attempts).toEqual([
        { attempt_number: 1, ok: 0, status_code: 500, error: 'receiver answered 500' },
        { attempt_number: 2, ok: 1, status_code: 200, error: null },
      ]);
      expect(counter(sub)).toBe(0);
      await dispatcher.close();
    });
  });
});
