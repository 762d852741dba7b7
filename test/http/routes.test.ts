import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/http/server/build-server.js';
import { SvcError } from '../../src/wire/errors.js';
import { auth, createFakeEngine, type FakeEngine } from '../support/fake-engine.js';

describe('Public API routes', () => {
  let engine: FakeEngine;
  let app: FastifyInstance;
  beforeAll(() => {
    engine = createFakeEngine();
    app = buildServer({ engine });
  });
  beforeEach(() => {
    engine.log.inputs.length = 0;
    engine.log.linkBases.length = 0;
  });
  afterAll(() => app.close());

  it('POST /api/messages/to_chat_name: answers with Deprecation and a successor Link', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/messages/to_chat_name',
      headers: { ...auth(), host: 'svc.example:8080' },
      payload: { chat_name: 'Alice', text: 'Hi' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers.deprecation).toBe('true');
    expect(res.headers.link).toBe('<http://svc.example:8080/api/messages>; rel="successor-version"');
    expect(res.json().data.message_uid).toMatch(/^msg_/);
  });

  it('POST /api/messages/to_chat_name: a failed call still carries the Deprecation header', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/messages/to_chat_name', headers: auth(), payload: {} });
    expect(res.statusCode).toBe(400);
    expect(res.headers.deprecation).toBe('true');
    engine.failNext(new SvcError('not_found', 'Chat Alice not found'));
    const missing = await app.inject({ method: 'POST', url: '/api/messages/to_chat_name', headers: auth(), payload: { chat_name: 'Alice' } });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers.deprecation).toBe('true');
  });

  it('GET /api/files/:uid: links start with the request origin when no public URL is set', async () => {
    await app.inject({ method: 'GET', url: '/api/workspace', headers: { ...auth(), host: 'files.example' } });
    expect(engine.log.linkBases).toEqual(['http://files.example']);
  });

  it('GET /api/workspace: a Host header that is not a host falls back to localhost', async () => {
    await app.inject({ method: 'GET', url: '/api/workspace', headers: { ...auth(), host: 'evil.example/"><script>' } });
    expect(engine.log.linkBases).toEqual(['http://localhost']);
  });

  it('GET /api/chats/:id: engine not_found is a 404 body', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/chats/999', headers: auth() });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ status: 'error', message: 'Chat 999 not found', error_code: 'not_found' });
  });

  it('PATCH /api/chats/:id: passes the body through', async () => {
    const res = await app.inject({ method: 'PATCH', url: '/api/chats/3', headers: auth(), payload: { name: 'Bob', responsible: '' } });
    expect(res.json().data).toMatchObject({ id: 3, name: 'Bob' });
    expect(engine.log.inputs).toEqual([[3, { name: 'Bob', responsible: '' }]]);
  });

  it('GET /api/chats/:id/messages: a page of messages', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/chats/3/messages?page=1', headers: auth() });
    expect(res.json().data).toMatchObject({ page: 1, has_more_pages: false, items: [{ uid: 'msg_a' }] });
  });

  it('GET /api/messenger_accounts: a page of the list in the envelope, as every list', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/messenger_accounts', headers: auth() });
    expect(res.json()).toMatchObject({ status: 'ok', data: { items: [{ phone: '+15550001', is_default_sender: true }], page: 1, has_more_pages: false } });
  });

  it('GET /api/workspace: the workspace with its quota', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/workspace', headers: auth() });
    expect(res.json().data.messaging_quota).toMatchObject({ total: 100, remaining: 99 });
  });

  it('POST /api/attachment_templates: creates, then GET lists it', async () => {
    const created = await app.inject({
      method: 'POST',
      url: '/api/attachment_templates',
      headers: auth(),
      payload: { name: 'Brochure', file_uid: 'file_x' },
    });
    expect(created.json().data).toMatchObject({ id: 1, name: 'Brochure' });
    const list = await app.inject({ method: 'GET', url: '/api/attachment_templates', headers: auth() });
    expect(list.json().data.items).toHaveLength(1);
  });

  it('POST /sim/messages, /sim/reactions and account controls: reach the sim API', async () => {
    const received = await app.inject({
      method: 'POST',
      url: '/sim/messages',
      headers: auth(),
      payload: { from: '+4915112345', to: '+15550001', text: 'Hi' },
    });
    expect(received.json().data).toMatchObject({ chat_id: 1 });
    const reacted = await app.inject({
      method: 'POST',
      url: '/sim/reactions',
      headers: auth(),
      payload: { message_uid: 'msg_1', emoji: '👍' },
    });
    expect(reacted.json().data).toEqual({ message_uid: 'msg_1', reactions: { '👍': '1' } });
    for (const [action, status] of [['disconnect', 'disconnected'], ['suspend', 'suspended'], ['resume', 'connected']]) {
      const res = await app.inject({ method: 'POST', url: `/sim/accounts/%2B15550001/${action}`, headers: auth() });
      expect(res.json().data).toEqual({ phone: '+15550001', status });
    }
  });
});

describe('Public API routes with a public URL', () => {
  it('GET /api/workspace: links start with the configured public URL', async () => {
    const engine = createFakeEngine();
    const app = buildServer({ engine, publicUrl: 'https://svc.example.com/' });
    await app.inject({ method: 'GET', url: '/api/workspace', headers: { ...auth(), host: 'internal:8080' } });
    expect(engine.log.linkBases).toEqual(['https://svc.example.com']);
    await app.close();
  });
});
