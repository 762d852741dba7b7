/** `/connect/...` failures: pages for the people who follow these links, the JSON error body for API clients. */
import { afterEach, describe, expect, it } from 'vitest';
import { partnerFixture } from '../support/partner-fixtures.js';

let fx: Awaited<ReturnType<typeof partnerFixture>>;
afterEach(async () => {
  await fx.app.close();
  await fx.engine.close();
});

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const UNKNOWN_CODE = 'abcdefghijklmnopqrstuvwxyz012345';

const get = (url: string, accept?: string) => fx.app.inject({ method: 'GET', url, ...(accept === undefined ? {} : { headers: { accept } }) });

describe('/connect error pages', () => {
  it('GET /connect/...: an unknown, cut-short or over-long link is a 404 page for a browser, wherever the path ends', async () => {
    fx = await partnerFixture();
    for (const url of [`/connect/${UNKNOWN_CODE}`, '/connect/abc', '/connect/', `/connect/${UNKNOWN_CODE}/extra`]) {
      const page = await get(url, BROWSER);
      expect(page.statusCode, url).toBe(404);
      expect(page.headers['content-type'], url).toBe('text/html; charset=utf-8');
      expect(page.headers['x-frame-options'], url).toBe('DENY');
      expect(page.body, url).toContain('<h1>This connection link does not work</h1>');
      expect(page.body, url).not.toContain('error_code');
    }
  });

  it('GET /connect/...: API clients and scripts keep the JSON error body with a hint', async () => {
    fx = await partnerFixture();
    for (const accept of ['application/json', '*/*', undefined]) {
      for (const url of [`/connect/${UNKNOWN_CODE}`, '/connect/abc', `/connect/${UNKNOWN_CODE}/extra`]) {
        const response = await get(url, accept);
        expect(response.statusCode, `${url} ${accept}`).toBe(404);
        expect(response.json(), `${url} ${accept}`).toEqual({
          status: 'error',
          message: 'connection link not found',
          error_code: 'not_found',
          hint: 'open the whole link again, or ask whoever sent it for a new one',
        });
      }
    }
  });

  it('GET /connect/{code}?display_mode=embedding: the 404 page stays framable inside the partner app', async () => {
    fx = await partnerFixture();
    const page = await get(`/connect/${UNKNOWN_CODE}?display_mode=embedding`, BROWSER);
    expect(page.statusCode).toBe(404);
    expect(page.headers['x-frame-options']).toBeUndefined();
    expect(page.body).toContain('This connection link does not work');
  });

  it('GET /connect/{code}: an expired link is a 410 page for a browser and a 410 `gone` body for an API client', async () => {
    fx = await partnerFixture();
    const { workspace_id } = await fx.api.createWorkspace({ display_name: 'W', seats_purchased: 1 });
    const [user] = await fx.api.createUsers(workspace_id, { count: 1 });
    const path = new URL((await fx.api.createQrLink(workspace_id, user!.user_id, { expires_in_hours: 1 })).qr_link).pathname;
    expect((await get(path, BROWSER)).statusCode).toBe(200);
    fx.clock.advance(2 * 3600_000);
    const page = await get(path, BROWSER);
    expect(page.statusCode).toBe(410);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('data-state="expired"');
    const api = await get(path, 'application/json');
    expect(api.statusCode).toBe(410);
    expect(api.json()).toEqual({
      status: 'error',
      message: 'connection link expired',
      error_code: 'gone',
      hint: 'ask for a new link; a new one replaces this one',
    });
  });
});
