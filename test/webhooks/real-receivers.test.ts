import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/runtime/create-engine.js';
import { openDatabase } from '../../src/store/database.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';
import { WEBHOOK_CAPS } from '../../src/workers/webhook-runner.js';
import { startReceiver, type Receiver } from '../support/webhook-helpers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A real-time engine (system clock, dev URL policy, real undici sends) with its workers running. */
async function liveEngine(config: { webhookRetryDelaysMs?: number[] } = {}) {
  const engine = createEngine({ database: new SqliteDatabase(openDatabase(':memory:')), config: { dev: true, ...config } });
  const local = await engine.ensureLocalWorkspace();
  await engine.admin.updateWorkspace(local.workspace_id, { plan: 'business', send_interval_ms: 0 });
  engine.workers.start();
  cleanups.push(() => engine.close());
  return { engine, api: engine.workspace(local.workspace_id), sim: engine.sim(local.workspace_id), hooks: engine.webhooks(local.workspace_id) };
}

async function receiver(handle?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const r = await startReceiver(handle);
  cleanups.push(() => r.close());
  return r;
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('webhook delivery to real receivers', () => {
  it('end to end: send -> sim dispatch -> signed delivery that standardwebhooks verifies, SPEC 2.5 at the top level', async () => {
    const t = await liveEngine();
    const rx = await receiver();
    const secrets = new Map<string, string>();
    for (const type of ['message:sent:new', 'message:new', 'message:received:new', 'chat:created']) {
      secrets.set(`/${type}`, (await t.hooks.create({ event_type: type, url: `${rx.url}/${type}` })).secret);
    }
    const sent: string[] = [];
    for (const n of [1, 2, 3]) sent.push((await t.api.sendToPhone({ phone: `+491510000010${n}`, text: `hi ${n}` })).message_uid);
    const got = await t.sim.receive({ from: '+4915100000101', to: '+15550000001', text: 'reply' });
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
    const t = await liveEngine({ webhookRetryDelaysMs: [60_000, 60_000] });
    const failing = await receiver((_req, res) => res.writeHead(500).end('boom'));
    const redirecting = await receiver((_req, res) => res.writeHead(302, { location: `${failing.url}/elsewhere` }).end());
    const a = await t.hooks.create({ event_type: 'message:received:new', url: `${failing.url}/a` });
    const b = await t.hooks.create({ event_type: 'message:received:new', url: `${redirecting.url}/b` });
    await t.sim.receive({ from: '+4915100000201', to: '+15550000001', text: 'x' });
    const attempt = async (id: number) => (await t.hooks.deliveries(id, 1)).items[0]?.attempts[0];
    await until(async () => (await attempt(a.id)) !== undefined && (await attempt(b.id)) !== undefined);
    expect(await attempt(a.id)).toMatchObject({ status: 'failed', response_code: 500 });
    expect(await attempt(b.id)).toMatchObject({ status: 'failed', response_code: 302 });
    expect(failing.requests.map((r) => r.url)).toEqual(['/a']);
    expect((await t.hooks.deliveries(a.id, 1)).items[0]!.status).toBe('pending');
  });

  it('timeout: an endpoint that does not answer within 5 s is a failed attempt (real time)', async () => {
    const t = await liveEngine({ webhookRetryDelaysMs: [60_000, 60_000] });
    const silent = await receiver(() => undefined);
    const { id } = await t.hooks.create({ event_type: 'message:received:new', url: `${silent.url}/slow` });
    await t.sim.receive({ from: '+4915100000301', to: '+15550000001', text: 'x' });
    const attempt = async () => (await t.hooks.deliveries(id, 1)).items[0]?.attempts[0];
    await until(async () => (await attempt()) !== undefined, 9000);
    expect(await attempt()).toMatchObject({ status: 'failed', response_code: null });
    expect((await attempt())!.duration_ms).toBeGreaterThanOrEqual(4900);
    expect((await attempt())!.error).toMatch(/time/i);
  }, 15_000);

  it('isolation: deliveries to one slow endpoint do not hold up another', async () => {
    const t = await liveEngine();
    const slow = await receiver((_req, res) => setTimeout(() => res.end('ok'), 3000));
    const fast = await receiver();
    await t.hooks.create({ event_type: 'message:received:new', url: `${slow.url}/slow` });
    await t.hooks.create({ event_type: 'message:received:new', url: `${fast.url}/fast` });
    const started = Date.now();
    // More events than the slow subscription may have in flight.
    const events = WEBHOOK_CAPS.perSubscription + 4;
    for (let n = 0; n < events; n += 1) await t.sim.receive({ from: `+4915100004${String(n).padStart(2, '0')}0`, to: '+15550000001', text: `m${n}` });
    await until(() => fast.requests.length === events, 2500);
    expect(Date.now() - started).toBeLessThan(2500);
    // The slow endpoint has at most its per-subscription cap in flight meanwhile.
    expect(slow.requests.length).toBeLessThanOrEqual(WEBHOOK_CAPS.perSubscription);
    // The send dispatcher is not held up either: a send goes out while the slow deliveries are in flight.
    const uid = (await t.api.sendToPhone({ phone: '+4915100000499', text: 'while slow' })).message_uid;
    await until(async () => (await t.api.getMessage(uid)).status === 'Sent', 1500);
  }, 15_000);
});
