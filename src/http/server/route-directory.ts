/**
 * Every route the server serves, collected as routes are added, so a request that matched none can get a
 * useful answer: 405 with `Allow` when the path exists under another method, else a 404 whose hint points at
 * the route that was probably meant (route-hints.ts). A miss under `/connect` is a broken link a person
 * followed, answered like one (connect-pages.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SvcError } from '../../wire/errors.js';
import { sendUnknownLink } from '../routes/connect/connect-pages.js';
import { errorBody } from './errors.js';
import { redactUrl } from './redact-url.js';
import { type RouteLookup, routeHint } from './route-hints.js';

interface KnownRoute {
  pattern: RegExp;
  methods: Set<string>;
}

// Exact, like the router: `/api/workspace/` is not `/api/workspace` (the 404 hint says so instead).
const toPattern = (url: string): RegExp =>
  new RegExp(`^${url.split('/').map((part) => (part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`);

export class RouteDirectory implements RouteLookup {
  private readonly known = new Map<string, KnownRoute>();

  /** Records routes from now on; call before any route is added. */
  watch(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      let known = this.known.get(route.url);
      if (known === undefined) {
        known = { pattern: toPattern(route.url), methods: new Set() };
        this.known.set(route.url, known);
      }
      for (const method of methods) known.methods.add(method.toUpperCase());
    });
  }

  /** The methods served for a concrete path; empty when no route has the path. */
  methodsOf(path: string): string[] {
    const methods = new Set<string>();
    for (const route of this.known.values()) if (route.pattern.test(path)) for (const m of route.methods) methods.add(m);
    return [...methods].sort();
  }

  routes(): Array<{ url: string; methods: string[] }> {
    return [...this.known].map(([url, route]) => ({ url, methods: [...route.methods].sort() }));
  }

  /** The not-found handler of the server. */
  readonly notFound = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const rawPath = request.url.split('?')[0] ?? '/';
    const path = redactUrl(rawPath);
    const allowed = this.methodsOf(rawPath);
    // A method the path does serve missed the router for another reason (a parameter constraint): not a 405.
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      const error = new SvcError('method_not_allowed', `${request.method} is not allowed on ${path}`, { hint: `use ${allowed.filter((m) => m !== 'HEAD').join(', ')}` });
      return reply.code(405).header('allow', allowed.join(', ')).send(errorBody(error));
    }
    if (/^\/connect\//i.test(rawPath)) return sendUnknownLink(request, reply);
    return reply.code(404).send(errorBody(new SvcError('not_found', `No route ${request.method} ${path}`, { hint: routeHint(this, request.method, path) })));
  };
}
