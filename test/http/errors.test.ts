import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/http/server/build-server.js';
import { ERROR_CATALOGUE, type ErrorCode, SvcError } from '../../src/wire/errors.js';
import { TOKEN, auth, createFakeEngine, type FakeEngine } from '../support/fake-engine.js';

describe('envelope and error mapping', () => {
  let engine: FakeEngine;
  let app: FastifyInstance;
  let internal: unknown[];
  beforeEach(() => {
    engine = createFakeEngine();
    internal = [];
    app = buildServer({ engine, bodyLimitBytes: 2048, onInternalError: (error) => internal.push(error) });
  });
  afterEach(() => app.close());

  it('POST /api/messages: success is wrapped in the ok envelope', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/messages', headers: auth(), payload: { phone: '+14155550123', text: 'Hi' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ status: 'ok', data: { message_uid: 'msg_1', status: 'Pending', chat_id: 1, credits: 1 } });
  });

  const codes = (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).filter((code) => code !== 'unauthorized');
  for (const code of codes) {
    it(`POST /api/messages: engine error ${code} becomes HTTP ${ERROR_CATALOGUE[code].status} with the error body`, async () => {
      engine.failNext(new SvcError(code, `reason for ${code}`));
      const res = await app.inject({ method: 'POST', url: '/api/messages', headers: auth(), payload: { phone: '+1' } });
      expect(res.statusCode).toBe(ERROR_CATALOGUE[code].status);
      expect(res.json()).toEqual({ status: 'error', message: `reason for ${code}`, error_code: code });
    });
  }

  it('GET /api/chats: an unexpected error is a generic 500 that echoes nothing', async () => {
    engine.failNext(new Error(`database exploded near ${TOKEN}`));
    const res = await app.inject({ method: 'GET', url: '/api/chats', headers: auth() });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ status: 'error', message: 'Internal server error', error_code: 'internal_error' });
    expect(res.body).not.toContain(TOKEN);
    expect(internal).toHaveLength(1);
  });

  it('GET /api/nope: an unknown route is a 404 error body', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/nope?x=1', headers: auth() });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ status: 'error', error_code: 'not_found' });
  });

  it('GET /nowhere: unknown routes outside /api are 404 error bodies too', async () => {
    const res = await app.inject({ method: 'GET', url: '/nowhere' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error_code).toBe('not_found');
  });

  it('POST /api/messages: malformed JSON is a 400 validation_error', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/messages',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: '{"phone": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ status: 'error', message: 'Request body is not valid JSON', error_code: 'validation_error' });
  });

  it('POST /api/messages: an unsupported content type is a 400 validation_error', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/messages',
      headers: { ...auth(), 'content-type': 'text/plain' },
      payload: 'phone=+1',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error_code).toBe('validation_error');
  });

  it('POST /api/messages: a body over the limit is 413 payload_too_large', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/messages',
      headers: auth(),
      payload: { phone: '+14155550123', text: 'x'.repeat(4096) },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ status: 'error', error_code: 'payload_too_large' });
  });

  it('GET /api/messages/:uid: response fields outside the DTO are not serialised', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/messages/msg_9', headers: auth() });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.uid).toBe('msg_9');
    expect(data.reactions).toBeNull();
    expect(data.sent_at).toBeNull();
  });
});
