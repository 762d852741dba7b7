import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/runtime/create-engine.js';
import { openDatabase } from '../../src/store/database.js';
import { startReceiver, type Receiver } from './helpers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A real-time engine (system clock, dev URL policy, real undici sends) with its workers running. */
function liveEngine(config: { webhookRetryDelaysMs?: number[] } = {}) {
  const engine = createEngine({ db: openDatabase(':memory:'), config: { dev: true, ...config } });
  const local = engine.ensureLocalWorkspace();
  engine.admin.updateWorkspace(local.workspace_id, { plan: 'business', send_interval_ms: 0 });
  engine.workers.start();
  cleanups.push(() => engine.close());
  return { engine, api: engine.workspace(local.workspace_id), sim: engine.sim(local.workspace_id), hooks: engine.webhooks(local.workspace_id) };
}

async function receiver(handle?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const r = await startReceiver(handle);
  cleanups.push(() => r.close());
  return r;
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('webhook delivery to real receivers', () => {
  it('end to end: send -> sim dispatch -> signed delivery that standardwebhooks verifies, SPEC 2.5 at the top level', async () => {
    const t = liveEngine();
    const rx = await receiver();
    const secrets = new Map<string, string>();
    for (const type of ['message:sent:new', 'message:new', 'message:received:new', 'chat:created']) {
      secrets.set(`/${type}`, t.hooks.create({ event_type: type, url: `${rx.url}/${type}` }).secret);
    }
    const sent = [1, 2, 3].map((n) => t.api.sendToPhone({ phone: `+491510000010${n}`, text: `hi ${n}` }).message_uid);
    const got = t.sim.receive({ from: '+4915100000101', to: '+15550000001', text: 'reply' });
    // 3 chats created, 3 sent (twice: sent:new and new), 1 received (twice).
    await until(() => rx.requests.length >= 3 + 6 + 2);
    await new Promise((r) => setTimeout(r, 200));
    expect(rx.requests).toHaveLength(11);
    for (const request of rx.requests) {
      const body = new Webhook(secrets.get(request.url)!).verify(request.body, request.headers as Record<string, string>) as Record<string, any>;
      expect(body.event_type).toBe(request.url.slice(1));
      if (body.event_type.startsWith('message:')) {
        expect(Object.keys(body).sort()).toEqual(['chat', 'event_type', 'message', 'messenger_account']);
      }
    }
    const uidsOf = (type: string) => rx.requests.filter((r) => r.url === `/${type}`).map((r) => JSON.parse(r.body).message.message_uid).sort();
    expect(uidsOf('message:sent:new')).toEqual([...sent].sort());
    expect(uidsOf('message:received:new')).toEqual([got.message_uid]);
  });

  it('failures: 500 and a 302 redirect both count as failed attempts; the redirect is not followed', async () => {
    const t = liveEngine({ webhookRetryDelaysMs: [60_000, 60_000] });
    const failing = await receiver((_req, res) => res.writeHead(500).end('boom'));
    const redirecting = await receiver((_req, res) => res.writeHead(302, { location: `${failing.url}/elsewhere` }).end());
    const a = t.hooks.create({ event_type: 'message:received:new', url: `${failing.url}/a` });
    const b = t.hooks.create({ event_type: 'message:received:new', url: `${redirecting.url}/b` });
    t.sim.receive({ from: '+4915100000201', to: '+15550000001', text: 'x' });
    const attempt = (id: number) => t.hooks.deliveries(id, 1).items[0]?.attempts[0];
    await until(() => attempt(a.id) !== undefined && attempt(b.id) !== undefined);
    expect(attempt(a.id)).toMatchObject({ status: 'failed', response_code: 500 });
    expect(attempt(b.id)).toMatchObject({ status: 'failed', response_code: 302 });
    expect(failing.requests.map((r) => r.url)).toEqual(['/a']);
    expect(t.hooks.deliveries(a.id, 1).items[0]!.status).toBe('pending');
  });

  it('timeout: an endpoint that does not answer within 5 s is a failed attempt (real time)', async () => {
    const t = liveEngine({ webhookRetryDelaysMs: [60_000, 60_000] });
    const silent = await receiver(() => undefined);
    const { id } = t.hooks.create({ event_type: 'message:received:new', url: `${silent.url}/slow` });
    t.sim.receive({ from: '+4915100000301', to: '+15550000001', text: 'x' });
    const attempt = () => t.hooks.deliveries(id, 1).items[0]?.attempts[0];
    await until(() => attempt() !== undefined, 9000);
    expect(attempt()).toMatchObject({ status: 'failed', response_code: null });
    expect(attempt()!.duration_ms).toBeGreaterThanOrEqual(4900);
    expect(attempt()!.error).toMatch(/time/i);
  }, 15_000);

  it('isolation: deliveries to one slow endpoint do not hold up another', async () => {
    const t = liveEngine();
    const slow = await receiver((_req, res) => setTimeout(() => res.end('ok'), 3000));
    const fast = await receiver();
    t.hooks.create({ event_type: 'message:received:new', url: `${slow.url}/slow` });
    t.hooks.create({ event_type: 'message:received:new', url: `${fast.url}/fast` });
    const started = Date.now();
    for (let n = 0; n < 12; n += 1) t.sim.receive({ from: `+4915100004${String(n).padStart(2, '0')}0`, to: '+15550000001', text: `m${n}` });
    await until(() => fast.requests.length === 12, 2500);
    expect(Date.now() - started).toBeLessThan(2500);
    // The slow endpoint has at most its per-subscription cap (8) in flight meanwhile.
    expect(slow.requests.length).toBeLessThanOrEqual(8);
    // The send dispatcher is not held up either: a send goes out while the slow deliveries are in flight.
    const uid = t.api.sendToPhone({ phone: '+4915100000499', text: 'while slow' }).message_uid;
    await until(() => t.api.getMessage(uid).status === 'Sent', 1500);
  }, 15_000);
});
