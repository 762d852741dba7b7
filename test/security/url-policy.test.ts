import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildServer } from '../../src/http/server/build-server.js';
import type { ResolveHost } from '../../src/webhooks/guarded-dispatcher.js';
import { partnerFixture } from '../support/partner-fixtures.js';
import { testEngine } from '../support/test-engine.js';

/** Private, loopback, link-local and IPv4-mapped IPv6 targets, plus plain http: all refused on a strict server. */
const REFUSED_URLS = [
  'http://example.com/hook',
  'https://127.0.0.1/hook',
  'https://127.1.2.3:8443/hook',
  'https://10.0.0.1/hook',
  'https://172.16.5.4/hook',
  'https://192.168.1.1/hook',
  'https://169.254.169.254/latest/meta-data',
  'https://0.0.0.0/hook',
  'https://[::1]/hook',
  'https://[::ffff:127.0.0.1]/hook',
  'https://[::ffff:7f00:1]/hook',
  'https://[::ffff:a9fe:a9fe]/hook',
  'https://[fe80::1]/hook',
  'https://[fc00::1]/hook',
  'https://localhost/hook',
  'https://api.localhost/hook',
  'https://2130706433/hook', // 127.0.0.1 written as one number; WHATWG URL normalises it
  'https://0x7f.0.0.1/hook',
];

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function strictServer(parts: Parameters<typeof testEngine>[0] = {}) {
  const t = await testEngine({ ...parts, config: { dev: false, webhookRetryDelaysMs: [1000, 1000], ...parts.config } });
  const app = buildServer({ engine: t.engine, rateLimitPerMinute: 0 });
  cleanups.push(() => t.engine.close(), () => app.close());
  const call = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) => {
    const response = await app.inject({ method, url, headers: { authorization: `Bearer ${t.local.token}` }, ...(payload ? { payload } : {}) });
    return { status: response.statusCode, body: response.body === '' ? null : (response.json() as Record<string, any>) };
  };
  return { ...t, app, call };
}

describe('webhook URL policy on a strict server (no --dev)', () => {
  it.each(REFUSED_URLS)('POST /api/webhooks: %s is refused with validation_error and nothing is stored', async (url) => {
    const s = await strictServer();
    const created = await s.call('POST', '/api/webhooks', { event_type: 'message:new', url, enabled: true });
    expect(created.status).toBe(400);
    expect(created.body).toMatchObject({ status: 'error', error_code: 'validation_error' });
    expect((await s.call('GET', '/api/webhooks')).body?.data.items).toEqual([]);
  });

  it('PUT /api/webhooks/:id: every refused URL is refused on update and the stored URL is kept', async () => {
    const s = await strictServer();
    const created = await s.call('POST', '/api/webhooks', { event_type: 'message:new', url: 'https://example.com/hook', enabled: true });
    expect(created.status).toBe(200);
    const id = created.body?.data.id as number;
    const statuses = [];
    for (const url of REFUSED_URLS) statuses.push([url, (await s.call('PUT', `/api/webhooks/${id}`, { url })).body?.error_code]);
    expect(statuses).toEqual(REFUSED_URLS.map((url) => [url, 'validation_error']));
    expect((await s.call('GET', `/api/webhooks/${id}`)).body?.data.url).toBe('https://example.com/hook');
  });

  it('POST and PUT /partner/webhooks: the same policy applies to partner subscriptions', async () => {
    const fx = await partnerFixture();
    cleanups.push(() => fx.engine.close(), () => fx.app.close());
    for (const url of REFUSED_URLS) {
      const created = await fx.call('POST', '/webhooks', { event_type: 'api-token:rotated', url, enabled: true });
      expect([url, created.status, created.body.error_code]).toEqual([url, 400, 'validation_error']);
    }
    const ok = await fx.call('POST', '/webhooks', { event_type: 'api-token:rotated', url: 'https://example.com/p', enabled: true });
    expect(ok.status).toBe(200);
    const update = await fx.app.inject({ method: 'PUT', url: `/partner/webhooks/${ok.body.data.id}`, headers: fx.headers(), payload: { url: 'https://[::ffff:7f00:1]/x' } });
    expect(update.statusCode).toBe(400);
  });

  it('POST /api/webhooks: a public https URL is accepted (the policy is not simply "refuse all")', async () => {
    const s = await strictServer();
    expect((await s.call('POST', '/api/webhooks', { event_type: 'message:new', url: 'https://hooks.example.com/x', enabled: true })).status).toBe(200);
  });
});

