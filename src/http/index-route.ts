/**
 * `GET /`: where things are on this server, for a person who opened the root in a browser or pasted it as
 * `--base-url`. JSON by default; a short HTML page when the client prefers HTML.
 */
import type { FastifyPluginAsync } from 'fastify';
import { prefersHtml } from './accept.js';
import { linkBase } from './route-context.js';

/** The addresses a server answers on, from its origin. */
export const serverAddresses = (origin: string, options: { metrics: boolean }) => ({
  public_api: `${origin}/api`,
  partner_api: `${origin}/partner`,
  openapi: { public_api: `${origin}/api/openapi.json`, partner_api: `${origin}/partner/openapi.json` },
  health: `${origin}/healthz`,
  ...(options.metrics ? { metrics: `${origin}/metrics` } : {}),
});

const escapeHtml = (text: string): string => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

export const indexRoute =
  (options: { publicUrl: string | undefined; metrics: boolean }): FastifyPluginAsync =>
  async (app) => {
    app.get('/', { schema: { hide: true }, config: { rateLimit: false } }, async (request, reply) => {
      const addresses = serverAddresses(linkBase(request, options.publicUrl), options);
      if (!prefersHtml(request)) return { status: 'ok', data: { service: 'svc', ...addresses } };
      const link = (label: string, url: string) => `<li>${label}: <a href="${escapeHtml(url)}">${escapeHtml(url)}</a></li>`;
      return reply.type('text/html; charset=utf-8').send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>svc</title></head>
<body><h1>svc</h1><p>This server answers on:</p><ul>
${link('Public API (use as --base-url)', addresses.public_api)}
${link('Partner API', addresses.partner_api)}
${link('OpenAPI document of the Public API', addresses.openapi.public_api)}
${link('OpenAPI document of the Partner API', addresses.openapi.partner_api)}
${link('Health', addresses.health)}
</ul></body></html>`);
    });
  };
