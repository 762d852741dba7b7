import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { FakeClock } from '../../src/wire/clock.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { buildServer } from '../../src/http/server/build-server.js';
import { createServerMetrics } from '../../src/runtime/metrics.js';
import { signPartnerJwt } from '../../src/partner/partner-jwt-sign.js';
import { openDatabase } from '../../src/store/database.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';

/**
 * The real server (buildServer over a real engine) on 127.0.0.1, port 0, with a partner and a workspace.
 * The engine runs on a fake clock, so a test turns the pairing window or expires a link by advancing it.
 * `metrics` serves GET /metrics too, as `svc serve` does.
 */
export async function startRealConnectServer(options: { metrics?: boolean } = {}) {
  const clock = new FakeClock(Date.now());
  const engine = createEngine({ database: new SqliteDatabase(openDatabase(':memory:')), clock });
  const partner = await engine.admin.createPartner({ name: 'Acme' });
  const metrics = options.metrics === true ? { metrics: createServerMetrics() } : {};
  const app: FastifyInstance = buildServer({ engine, rateLimitPerMinute: 0, ...metrics });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const origin = `http://127.0.0.1:${address.port}`;

  /** A Partner API call over the socket, as a partner would make it. */
  const partnerCall = async <T>(method: string, path: string, body?: object): Promise<T> => {
    const response = await fetch(`${origin}/partner${path}`, {
      method,
      headers: {
        authorization: `Bearer ${signPartnerJwt(partner.partner_id, partner.partner_secret, clock)}`,
        'x-svc-partner-id': partner.partner_id,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await response.json()) as { data: T };
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json.data;
  };
  const { workspace_id: ws } = await partnerCall<{ workspace_id: number }>('POST', '/workspaces', { display_name: 'Browser', seats_purchased: 10 });

  return {
    origin,
    clock,
    engine,
    /** A new user of the workspace and a QR link for it. */
    async newLink(expiresInHours = 24): Promise<{ userId: number; link: string }> {
      const [user] = await partnerCall<Array<{ user_id: number }>>('POST', `/workspaces/${ws}/users`, { count: 1 });
      const { qr_link } = await partnerCall<{ qr_link: string }>('POST', `/workspaces/${ws}/users/${user!.user_id}/qr`, {
        expires_in_hours: expiresInHours,
      });
      return { userId: user!.user_id, link: qr_link };
    },
    /** The simulated phone scans, over `POST /sim/scan` as `svc sim scan --base-url` does. */
    async scan(link: string, phone: string): Promise<void> {
      const response = await fetch(`${origin}/sim/scan`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ qr_link: link, phone }),
      });
      if (!response.ok) throw new Error(`scan: ${response.status} ${await response.text()}`);
    },
    async close(): Promise<void> {
      await app.close();
      await engine.close();
    },
  };
}

export type RealConnectServer = Awaited<ReturnType<typeof startRealConnectServer>>;

/** A partner's own site on another origin, embedding the connect page and recording what it posts. */
export async function startParentSite(): Promise<{ origin: string; close(): Promise<void> }> {
  const app = Fastify();
  app.get<{ Querystring: { src: string } }>('/partner-app', async (request, reply) => {
    const src = request.query.src.replace(/"/g, '&quot;');
    // The listener is registered before the iframe exists, so not even the first message can be missed.
    const html = `<!doctype html><html><head><title>Partner app</title><link rel="icon" href="data:,"></head><body>
<script>window.svcMessages = []; window.addEventListener('message', function (e) {
  window.svcMessages.push({ origin: e.origin, data: e.data }); });</script>
<iframe id="connect" src="${src}" width="320" height="380"></iframe></body></html>`;
    return reply.type('text/html; charset=utf-8').send(html);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { origin: `http://127.0.0.1:${address.port}`, close: () => app.close() };
}
