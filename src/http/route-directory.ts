/**
 * Every route the server serves, collected as routes are added, so a request that matched none can get a
 * useful answer: 405 with `Allow` when the path exists under another method, else a 404 whose hint points at
 * the route that was probably meant (a Public API path without `/api`, say).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SvcError } from '../engine/errors.js';
import { errorBody, redactUrl } from './errors.js';

interface KnownRoute {
  pattern: RegExp;
  methods: Set<string>;
}

const toPattern = (url: string): RegExp =>
  new RegExp(`^${url.split('/').map((part) => (part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}/?$`);

export class RouteDirectory {
  private readonly routes = new Map<string, KnownRoute>();

  /** Records routes from now on; call before any route is added. */
  watch(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      let known = this.routes.get(route.url);
      if (known === undefined) {
        known = { pattern: toPattern(route.url), methods: new Set() };
        this.routes.set(route.url, known);
      }
      for (const method of methods) known.methods.add(method.toUpperCase());
    });
  }

  /** The methods served for a concrete path; empty when no route has the path. */
  methodsOf(path: string): string[] {
    const methods = new Set<string>();
    for (const route of this.routes.values()) if (route.pattern.test(path)) for (const m of route.methods) methods.add(m);
    return [...methods].sort();
  }

  /** The not-found handler of the server. */
  readonly notFound = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const path = redactUrl(request.url).split('?')[0] ?? '/';
    const allowed = this.methodsOf(request.url.split('?')[0] ?? '/');
    if (allowed.length > 0) {
      const error = new SvcError('method_not_allowed', `${request.method} is not allowed on ${path}`, { hint: `use ${allowed.filter((m) => m !== 'HEAD').join(', ')}` });
      return reply.code(405).header('allow', allowed.join(', ')).send(errorBody(error));
    }
    return reply.code(404).send(errorBody(new SvcError('not_found', `No route ${request.method} ${path}`, { hint: this.hintFor(request.method, path) })));
  };

  private hintFor(method: string, path: string): string {
    for (const area of ['/api', '/partner']) {
      if (!path.startsWith(`${area}/`) && this.methodsOf(`${area}${path}`).includes(method)) {
        return `the ${area === '/api' ? 'Public' : 'Partner'} API is under ${area}: ${method} ${area}${path}`;
      }
    }
    if (path.startsWith('/api/')) return 'the Public API routes are listed in GET /api/openapi.json';
    if (path.startsWith('/partner/')) return 'the Partner API routes are listed in GET /partner/openapi.json';
    return 'this server serves /api (Public API) and /partner (Partner API); GET / lists its addresses';
  }
}
