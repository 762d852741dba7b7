/**
 * What a scrape of GET /metrics may cost: however many scrapers, the queue depths are read from the database
 * at most once a second (counted, on both stores), and with a metrics token only its holder is served.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine-api.js';
import { buildServer } from '../../src/http/server/build-server.js';
import { openEngine } from '../../src/runtime/open-engine.js';
import { createServerMetrics, type ServerMetricsOptions } from '../../src/runtime/metrics.js';
import { STORES, type Store } from '../contract/targets.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

interface Setup {
  app: FastifyInstance;
  engine: Engine;
  /** Queue-stats reads made so far. */
  reads: () => number;
}

describe('GET /metrics', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A server over a real engine on `store`, whose queue reads are counted. */
  async function setup(store: Store, options: ServerMetricsOptions & { token?: string } = {}): Promise<Setup> {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-metrics-scrape-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    let database: TestDatabase | undefined;
    if (store === 'postgres') {
      database = await createTestDatabase('metrics_scrape');
      cleanups.push(() => database!.drop());
    }
    const engine = await openEngine({ dataDir, dev: true, ...(database === undefined ? {} : { databaseUrl: database.url }) });
    cleanups.push(() => engine.close());
    const metrics = createServerMetrics(options);
    let reads = 0;
    metrics.watchQueues(
      () => {
        reads += 1;
        return engine.queueStats();
      },
      options.now ?? Date.now,
    );
    const app = buildServer({ engine, metrics, metricsToken: options.token });
    cleanups.push(() => app.close());
    return { app, engine, reads: () => reads };
  }

  const scrape = (app: FastifyInstance, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url: '/metrics', headers });

  for (const store of STORES) {
    it(`64 concurrent scrapes and 64 more within the second read the queues once; a second later they are read anew (${store})`, async () => {
      let now = 1_000_000;
      const { app, engine, reads } = await setup(store, { now: () => now });
      const first = await Promise.all(Array.from({ length: 64 }, () => scrape(app)));
      expect(first.map((r) => r.statusCode)).toEqual(Array(64).fill(200));
      expect(reads()).toBe(1);
      expect(new Set(first.map((r) => r.body)).size).toBe(1);
      expect(first[0]!.body).toMatch(/svc_queue_depth\{queue="send",state="queued"\} 0/);

      // A send is queued (no workers run here); within the second, scrapes still share the first render.
      const { workspace_id: ws } = await engine.admin.createWorkspace({ name: 'Scraped' });
      await engine.sim(ws).connect({ phone: '+15550007001' });
      await engine.workspace(ws).sendToPhone({ phone: '+14155550123', text: 'queued' });
      now += 999;
      for (let i = 0; i < 64; i += 1) expect((await scrape(app)).statusCode).toBe(200);
      expect(reads()).toBe(1);

      now += 1;
      const fresh = await Promise.all(Array.from({ length: 64 }, () => scrape(app)));
      expect(reads()).toBe(2);
      for (const res of fresh) expect(res.body).toMatch(/svc_queue_depth\{queue="send",state="queued"\} 1/);
    });
  }

  it('on the real clock, a scrape flood reads the queues at most once per second it lasted', async () => {
    const { app, reads } = await setup('sqlite');
    const started = Date.now();
    let scrapes = 0;
    while (Date.now() - started < 2500) {
      await Promise.all(Array.from({ length: 16 }, () => scrape(app)));
      scrapes += 16;
    }
    const seconds = (Date.now() - started) / 1000;
    expect(scrapes).toBeGreaterThan(64);
    expect(reads()).toBeGreaterThanOrEqual(2);
    expect(reads()).toBeLessThanOrEqual(Math.floor(seconds) + 1);
  });

  it('a failed read is not kept: the next scrape reads again', async () => {
    let now = 1_000_000;
    const metrics = createServerMetrics({ now: () => now });
    let calls = 0;
    metrics.watchQueues(async () => {
      calls += 1;
      if (calls === 1) throw new Error('database down');
      return { webhooks: [], sends: { count: 3, oldestCreatedAt: null }, ownerMail: { count: 0 } };
    }, () => now);
    await expect(metrics.render()).rejects.toThrow('database down');
    expect(await metrics.render()).toMatch(/svc_queue_depth\{queue="send",state="queued"\} 3/);
    expect(calls).toBe(2);
  });

  it('with a metrics token: 401 with WWW-Authenticate unless the exact bearer token is sent; nothing is rendered for a refusal', async () => {
    const token = 'm3tr1cs-t0ken-0123456789abcdef';
    const { app, reads } = await setup('sqlite', { token });
    const refused: Array<Record<string, string>> = [{}, { authorization: `Bearer ${token}x` }, { authorization: `Bearer ${token.slice(0, -1)}` }, { authorization: `Basic ${token}` }, { authorization: token }];
    for (const headers of refused) {
      const res = await scrape(app, headers);
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(res.body).toBe('');
    }
    expect(reads()).toBe(0);
    const ok = await scrape(app, { authorization: `Bearer ${token}` });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('svc_queue_depth');
    expect(ok.body).not.toContain(token);
    // Only /metrics asks for it: liveness stays open to the orchestrator.
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('without a metrics token, /metrics needs none (as before)', async () => {
    const { app } = await setup('sqlite');
    expect((await scrape(app)).statusCode).toBe(200);
  });
});
