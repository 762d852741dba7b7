/**
 * The pages people open, without a browser: `GET /` and a dead connection link carry the connection page's
 * own inline stylesheet, byte for byte, under a CSP that allows exactly it; `GET /` lists what its JSON lists.
 * (test/browser/pages.test.ts looks at them in Chromium.)
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { buildServer } from '../../src/http/server/build-server.js';
import { CONNECT_PAGE_CSS } from '../../src/partner/connect-page-assets.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { createServerMetrics } from '../../src/runtime/metrics.js';
import { openDatabase } from '../../src/store/database.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const closing: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()));
});

function server(options: { metrics: boolean }) {
  const engine = createEngine({ database: new SqliteDatabase(openDatabase(':memory:')), clock: new FakeClock() });
  const app = buildServer({ engine, rateLimitPerMinute: 0, publicUrl: 'https://svc.example', ...(options.metrics ? { metrics: createServerMetrics() } : {}) });
  closing.push(() => app.close(), () => engine.close());
  return app;
}

const styleHash = `'sha256-${createHash('sha256').update(CONNECT_PAGE_CSS).digest('base64')}'`;

/** The page wears the card: the connection page's stylesheet inline, allowed by its hash, and a `main` card. */
function expectCard(response: { headers: Record<string, unknown>; body: string }): void {
  expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(response.body).toContain(`<style>${CONNECT_PAGE_CSS}</style>`);
  expect(String(response.headers['content-security-policy'])).toContain(`style-src ${styleHash}`);
  expect(response.body).toMatch(/<body data-mode="standalone">\s*<main/);
}

describe('pages for people', () => {
  it('GET / for a browser: the card, each address the JSON lists as a link, metrics included when served', async () => {
    const app = server({ metrics: true });
    const json = (await app.inject({ method: 'GET', url: '/' })).json() as { data: Record<string, unknown> };
    expect(json.data['metrics']).toBe('https://svc.example/metrics');
    const page = await app.inject({ method: 'GET', url: '/', headers: { accept: BROWSER } });
    expect(page.statusCode).toBe(200);
    expectCard(page);
    const links = [...page.body.matchAll(/<a href="([^"]+)">/g)].map((m) => m[1]);
    expect(links).toEqual([
      'https://svc.example/api',
      'https://svc.example/partner',
      'https://svc.example/api/openapi.json',
      'https://svc.example/partner/openapi.json',
      'https://svc.example/healthz',
      'https://svc.example/metrics',
    ]);
    expect(page.body).toContain('Metrics (Prometheus text)');
  });

  it('GET / without metrics lists no metrics link', async () => {
    const page = await server({ metrics: false }).inject({ method: 'GET', url: '/', headers: { accept: BROWSER } });
    expect(page.body).toContain('https://svc.example/healthz');
    expect(page.body).not.toContain('/metrics');
  });

  it('a connection link that does not work: the 404 page is the same card', async () => {
    const page = await server({ metrics: false }).inject({ method: 'GET', url: '/connect/abc', headers: { accept: BROWSER } });
    expect(page.statusCode).toBe(404);
    expectCard(page);
    expect(page.body).toContain('<p class="big warn">Link not found</p>');
  });
});