describe('webhook delivery: DNS rebinding', () => {
  /** A plain receiver on 127.0.0.1 that counts every TCP connection it gets. */
  async function loopbackReceiver(): Promise<{ port: number; connections: () => number }> {
    let connections = 0;
    const server: Server = createServer((_req, res) => res.end('ok'));
    server.on('connection', () => (connections += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    return { port: (server.address() as AddressInfo).port, connections: () => connections };
  }

  /** Records every address undici dials and fails the dial at once, so nothing leaves this machine. */
  function recordDials(): string[] {
    const dialled: string[] = [];
    const fail = (options: { host?: string; hostname?: string }) => {
      dialled.push(String(options.host ?? options.hostname));
      const socket = new net.Socket();
      process.nextTick(() => socket.destroy(Object.assign(new Error('connect ECONNREFUSED (test)'), { code: 'ECONNREFUSED' })));
      return socket as tls.TLSSocket;
    };
    vi.spyOn(tls, 'connect').mockImplementation(fail as never);
    vi.spyOn(net, 'connect').mockImplementation(fail as never);
    return dialled;
  }

  it('delivery: a host that resolves public first and 127.0.0.1 on the next lookup never gets a connection to 127.0.0.1', async () => {
    const receiver = await loopbackReceiver();
    const dialled = recordDials();
    const lookups: string[] = [];
    const answers = ['203.0.114.7', '127.0.0.1', '127.0.0.1', '::ffff:127.0.0.1'];
    const rebinding: ResolveHost = async (hostname) => {
      const address = answers[Math.min(lookups.length, answers.length - 1)]!;
      lookups.push(`${hostname}=${address}`);
      return [{ address, family: address.includes(':') ? 6 : 4 }];
    };
    const s = await strictServer({ webhookResolveHost: rebinding });
    const hook = await s.call('POST', '/api/webhooks', { event_type: 'message:new', url: `https://rebind.example.com:${receiver.port}/hook`, enabled: true });
    expect(hook.status).toBe(200);
    const test = await s.call('POST', `/api/webhooks/${hook.body?.data.id}/test`);
    expect(test.status).toBe(200);

    for (let i = 0; i < 4; i += 1) {
      await s.engine.workers.runDue();
      s.clock.advance(1500);
    }
    const delivery = (await s.engine.webhooks(s.local.workspace_id).deliveries(hook.body?.data.id, 1)).items[0]!;
    expect(delivery.status).toBe('failed');
    expect(delivery.attempts).toHaveLength(3);
    expect(lookups.length).toBeGreaterThanOrEqual(2);
    // The first attempt dialled the public address it checked; later ones were refused before any dial.
    expect(dialled).toEqual(['203.0.114.7']);
    expect(JSON.stringify(delivery.attempts.slice(1))).toContain('resolves to a private address');
    expect(receiver.connections()).toBe(0);
  });

  it('delivery: a host whose one answer mixes a public and a private address is refused without dialling either', async () => {
    const receiver = await loopbackReceiver();
    const dialled = recordDials();
    const mixed: ResolveHost = async () => [{ address: '203.0.114.7', family: 4 }, { address: '10.0.0.5', family: 4 }];
    const s = await strictServer({ webhookResolveHost: mixed });
    const hook = await s.call('POST', '/api/webhooks', { event_type: 'message:new', url: `https://mixed.example.com:${receiver.port}/`, enabled: true });
    await s.call('POST', `/api/webhooks/${hook.body?.data.id}/test`);
    await s.engine.workers.runDue();
    const delivery = (await s.engine.webhooks(s.local.workspace_id).deliveries(hook.body?.data.id, 1)).items[0]!;
    expect(JSON.stringify(delivery.attempts[0])).toContain('resolves to a private address');
    expect(JSON.stringify(delivery.attempts[0])).not.toContain('10.0.0.5'); // the internal address stays unsaid
    expect(dialled).toEqual([]);
    expect(receiver.connections()).toBe(0);
  });
});
