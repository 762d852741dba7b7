/**
 * The webhook URL policy and the retry schedule belong to the instance (its database), not to the process that
 * opens it: a server without --dev marks the instance strict for every later process, local commands included,
 * and a server's retry schedule is the one every process's attempts follow. On SQLite and on PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import type { Engine } from '../../src/engine/engine-api.js';
import { serve, type RunningServer } from '../../src/http/serve.js';
import { openLocalClient } from '../../src/client/local-client.js';
import type { ListenDeliveryDto } from '../../src/wire/listen-types.js';
import { openEngine, type OpenEngineOptions } from '../../src/runtime/open-engine.js';
import type { ResolveHost } from '../../src/webhooks/guarded-dispatcher.js';
import { STORES, type Store } from '../contract/targets.js';
import { createTestDatabase } from '../support/postgres.js';
import { loopbackListener } from '../support/loopback-listener.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** What an attacker's DNS answers: every name is 127.0.0.1. No /etc/hosts entry is needed. */
const toLoopback: ResolveHost = async () => [{ address: '127.0.0.1', family: 4 }];

/** A data directory, or a fresh PostgreSQL database, as `openEngine` and `serve` take them. */
async function instance(store: Store): Promise<{ dataDir: string; databaseUrl?: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-instance-policy-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  if (store === 'sqlite') return { dataDir };
  const database = await createTestDatabase('instance_policy');
  cleanups.push(() => database.drop());
  return { dataDir, databaseUrl: database.url };
}

async function open(options: OpenEngineOptions): Promise<Engine> {
  const engine = await openEngine(options);
  cleanups.push(() => engine.close());
  return engine;
}

async function startServer(where: { dataDir: string; databaseUrl?: string }, options: { dev: boolean; webhookRetryDelaysMs?: number[] }): Promise<RunningServer> {
  const server = await serve({ ...where, port: 0, host: '127.0.0.1', metrics: false, rateLimitPerMinute: 0, log: () => undefined, ...options });
  cleanups.push(() => server.close());
  return server;
}

