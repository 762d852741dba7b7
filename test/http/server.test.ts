import { type AddressInfo, connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/http/server/build-server.js';
import { useBearerAuth } from '../../src/http/routes/public/token-auth.js';
import { ok, workspaceApi } from '../../src/http/server/route-context.js';
import { OTHER_TOKEN, TOKEN, auth, createFakeEngine } from '../support/fake-engine.js';

describe('server', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('GET /healthz: ok without a token', async () => {
    app = buildServer({ engine: createFakeEngine() });
    const res = await app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('GET /healthz: 503 unavailable while the server drains an in-flight request', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => {
      started = resolve;
    });
    app = buildServer({
      engine: createFakeEngine(),
      apiRouteGroups: [
        async (scope) => {
          scope.get('/slow', async () => {
            started();
            await gate;
            return ok('done');
          });
        },
      ],
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    // One raw keep-alive connection: the health check arrives on it while the slow request is still running,
    // which is the case a draining server must answer (new connections are refused outright).
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString();
    });
    socket.write(`GET /api/slow HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`);
    await inFlight;
    const closing = app.close();
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await closing;
    await new Promise((resolve) => socket.once('close', resolve));
    const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200/);
    expect(first).toContain('"data":"done"');
    expect(second).toMatch(/^HTTP\/1\.1 503/);
    expect(second).toContain('"error_code":"unavailable"');
    app = undefined;
  });

  it('GET /api/chats: past the per-token limit is 429 rate_limit_exceeded with Retry-After', async () => {
    app = buildServer({ engine: createFakeEngine(), rateLimitPerMinute: 3 });
    for (let i = 0; i < 3; i++) {
      expect((await app.inject({ method: 'GET', url: '/api/chats', headers: auth() })).statusCode).toBe(200);
    }
    const limited = await app.inject({ method: 'GET', url: '/api/chats', headers: auth() });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ status: 'error', error_code: 'rate_limit_exceeded' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another token has its own bucket.
    expect((await app.inject({ method: 'GET', url: '/api/chats', headers: auth(OTHER_TOKEN) })).statusCode).toBe(200);
    // Health checks are never limited.
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('GET /api/chats: bad tokens are limited per client address, ahead of the 401', async () => {
    app = buildServer({ engine: createFakeEngine(), rateLimitPerMinute: 2 });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await app.inject({ method: 'GET', url: '/api/chats', headers: auth(`guess-${i}`) })).statusCode);
    }
    expect(statuses).toEqual([401, 401, 429]);
  });

  it('GET /api/chats: rateLimitPerMinute 0 turns limiting off', async () => {
    app = buildServer({ engine: createFakeEngine(), rateLimitPerMinute: 0 });
    for (let i = 0; i < 5; i++) {
      expect((await app.inject({ method: 'GET', url: '/api/chats', headers: auth() })).statusCode).toBe(200);
    }
  });

  it('GET /api/openapi.json: an OpenAPI 3.1 document of the Public API routes only', async () => {
    app = buildServer({ engine: createFakeEngine() });
    const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: '/api' }]);
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/attachment_templates',
      '/chats',
      '/chats/{id}',
      '/chats/{id}/messages',
      '/files',
      '/files/{uid}',
      '/files_upload',
      '/messages',
      '/messages/to_chat_name',
      '/messages/{uid}',
      '/messenger_accounts',
      '/webhooks',
      '/webhooks/listen',
      '/webhooks/listen/secret',
      '/webhooks/listen/{id}',
      '/webhooks/listen/{id}/results',
      '/webhooks/listen/{id}/stream',
      '/webhooks/trigger',
      '/webhooks/{id}',
      '/webhooks/{id}/deliveries',
      '/webhooks/{id}/deliveries/{deliveryId}/redeliver',
      '/webhooks/{id}/secret',
      '/webhooks/{id}/test',
      '/workspace',
    ]);
    expect(doc.paths['/messages/to_chat_name'].post.deprecated).toBe(true);
    expect(doc.paths['/messages'].post.requestBody.content['application/json'].schema.allOf[0].required).toEqual(['phone']);
    expect(Object.keys(doc.paths['/files_upload'].post.requestBody.content)).toEqual(['multipart/form-data']);
    expect(doc.components.securitySchemes.bearerAuth).toEqual({ type: 'http', scheme: 'bearer' });
  });

  it('apiRouteGroups: an extra group inside /api inherits bearer auth and the OpenAPI document', async () => {
    const engine = createFakeEngine();
    app = buildServer({
      engine,
      apiRouteGroups: [
        async (scope, ctx) => {
          scope.get('/extras', { schema: { summary: 'List extras' } }, async (request) =>
            ok({ workspace: (await workspaceApi(ctx, request).getWorkspace()).id }),
          );
        },
      ],
    });
    expect((await app.inject({ method: 'GET', url: '/api/extras' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/api/extras', headers: auth() })).json()).toEqual({
      status: 'ok',
      data: { workspace: 1 },
    });
    const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    expect(doc.paths['/extras'].get.summary).toBe('List extras');
  });

  it('areas: an extra area mounts at its prefix with its own auth, outside the Public API document', async () => {
    app = buildServer({
      engine: createFakeEngine(),
      areas: [
        {
          prefix: '/partner',
          plugin: async (scope, ctx) => {
            useBearerAuth(scope, ctx.engine);
            scope.get('/ping', async () => ok('pong'));
          },
        },
      ],
    });
    expect((await app.inject({ method: 'GET', url: '/partner/ping', headers: auth() })).json().data).toBe('pong');
    const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    expect(Object.keys(doc.paths)).not.toContain('/ping');
  });
});
