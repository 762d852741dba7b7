import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/http/server/build-server.js';
import { STORES, storeTestEngine } from '../support/store-engine.js';
import { RUNS, expectAlive, expectCleanRefusal, hostileBody, hostileId, nulFields, withNul } from '../support/hostile-input.js';

const WRITE_ROUTES: Array<[method: 'POST' | 'PATCH' | 'PUT', path: (id: string) => string]> = [
  ['POST', () => '/api/messages'],
  ['POST', () => '/api/messages/to_chat_name'],
  ['POST', (id) => `/api/chats/${id}/messages`],
  ['PATCH', (id) => `/api/chats/${id}`],
  ['POST', () => '/api/attachment_templates'],
  ['POST', () => '/api/webhooks'],
  ['PUT', (id) => `/api/webhooks/${id}`],
  ['POST', () => '/api/webhooks/trigger'],
  ['POST', () => '/sim/accounts/connect'],
  ['POST', () => '/sim/messages'],
  ['POST', () => '/sim/reactions'],
];

const READ_ROUTES: Array<(id: string) => string> = [
  (id) => `/api/messages/${id}`,
  (id) => `/api/chats/${id}`,
  (id) => `/api/chats/${id}/messages`,
  (id) => `/api/chats?page=${id}`,
  (id) => `/api/files/${id}`,
  (id) => `/api/files?page=${id}`,
  (id) => `/api/webhooks/${id}`,
  (id) => `/api/attachment_templates?page=${id}`,
  (id) => `/api/messenger_accounts?page=${id}`,
  (id) => `/files/${id}?expires=${id}&signature=${id}`,
];

// Run on both stores: the same hostile input must get the same clean answer from either.
for (const store of STORES) {
  describe(`hostile input: Public API on ${store}`, () => {
    let app: FastifyInstance;
    let token: string;
    let t: Awaited<ReturnType<typeof storeTestEngine>>;

    beforeAll(async () => {
      t = await storeTestEngine(store);
      token = t.local.token;
      await t.api.sendToPhone({ phone: '+14155550123', text: 'seed' });
      app = buildServer({ engine: t.engine, rateLimitPerMinute: 0, bodyLimitBytes: 1024 * 1024 });
      await app.ready();
    });
    afterAll(async () => {
      await app?.close();
      await t?.drop();
    });

    it.each(WRITE_ROUTES)('%s %s: any body or path id gets a clean 4xx or a 2xx, never a 5xx', async (method, path) => {
      await fc.assert(
        fc.asyncProperty(hostileBody, hostileId, fc.constantFrom('application/json', 'text/plain', 'application/json; charset=latin1'), async (body, id, type) => {
          const response = await app.inject({ method, url: path(id), payload: body, headers: { authorization: `Bearer ${token}`, 'content-type': type } });
          expectCleanRefusal(response);
        }),
        { numRuns: RUNS },
      );
      await expectAlive(app);
    });

    it.each(WRITE_ROUTES)('%s %s: a NUL character in any text field or the path id is a 400 validation_error', async (method, path) => {
      await fc.assert(
        fc.asyncProperty(nulFields, fc.oneof(fc.constant('1'), withNul.map(encodeURIComponent)), async (body, id) => {
          fc.pre(JSON.stringify(body).includes('\\u0000') || id.includes('%00'));
          const response = await app.inject({ method, url: path(id), payload: body, headers: { authorization: `Bearer ${token}` } });
          expect(response.statusCode, response.body).toBe(400);
          expect(response.json()).toMatchObject({ error_code: 'validation_error', message: expect.stringMatching(/NUL character/) });
        }),
        { numRuns: RUNS },
      );
    });

    it.each(READ_ROUTES.map((route) => [route('ID'), route] as const))('GET %s: hostile ids get a clean answer', async (_name, route) => {
      await fc.assert(
        fc.asyncProperty(hostileId, async (id) => {
          const response = await app.inject({ method: 'GET', url: route(id), headers: { authorization: `Bearer ${token}` } });
          expectCleanRefusal(response);
        }),
        { numRuns: RUNS },
      );
    });

    it('any route: a missing, malformed or foreign token gets 401 with no body', async () => {
      const badAuth = fc.oneof(fc.constant(undefined), fc.string(), fc.string().map((s) => `Bearer ${s}`), fc.constant('Bearer '), fc.constant(`Basic ${token}`));
      await fc.assert(
        fc.asyncProperty(badAuth, fc.constantFrom(...WRITE_ROUTES), hostileBody, async (authorization, [method, path], body) => {
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (authorization !== undefined) headers.authorization = authorization;
          const response = await app.inject({ method, url: path('1'), payload: body, headers });
          // A body too large may be refused before authentication; everything else is a bare 401.
          if (response.statusCode === 413) return expectCleanRefusal(response);
          if (response.statusCode !== 401) throw new Error(`expected 401, got ${response.statusCode} for ${authorization}`);
          expectCleanRefusal(response);
        }),
        { numRuns: RUNS },
      );
      await expectAlive(app);
    });
  });
}
