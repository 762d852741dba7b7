import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { buildServer } from '../../src/http/server/build-server.js';
import { openDatabase } from '../../src/store/database.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function server(dev: boolean) {
  const engine = createEngine({ database: new SqliteDatabase(openDatabase(':memory:')), clock: new FakeClock(), config: { dev }, webhookSend: async () => ({ ok: true, statusCode: 200, durationMs: 1, error: null }) });
  const { token } = await engine.ensureLocalWorkspace();
  const app = buildServer({ engine, rateLimitPerMinute: 0 });
  closers.push(async () => {
    await app.close();
    await engine.close();
  });
  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
    app.inject({ method, url: `/api${url}`, headers: { authorization: `Bearer ${token}` }, ...(payload === undefined ? {} : { payload }) });
  return { app, call };
}

describe('webhook routes', () => {
  it('routes: strict URL policy on svc serve; http and private addresses only with --dev', async () => {
    const strict = await server(false);
    for (const url of ['http://example.com/hook', 'https://127.0.0.1/hook', 'https://10.0.0.8/hook', 'https://localhost/hook']) {
      const res = await strict.call('POST', '/webhooks', { event_type: 'message:new', url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json()).toMatchObject({ status: 'error', error_code: 'validation_error' });
    }
    const accepted = await strict.call('POST', '/webhooks', { event_type: 'message:new', url: 'https://hooks.example.com/a' });
    expect(accepted.statusCode).toBe(200);
    const dev = await server(true);
    expect((await dev.call('POST', '/webhooks', { event_type: 'message:new', url: 'http://127.0.0.1:3000/hook' })).statusCode).toBe(200);
  });

  it('routes: envelope bodies; PUT is partial; DELETE answers {deleted, id}; secret only on creation or asked', async () => {
    const { call } = await server(true);
    const created = (await call('POST', '/webhooks', { event_type: 'message:new', url: 'http://localhost/a' })).json();
    expect(created).toMatchObject({ status: 'ok', data: { event_type: 'message:new', enabled: true, errors_counter: 0 } });
    const id = created.data.id as number;
    expect(created.data.secret).toMatch(/^whsec_/);
    const got = (await call('GET', `/webhooks/${id}`)).json();
    expect(got.data).not.toHaveProperty('secret');
    expect((await call('GET', '/webhooks')).json().data).toEqual({ items: [got.data], page: 1, has_more_pages: false });
    expect((await call('PUT', `/webhooks/${id}`, { enabled: false })).json().data).toEqual({ ...got.data, enabled: false });
    expect((await call('PUT', `/webhooks/${id}`, { event_type: 'bogus' })).statusCode).toBe(400);
    expect((await call('GET', `/webhooks/${id}/secret`)).json().data).toEqual({ id, secret: created.data.secret });
    expect((await call('GET', `/webhooks/${id}/deliveries`)).json().data).toEqual({ items: [], page: 1, has_more_pages: false });
    expect((await call('POST', `/webhooks/${id}/test`)).statusCode).toBe(409);
    expect((await call('DELETE', `/webhooks/${id}`)).json()).toEqual({ status: 'ok', data: { deleted: true, id } });
    expect((await call('GET', `/webhooks/${id}`)).statusCode).toBe(404);
    expect((await call('GET', '/webhooks/abc')).statusCode).toBe(400);
  });

  it('routes: the webhook operations appear in /api/openapi.json', async () => {
    const { app } = await server(true);
    const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths['/webhooks'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/webhooks/{id}'] ?? {}).sort()).toEqual(['delete', 'get', 'put']);
    for (const path of ['/webhooks/{id}/secret', '/webhooks/{id}/deliveries', '/webhooks/{id}/deliveries/{deliveryId}/redeliver', '/webhooks/{id}/test']) {
      expect(doc.paths[path], path).toBeDefined();
    }
  });
});
