/** A request that matched no route: 405 with Allow for another method, else a 404 whose hint names the route meant. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partnerFixture } from '../support/partner-fixtures.js';

let fx: Awaited<ReturnType<typeof partnerFixture>>;
beforeAll(async () => {
  fx = await partnerFixture();
});
afterAll(async () => {
  await fx.app.close();
  await fx.engine.close();
});

const miss = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string) => {
  const response = await fx.app.inject({ method, url });
  return { status: response.statusCode, allow: response.headers.allow, body: response.json() as { error_code: string; message: string; hint: string } };
};

describe('route 404 hints', () => {
  it.each([
    ['GET', '/workspace', 'the Public API is under /api: GET /api/workspace'],
    ['GET', '/messages', 'the Public API is under /api: /api/messages answers POST'],
    ['POST', '/messages', 'the Public API is under /api: POST /api/messages'],
    ['PUT', '/chats/7', 'the Public API is under /api: /api/chats/7 answers GET, PATCH'],
    ['POST', '/workspaces', 'the Partner API is under /partner: POST /partner/workspaces'],
    ['GET', '/workspace/', 'drop the trailing slash; the Public API is under /api: GET /api/workspace'],
    ['GET', '/api/workspace/', 'drop the trailing slash: GET /api/workspace'],
    ['GET', '/api//workspace', 'the path has an empty segment: GET /api/workspace'],
    ['GET', '/api/api/workspace', 'the path repeats /api (is it in the base URL twice?): GET /api/workspace'],
    ['GET', '/API/Workspace', 'paths are lower case: GET /api/workspace'],
    ['GET', '/partner/workspace', 'that is a Public API path, under /api: GET /api/workspace'],
    ['POST', '/api/workspaces', 'that is a Partner API path, under /partner: POST /partner/workspaces'],
  ] as const)('%s %s: %s', async (method, url, hint) => {
    const { status, body } = await miss(method, url);
    expect(status).toBe(404);
    expect(body).toMatchObject({ status: 'error', error_code: 'not_found', message: `No route ${method} ${url}`, hint });
  });

  it('a misspelt path under /api or /partner names the nearest route, with its methods and the OpenAPI document', async () => {
    expect((await miss('GET', '/api/chat/12')).body.hint).toBe('did you mean GET|PATCH /api/chats/{id}? (every Public API route is in GET /api/openapi.json)');
    expect((await miss('GET', '/api/webhook/3/deliveries')).body.hint).toMatch(/^did you mean GET \/api\/webhooks\/\{id\}\/deliveries\?/);
    expect((await miss('GET', '/partner/workspaces/x/user')).body.hint).toBe('did you mean GET|POST /partner/workspaces/{id}/users? (every Partner API route is in GET /partner/openapi.json)');
  });

  it('an unknown path under an API lists its resources and the OpenAPI document; elsewhere the hint names both APIs', async () => {
    const api = (await miss('GET', '/api/zzzzzzzz')).body.hint;
    expect(api).toMatch(/^\/api has .*\/api\/chats, .*\/api\/messages, .*\/api\/workspace/);
    expect(api).toContain('every Public API route is in GET /api/openapi.json');
    expect((await miss('GET', '/partner/zzzzzzzz')).body.hint).toContain('/partner/workspaces; every Partner API route is in GET /partner/openapi.json');
    expect((await miss('GET', '/zzzzzzzz')).body.hint).toBe('this server serves /api (Public API) and /partner (Partner API); GET / lists its addresses');
  });

  it('405 only for a method the path does not serve: a path served under GET but missed by the router is a 404', async () => {
    const wrong = await miss('PUT', '/api/messages/some-uid');
    expect(wrong).toMatchObject({ status: 405, allow: 'GET, HEAD' });
    expect(wrong.body).toMatchObject({ error_code: 'method_not_allowed', message: 'PUT is not allowed on /api/messages/some-uid', hint: 'use GET' });
    const slash = await miss('GET', '/api/workspace/');
    expect(slash.status).toBe(404);
    expect(slash.allow).toBeUndefined();
  });
});
