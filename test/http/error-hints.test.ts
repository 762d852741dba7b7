import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createHttpClient } from '../../src/client/http-client.js';
import { SvcError } from '../../src/wire/errors.js';
import { buildServer } from '../../src/http/server/build-server.js';
import { testEngine } from '../support/test-engine.js';

describe('error hints over HTTP', () => {
  let app: FastifyInstance;
  let token: string;
  let base: string;

  beforeAll(async () => {
    const t = await testEngine();
    token = t.local.token;
    app = buildServer({ engine: t.engine, rateLimitPerMinute: 0 });
    base = `${await app.listen({ port: 0, host: '127.0.0.1' })}/api`;
  });
  afterAll(async () => app.close());

  it('GET /api/chats/:id: the error body carries the engine hint', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/chats/999', headers: { authorization: `Bearer ${token}` } });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ status: 'error', message: 'chat 999 not found', error_code: 'not_found', hint: 'list chats with `svc chats list`' });
  });

  it('http client: the hint reaches the SvcError, as with the local engine', async () => {
    const client = createHttpClient({ baseUrl: base, token });
    const error = await client.getChat(999).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    expect((error as SvcError).hint).toBe('list chats with `svc chats list`');
    await client.close();
  });
});
