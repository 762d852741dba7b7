import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/http/server/build-server.js';
import { auth, createFakeEngine, type FakeEngine } from '../support/fake-engine.js';

describe('request validation', () => {
  let engine: FakeEngine;
  let app: FastifyInstance;
  beforeAll(() => {
    engine = createFakeEngine();
    app = buildServer({ engine });
  });
  beforeEach(() => {
    engine.log.inputs.length = 0;
  });
  afterAll(() => app.close());

  const post = (url: string, payload: unknown) => app.inject({ method: 'POST', url, headers: auth(), payload: payload as object });

  it('POST /api/messages: a missing required field is a 400 naming it', async () => {
    const res = await post('/api/messages', { text: 'Hi' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ status: 'error', error_code: 'validation_error', message: 'body field "phone" is required' });
  });

  it('POST /api/messages: a wrongly typed field is a 400 naming it', async () => {
    const res = await post('/api/messages', { phone: '+14155550123', attachment_template_id: 'seven' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('body field "attachment_template_id" must be integer');
  });

  it('POST /api/messages: body values are not coerced between types', async () => {
    const asString = await post('/api/messages', { phone: '+14155550123', attachment_template_id: '7' });
    expect(asString.statusCode).toBe(400);
    const asNumber = await post('/api/messages', { phone: 14155550123 });
    expect(asNumber.json().message).toBe('body field "phone" must be string');
  });

  it('POST /api/messages: unknown fields are ignored and not passed to the engine', async () => {
    const res = await post('/api/messages', { phone: '+14155550123', text: 'Hi', future_field: { a: 1 } });
    expect(res.statusCode).toBe(200);
    expect(engine.log.inputs).toEqual([{ phone: '+14155550123', text: 'Hi' }]);
  });

  it('POST /api/messages: reply_to may be null', async () => {
    const res = await post('/api/messages', { phone: '+14155550123', text: 'Hi', reply_to: null });
    expect(res.statusCode).toBe(200);
  });

  it('POST /api/messages: a body that is not an object is a 400', async () => {
    const res = await post('/api/messages', [1, 2]);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/^body must be object/);
  });

  it('POST /api/messages/to_chat_name: chat_name is required', async () => {
    const res = await post('/api/messages/to_chat_name', { text: 'Hi' });
    expect(res.json().message).toBe('body field "chat_name" is required');
  });

  for (const url of ['/api/chats/abc', '/api/chats/1.5', '/api/chats/0', '/api/chats/-3']) {
    it(`GET ${url}: a path id that is not a positive integer is a 400`, async () => {
      const res = await app.inject({ method: 'GET', url, headers: auth() });
      expect(res.statusCode).toBe(400);
      expect(res.json().error_code).toBe('validation_error');
      expect(res.json().message).toMatch(/^path field "id"/);
    });
  }

  it('POST /api/chats/:id/messages: the path id reaches the engine as a number', async () => {
    const res = await post('/api/chats/12/messages', { text: 'Hi' });
    expect(res.statusCode).toBe(200);
    expect(engine.log.inputs).toEqual([[12, { text: 'Hi' }]]);
  });

  it('GET /api/chats: page defaults to 1', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/chats', headers: auth() });
    expect(res.json().data).toMatchObject({ page: 1, has_more_pages: false });
    expect(engine.log.inputs).toEqual([1]);
  });

  it('GET /api/chats: ?page=2 is passed on as a number', async () => {
    await app.inject({ method: 'GET', url: '/api/chats?page=2', headers: auth() });
    expect(engine.log.inputs).toEqual([2]);
  });

  for (const page of ['0', 'x', '1.5']) {
    it(`GET /api/files: ?page=${page} is a 400`, async () => {
      const res = await app.inject({ method: 'GET', url: `/api/files?page=${page}`, headers: auth() });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toMatch(/^query field "page"/);
    });
  }

  it('PATCH /api/chats/:id: responsible must be a string', async () => {
    const res = await app.inject({ method: 'PATCH', url: '/api/chats/1', headers: auth(), payload: { responsible: false } });
    expect(res.json().message).toBe('body field "responsible" must be string');
  });

  it('PUT /sim/numbers/:phone/unreachable: unreachable must be a boolean', async () => {
    const res = await app.inject({
      method: 'PUT',
      url: '/sim/numbers/%2B15550002/unreachable',
      headers: auth(),
      payload: { unreachable: 'yes' },
    });
    expect(res.statusCode).toBe(400);
    const ok = await app.inject({
      method: 'PUT',
      url: '/sim/numbers/%2B15550002/unreachable',
      headers: auth(),
      payload: { unreachable: true },
    });
    expect(ok.json().data).toEqual({ phone: '+15550002', unreachable: true });
  });
});
