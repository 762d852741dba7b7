import jwt from 'jsonwebtoken';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { CreatedPartner } from '../../src/wire/partner-types.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { buildServer } from '../../src/http/server/build-server.js';
import { openDatabase } from '../../src/store/database.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';
import { startReceiver, type ReceivedRequest, type Receiver } from '../support/webhook-helpers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const PARTNER_EVENTS = [
  'messenger_account:connected',
  'messenger_account:disconnected',
  'api-token:rotated',
  'workspace:quota_near_full',
  'workspace:quota_full',
  'workspace:seats_full',
] as const;

/** A real-time engine (dev URL policy, workers and real undici deliveries) served on 127.0.0.1, port 0. */
async function liveServer() {
  const engine = createEngine({ database: new SqliteDatabase(openDatabase(':memory:')), config: { dev: true } });
  engine.workers.start();
  const app = buildServer({ engine, rateLimitPerMinute: 0 });
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  cleanups.push(async () => {
    await app.close();
    await engine.close();
  });
  return { engine, origin };
}

async function receiver(): Promise<Receiver> {
  const rx = await startReceiver();
  cleanups.push(() => rx.close());
  return rx;
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A Partner API call over real HTTP, its JWT signed by jsonwebtoken (not the server's jose). */
function partnerHttp(origin: string, partner: CreatedPartner) {
  return async <T = any>(method: string, path: string, body?: object): Promise<T> => {
    const token = jwt.sign({ partner_id: partner.partner_id }, partner.partner_secret, { algorithm: 'HS256', expiresIn: 300 });
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'x-svc-partner-id': partner.partner_id };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${origin}/partner${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const json = (await response.json()) as { status: string; data: T };
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json.data;
  };
}

/** Subscribes `url/<event>` to every partner event; returns the signing secret per path. */
async function subscribeAll(call: ReturnType<typeof partnerHttp>, url: string): Promise<Map<string, string>> {
  const secrets = new Map<string, string>();
  for (const event of PARTNER_EVENTS) {
    const created = await call<{ secret: string }>('POST', '/webhooks', { event_type: event, url: `${url}/${event}` });
    secrets.set(`/${event}`, created.secret);
  }
  return secrets;
}

/** Drives one partner's workspace through all six partner events, for real. */
async function triggerAll(engine: ReturnType<typeof createEngine>, call: ReturnType<typeof partnerHttp>, phone: string): Promise<number> {
  const { workspace_id: ws } = await call<{ workspace_id: number }>('POST', '/workspaces', { display_name: 'Shop', seats_purchased: 2 });
  await engine.admin.updateWorkspace(ws, { quota: 10, plan: 'business', send_interval_ms: 0 });
  const [user] = await call<Array<{ user_id: number }>>('POST', `/workspaces/${ws}/users`, { count: 1 });
  const { qr_link } = await call<{ qr_link: string }>('POST', `/workspaces/${ws}/users/${user!.user_id}/qr`, {});
  await engine.connect.scan({ qr_link, phone }); // messenger_account:connected
  await call('POST', `/workspaces/${ws}/users`, { count: 1 }); // 2 of 2 seats: workspace:seats_full
  for (let i = 0; i < 10; i += 1) {
    // 9 of 10 credits: quota_near_full; 10 of 10: quota_full.
    await engine.workspace(ws).sendToPhone({ phone: `+1415555${String(i).padStart(4, '0')}`, text: `n${i}` });
  }
  await call('POST', `/workspaces/${ws}/api-token`); // api-token:rotated
  await call('POST', `/workspaces/${ws}/users/${user!.user_id}/messenger/disconnect`); // messenger_account:disconnected
  return ws;
}

/** Checks both signatures of one partner delivery and returns its body. */
function verifyDelivery(request: ReceivedRequest, partner: CreatedPartner, secret: string): Record<string, any> {
  const partnerIdHeader = request.headers['x-svc-partner-id'];
  expect(partnerIdHeader).toBe(partner.partner_id);
  const claims = jwt.verify(String(request.headers['x-svc-signature']), partner.partner_secret, { algorithms: ['HS256'] }) as jwt.JwtPayload;
  expect(claims['partner_id']).toBe(partnerIdHeader);
  expect(claims.exp).toEqual(expect.any(Number));
  return new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as Record<string, any>;
}

describe('partner webhooks delivered to a real receiver', () => {
  it('each partner event arrives once, with a valid X-SVC-Signature and Standard Webhooks signature; two partners stay apart', async () => {
    const { engine, origin } = await liveServer();
    const acme = await engine.admin.createPartner({ name: 'Acme' });
    const other = await engine.admin.createPartner({ name: 'Other' });
    const [rxAcme, rxOther] = [await receiver(), await receiver()];
    const callAcme = partnerHttp(origin, acme);
    const callOther = partnerHttp(origin, other);
    const secretsAcme = await subscribeAll(callAcme, rxAcme.url);
    const secretsOther = await subscribeAll(callOther, rxOther.url);

    const wsAcme = await triggerAll(engine, callAcme, '+15550009001');
    await until(() => rxAcme.requests.length >= PARTNER_EVENTS.length);
    await new Promise((r) => setTimeout(r, 300));
    expect(rxAcme.requests.map((r) => r.url).sort()).toEqual(PARTNER_EVENTS.map((e) => `/${e}`).sort());
    // Nothing of Acme's workspace reaches the other partner.
    expect(rxOther.requests).toEqual([]);

    for (const request of rxAcme.requests) {
      const body = verifyDelivery(request, acme, secretsAcme.get(request.url)!);
      expect(body['event_type']).toBe(request.url.slice(1));
      expect(body['data']).toMatchObject({ workspace_id: wsAcme });
      // Another partner's secret does not verify it.
      expect(() => jwt.verify(String(request.headers['x-svc-signature']), other.partner_secret, { algorithms: ['HS256'] })).toThrow();
    }
    const byType = (rx: Receiver, type: string) => JSON.parse(rx.requests.find((r) => r.url === `/${type}`)!.body) as Record<string, any>;
    expect(byType(rxAcme, 'messenger_account:connected')['data']).toMatchObject({ phone: '+15550009001' });
    expect(byType(rxAcme, 'workspace:seats_full')['data']).toMatchObject({ seats_purchased: 2, seats_used: 2 });
    expect(byType(rxAcme, 'workspace:quota_near_full')['data']).toMatchObject({ quota_total: 10, quota_used: 9 });
    expect(byType(rxAcme, 'workspace:quota_full')['data']).toMatchObject({ quota_total: 10, quota_used: 10 });

    // The other partner's own workspace reaches only its receiver, signed with its own secret.
    const wsOther = await triggerAll(engine, callOther, '+15550009002');
    await until(() => rxOther.requests.length >= PARTNER_EVENTS.length);
    await new Promise((r) => setTimeout(r, 300));
    expect(rxAcme.requests).toHaveLength(PARTNER_EVENTS.length);
    for (const request of rxOther.requests) {
      expect(verifyDelivery(request, other, secretsOther.get(request.url)!)['data']).toMatchObject({ workspace_id: wsOther });
    }
    const acmeHooks = await callAcme<{ items: Array<{ id: number }> }>('GET', '/webhooks');
    const deliveries = await callAcme<{ items: Array<{ status: string }> }>('GET', `/webhooks/${acmeHooks.items[0]!.id}/deliveries`);
    expect(deliveries.items.map((d) => d.status)).toEqual(['succeeded']);
  });
});
