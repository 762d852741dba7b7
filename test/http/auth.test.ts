import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/http/server/build-server.js';
import { SvcError } from '../../src/wire/errors.js';
import { TOKEN, auth, createFakeEngine, type FakeEngine } from '../support/fake-engine.js';

describe('bearer auth', () => {
  let engine: FakeEngine;
  let app: FastifyInstance;
  beforeEach(() => {
    engine = createFakeEngine();
    app = buildServer({ engine });
  });
  afterEach(() => app.close());

  it('POST /api/messages: missing token is 401 with an empty body', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/messages', payload: { phone: '+1', text: 'x' } });
    expect(res.statusCode).toBe(401);
    expect(res.body).toBe('');
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  it('GET /api/chats: unknown token is 401 with an empty body', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/chats', headers: auth('nope') });
    expect(res.statusCode).toBe(401);
    expect(res.body).toBe('');
  });

  it('GET /api/chats: a non-Bearer scheme is 401', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/chats', headers: { authorization: `Basic ${TOKEN}` } });
    expect(res.statusCode).toBe(401);
    expect(res.body).toBe('');
  });

  it('GET /api/chats: the scheme is case-insensitive', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/chats', headers: { authorization: `bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(200);
  });

  it('POST /api/messages: auth is checked before the body is validated', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/messages', payload: { nothing: 1 } });
    expect(res.statusCode).toBe(401);
  });

  it('POST /sim/accounts/connect: sim controls need the workspace token', async () => {
    const res = await app.inject({ method: 'POST', url: '/sim/accounts/connect', payload: { phone: '+15550002' } });
    expect(res.statusCode).toBe(401);
    expect(res.body).toBe('');
    const ok = await app.inject({ method: 'POST', url: '/sim/accounts/connect', headers: auth(), payload: { phone: '+15550002' } });
    expect(ok.json()).toEqual({ status: 'ok', data: { phone: '+15550002', status: 'connected' } });
  });

  it('GET /api/openapi.json: served without a token', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(res.statusCode).toBe(200);
  });

  it('GET /api/workspace: an unauthorized error thrown by the engine is also a bodiless 401', async () => {
    engine.failNext(new SvcError('unauthorized', 'token rotated'));
    const res = await app.inject({ method: 'GET', url: '/api/workspace', headers: auth() });
    expect(res.statusCode).toBe(401);
    expect(res.body).toBe('');
  });

  it('GET /api/workspace: the token picks the workspace', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/workspace', headers: auth('tok_other_0123456789') });
    expect(res.json().data.id).toBe(2);
  });
});
