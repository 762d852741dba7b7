/**
 * `GET /`: where things are on this server, for a person who opened the root in a browser or pasted it as
 * `--base-url`. JSON by default; a short HTML page when the client prefers HTML.
 */
import type { FastifyPluginAsync } from 'fastify';
import { renderCardPage } from '../../partner/card-page.js';
import { connectPageHeaders, escapeHtml } from '../../partner/connect-page.js';
import { prefersHtml } from '../server/accept.js';
import { linkBase } from '../server/route-context.js';

/** The addresses a server answers on, from its origin. */
const serverAddresses = (origin: string, options: { metrics: boolean }) => ({
  public_api: `${origin}/api`,
  partner_api: `${origin}/partner`,
  openapi: { public_api: `${origin}/api/openapi.json`, partner_api: `${origin}/partner/openapi.json` },
  health: `${origin}/healthz`,
  ...(options.metrics ? { metrics: `${origin}/metrics` } : {}),
});

/** The HTML form of the same list: a card like the connection page's, with each address as a link. */
function indexPage(addresses: ReturnType<typeof serverAddresses>): string {
  const rows: Array<[string, string | undefined]> = [
    ['Public API (use as --base-url)', addresses.public_api],
    ['Partner API', addresses.partner_api],
    ['OpenAPI document of the Public API', addresses.openapi.public_api],
    ['OpenAPI document of the Partner API', addresses.openapi.partner_api],
    ['Health', addresses.health],
    ['Metrics (Prometheus text)', addresses.metrics],
  ];
  const items = rows
    .filter((row): row is [string, string] => row[1] !== undefined)
    .map(([label, url]) => `<li><span class="label">${escapeHtml(label)}</span><a href="${escapeHtml(url)}">${escapeHtml(url)}</a></li>`);
  return renderCardPage({
    title: 'svc',
    mode: 'standalone',
    wide: true,
    content: `<h1>svc</h1>\n<p class="note">This server answers on:</p>\n<ul class="links">\n${items.join('\n')}\n</ul>`,
  });
}

export const indexRoute =
  (options: { publicUrl: string | undefined; metrics: boolean }): FastifyPluginAsync =>
  async (app) => {
    app.get('/', { schema: { hide: true }, config: { rateLimit: false } }, async (request, reply) => {
      const addresses = serverAddresses(linkBase(request, options.publicUrl), options);
      if (!prefersHtml(request)) return { status: 'ok', data: { service: 'svc', ...addresses } };
      return reply.headers(connectPageHeaders({ mode: 'standalone' })).send(indexPage(addresses));
    });
  };