async function api(server: RunningServer, token: string, method: string, path: string, body?: object) {
  const response = await fetch(`${server.url}/api${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as { data: Record<string, any> } };
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

for (const store of STORES) {
  describe(`instance rules (${store})`, () => {
    it('a strict server marks the instance: a local engine opened on it later is strict and never dials loopback', async () => {
      const where = await instance(store);
      const setup = await open({ ...where });
      const { token, workspace_id: ws } = await setup.admin.createWorkspace({ name: 'Tenant' });
      await setup.close();
      const listener = await loopbackListener(cleanups);

      // The tenant subscribes through the strict server: the name looks public, so it is accepted.
      const server = await startServer(where, { dev: false });
      const created = await api(server, token, 'POST', '/webhooks', { event_type: 'message:received:new', url: `https://hooks.example.test:${listener.port}/h` });
      expect(created.status).toBe(200);
      await server.close();

      // With the server gone, a local engine (as every CLI command opens it: asking for development URLs),
      // whose webhook worker runs and whose DNS says 127.0.0.1.
      const local = await open({ ...where, dev: true, webhookResolveHost: toLoopback });
      local.workers.start();
      await local.webhooks(ws).trigger('message:received:new');
      const id = created.body.data['id'] as number;
      const deliveries = await until(() => local.webhooks(ws).deliveries(id, 1), (page) => page.items[0]?.attempts.length === 1, 5000);
      expect(listener.connections()).toBe(0);
      expect(deliveries.items[0]?.attempts[0]?.error).toMatch(/private address/);
      expect(local.webhookUrlPolicy).toBe('strict');
      // Nor can a local command subscribe a loopback URL on this instance.
      await expect(local.webhooks(ws).create({ event_type: 'message:new', url: `http://127.0.0.1:${listener.port}/h` })).rejects.toMatchObject({ code: 'validation_error' });
    });

    it('a local sandbox never served strictly keeps loopback URLs: the same delivery reaches the listener', async () => {
      const where = await instance(store);
      const listener = await loopbackListener(cleanups);
      const local = await open({ ...where, dev: true, webhookResolveHost: toLoopback });
      expect(local.webhookUrlPolicy).toBe('dev');
      const ws = (await local.ensureLocalWorkspace()).workspace_id;
      await local.webhooks(ws).create({ event_type: 'message:received:new', url: `http://127.0.0.1:${listener.port}/h` });
      await local.webhooks(ws).create({ event_type: 'message:received:new', url: `https://hooks.example.test:${listener.port}/h` });
      local.workers.start();
      await local.webhooks(ws).trigger('message:received:new');
      await until(async () => listener.connections(), (count) => count >= 2, 5000);
      expect(listener.connections()).toBeGreaterThanOrEqual(2);
    });

    it('svc serve --dev on a strict instance is refused until an operator lifts the mark; --strict marks a sandbox', async () => {
      const where = await instance(store);
      await (await startServer(where, { dev: false })).close();
      await expect(serve({ ...where, port: 0, host: '127.0.0.1', dev: true, metrics: false, log: () => undefined })).rejects.toMatchObject({
        code: 'conflict',
        message: expect.stringMatching(/strict/),
      });
      const admin = await open({ ...where });
      expect(await admin.admin.instanceSettings()).toMatchObject({ webhook_urls: 'strict' });
      expect(await admin.admin.updateInstanceSettings({ strict: false })).toMatchObject({ webhook_urls: 'local' });
      await admin.close();
      const dev = await startServer(where, { dev: true });
      await dev.close();
      const again = await open({ ...where });
      expect(await again.admin.updateInstanceSettings({ strict: true })).toMatchObject({ webhook_urls: 'strict' });
      await again.close();
      expect((await open({ ...where, dev: true })).webhookUrlPolicy).toBe('strict');
    });

    it('one retry schedule per instance: after `serve --webhook-retry-delays 1,1`, another process retries after 1 s, not 5 s', async () => {
      const where = await instance(store);
      await (await startServer(where, { dev: true, webhookRetryDelaysMs: [1000, 1000] })).close();

      // Every attempt fails, so the delivery is retried on the schedule.
      const attempts: number[] = [];
      const receiver = createHttpServer((req, res) => {
        attempts.push(Date.now());
        req.resume().on('end', () => res.writeHead(500).end());
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      cleanups.push(() => new Promise((resolve) => receiver.close(resolve)));
      const port = (receiver.address() as AddressInfo).port;

      // A process that did not name a schedule: a local engine, whose webhook worker makes the attempts.
      const other = await open({ ...where, dev: true });
      const ws = (await other.ensureLocalWorkspace()).workspace_id;
      await other.webhooks(ws).create({ event_type: 'message:received:new', url: `http://127.0.0.1:${port}/h` });
      other.workers.start();
      await other.webhooks(ws).trigger('message:received:new');
      await until(async () => attempts.length, (n) => n >= 3, 6000);
      expect(attempts).toHaveLength(3);
      const gaps = attempts.slice(1).map((at, i) => at - attempts[i]!);
      for (const gap of gaps) expect(gap).toBeLessThan(2500);
      expect(await other.admin.instanceSettings()).toMatchObject({ webhook_retry_delays_ms: [1000, 1000], webhook_retry_delays_default: false });

      // The next server, started without the flag, keeps the instance's schedule too.
      await other.close();
      const settings = await open({ ...where });
      expect(await settings.admin.instanceSettings()).toMatchObject({ webhook_retry_delays_ms: [1000, 1000] });
    });

    it('a running process follows a schedule another process set since: its next retry waits 1 s after the sweep', async () => {
      const where = await instance(store);
      const clock = new FakeClock(Date.now());
      const failing = createHttpServer((req, res) => req.resume().on('end', () => res.writeHead(500).end()));
      await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
      cleanups.push(() => new Promise((resolve) => failing.close(resolve)));

      // Opened before any schedule was set: the defaults (5 s, 30 s).
      const running = await open({ ...where, dev: true, clock });
      const ws = (await running.ensureLocalWorkspace()).workspace_id;
      const hook = await running.webhooks(ws).create({ event_type: 'message:received:new', url: `http://127.0.0.1:${(failing.address() as AddressInfo).port}/h` });
      await running.workers.runDue();

      await (await startServer(where, { dev: true, webhookRetryDelaysMs: [1000, 1000] })).close();
      clock.advance(20_000); // the next maintenance sweep reads the instance's settings again
      await running.workers.runDue();
      await running.webhooks(ws).trigger('message:received:new');
      await running.workers.runDue();
      const [delivery] = (await running.webhooks(ws).deliveries(hook.id, 1)).items;
      expect(delivery?.attempts).toHaveLength(1);
      expect(Date.parse(delivery!.next_attempt_at!) - clock.now()).toBe(1000);
    });

    it('a process running with development URLs turns strict at its next sweep once the instance is marked strict', async () => {
      const where = await instance(store);
      const clock = new FakeClock(Date.now());
      const listener = await loopbackListener(cleanups);
      const running = await open({ ...where, dev: true, clock, webhookResolveHost: toLoopback });
      const ws = (await running.ensureLocalWorkspace()).workspace_id;
      const hook = await running.webhooks(ws).create({ event_type: 'message:received:new', url: `https://hooks.example.test:${listener.port}/h` });
      await running.workers.runDue();
      expect(running.webhookUrlPolicy).toBe('dev');

      const operator = await open({ ...where });
      await operator.admin.updateInstanceSettings({ strict: true });
      await operator.close();
      clock.advance(20_000);
      await running.workers.runDue();
      expect(running.webhookUrlPolicy).toBe('strict');
      await expect(running.webhooks(ws).create({ event_type: 'message:new', url: `http://127.0.0.1:${listener.port}/h` })).rejects.toMatchObject({ code: 'validation_error' });
      await running.webhooks(ws).trigger('message:received:new');
      await running.workers.runDue();
      const [delivery] = (await running.webhooks(ws).deliveries(hook.id, 1)).items;
      expect(delivery?.attempts[0]?.error).toMatch(/private address/);
      expect(listener.connections()).toBe(0);
    });

    it('a CLI process on the instance (`svc webhooks listen`, local) schedules its retry on the instance\'s 1 s, not 5 s', async () => {
      const where = await instance(store);
      await (await startServer(where, { dev: true, webhookRetryDelaysMs: [1000, 1000] })).close();
      const client = await openLocalClient({ ...where });
      cleanups.push(() => client.close());
      const session = await client.listen.open({ events: ['message:received:new'] });
      cleanups.push(() => session.close());
      await client.webhooks.trigger('message:received:new');
      const iterator = session.deliveries()[Symbol.asyncIterator]();
      const delivery = (await iterator.next()).value as ListenDeliveryDto;
      const before = Date.now();
      const report = await session.report({ delivery_id: delivery.id, status_code: 500, duration_ms: 3, error: null });
      expect(report.status).toBe('retry_scheduled');
      const gap = Date.parse(report.next_attempt_at!) - before;
      expect(gap).toBeGreaterThanOrEqual(900);
      expect(gap).toBeLessThan(2000);
    });
  });
}
