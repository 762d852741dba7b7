/** What a newcomer meets first on a server: its root, a path without /api, a wrong method, a cut-short link. */
import { afterEach, describe, expect, it } from 'vitest';
import { partnerFixture } from '../support/partner-fixtures.js';

let fx: Awaited<ReturnType<typeof partnerFixture>>;
afterEach(async () => {
  await fx.app.close();
  await fx.engine.close();
});

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('newcomer routes', () => {
  it('GET / lists the API, Partner API and OpenAPI addresses; JSON for clients, a page for browsers', async () => {
    fx = await partnerFixture({ publicUrl: 'https://svc.example' });
    const json = await fx.app.inject({ method: 'GET', url: '/' });
    expect(json.statusCode).toBe(200);
    expect(json.json().data).toMatchObject({
      public_api: 'https://svc.example/api',
      partner_api: 'https://svc.example/partner',
      openapi: { public_api: 'https://svc.example/api/openapi.json', partner_api: 'https://svc.example/partner/openapi.json' },
    });
    const page = await fx.app.inject({ method: 'GET', url: '/', headers: { accept: BROWSER } });
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('href="https://svc.example/api"');
  });

  it('a Public API path without /api gets a 404 whose hint names the /api route', async () => {
    fx = await partnerFixture();
    const missing = await fx.app.inject({ method: 'GET', url: '/workspace' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error_code: 'not_found', hint: 'the Public API is under /api: GET /api/workspace' });
    const partner = await fx.app.inject({ method: 'POST', url: '/workspaces' });
    expect(partner.json().hint).toBe('the Partner API is under /partner: POST /partner/workspaces');
    const unknown = await fx.app.inject({ method: 'GET', url: '/api/nothing-here' });
    expect(unknown.json().hint).toContain('/api/openapi.json');
  });

  it('a wrong method on an existing path is 405 with Allow and an error body', async () => {
    fx = await partnerFixture();
    const wrong = await fx.app.inject({ method: 'DELETE', url: '/api/messages' });
    expect(wrong.statusCode).toBe(405);
    expect(wrong.headers.allow).toBe('POST');
    expect(wrong.json()).toMatchObject({ status: 'error', error_code: 'method_not_allowed' });
    const withParams = await fx.app.inject({ method: 'POST', url: '/api/webhooks/7' });
    expect(withParams.statusCode).toBe(405);
    expect(withParams.headers.allow).toBe('DELETE, GET, HEAD, PUT');
  });

  it('/connect: a cut-short or unknown link is a 404 page for people, JSON for API clients; an expired one a 410 page', async () => {
    fx = await partnerFixture();
    const short = await fx.app.inject({ method: 'GET', url: '/connect/abc', headers: { accept: BROWSER } });
    expect(short.statusCode).toBe(404);
    expect(short.headers['content-type']).toMatch(/^text\/html/);
    expect(short.body).toContain('This connection link does not work');
    const api = await fx.app.inject({ method: 'GET', url: '/connect/abcdefghijklmnopqrstuvwxyz012345', headers: { accept: 'application/json' } });
    expect(api.statusCode).toBe(404);
    expect(api.json()).toMatchObject({ error_code: 'not_found' });

    const { workspace_id } = await fx.api.createWorkspace({ display_name: 'W', seats_purchased: 1 });
    const [user] = await fx.api.createUsers(workspace_id, { count: 1 });
    const link = await fx.api.createQrLink(workspace_id, user!.user_id, { expires_in_hours: 1 });
    fx.clock.advance(2 * 3600_000);
    const expired = await fx.app.inject({ method: 'GET', url: new URL(link.qr_link).pathname, headers: { accept: BROWSER } });
    expect(expired.statusCode).toBe(410);
    expect(expired.body).toContain('data-state="expired"');
  });
});
