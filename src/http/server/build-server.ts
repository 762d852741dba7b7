/**
 * Builds the HTTP server over an Engine, without listening (tests use `inject`, `serve` listens).
 * Layout of docs/api-behaviour.md: `/api` Public API, `/files` pre-signed downloads, `/sim` network controls,
 * `/partner` Partner API, `/connect` QR connection pages, `/healthz`. Later areas (`/partner`) and Public API groups (webhooks) plug in through `areas` and
 * `apiRouteGroups`, or by joining the default lists in this folder.
 */
import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyReply, type FastifyServerOptions } from 'fastify';
import type { Engine } from '../../engine/engine-api.js';
import { SvcError } from '../../wire/errors.js';
import { decorateAuth } from '../routes/public/token-auth.js';
import { useRateLimit } from './rate-limit.js';
import { downloadRoutes } from '../routes/files/download-routes.js';
import { indexRoute } from '../routes/index-route.js';
import { type RequestLogOptions, useRequestLog } from './request-log.js';
import { RouteDirectory } from './route-directory.js';
import { type InternalErrorListener, buildErrorHandler, errorBody } from './errors.js';
import { redactUrl } from './redact-url.js';
import { PUBLIC_API_ROUTE_GROUPS, publicApiPlugin } from '../routes/public/public-api-plugin.js';
import { type RouteContext, type RouteGroup, routeContextOf } from './route-context.js';
import { simRoutes } from '../routes/sim/sim-routes.js';
import { connectRoutes } from '../routes/connect/connect-routes.js';
import { partnerApiPlugin } from '../routes/partner/partner-api-plugin.js';
import { formatValidationErrors, refuseNulInUrl, validatorCompiler } from './validation.js';
import { useStrictJsonParser } from './strict-json.js';
import type { ServerMetrics } from '../../runtime/metrics.js';
import { requireMetricsToken } from './metrics-token.js';

/** An area of the server with its own prefix and authentication, e.g. `{ prefix: '/partner', plugin }`. */
export interface ServerArea {
  prefix: string;
  plugin: FastifyPluginAsync<RouteContext>;
}

/** Options of `buildServer`. */
export interface BuildServerOptions {
  engine: Engine;
  /** Origin for links handed out (`--public-url`); default: the request's protocol and Host. */
  publicUrl?: string | undefined;
  /** Requests in any 60 s per token (per client address without a valid token); 0 turns limiting off. */
  rateLimitPerMinute?: number | undefined;
  /** Largest JSON body, in bytes. */
  bodyLimitBytes?: number | undefined;
  /** Largest upload to `/api/files_upload`, in bytes. */
  fileLimitBytes?: number | undefined;
  /** Log requests as JSON lines (pino), with Authorization headers and signatures redacted. */
  logger?: boolean | undefined;
  /** Where the request log is written (default stdout); tests capture it to check what is logged. */
  logStream?: { write(line: string): void } | undefined;
  /** Called with each unexpected (500) error, e.g. to log it. */
  onInternalError?: InternalErrorListener | undefined;
  /** More Public API route groups, mounted inside `/api` after the built-in ones. */
  apiRouteGroups?: readonly RouteGroup[] | undefined;
  /** More top-level areas, mounted after the built-in ones. */
  areas?: readonly ServerArea[] | undefined;
  /** Prometheus metrics: served at GET /metrics (no rate limit) and fed a histogram of every request. */
  metrics?: ServerMetrics | undefined;
  /** When set, GET /metrics requires `Authorization: Bearer <metricsToken>` (`svc serve --metrics-token`). */
  metricsToken?: string | undefined;
  /** One redacted line per request (`svc serve` writes them to stderr). */
  requestLog?: RequestLogOptions | undefined;
}

export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** Builds the Fastify instance serving `engine`; call `listen` or `inject` on it. */
export function buildServer(opts: BuildServerOptions): FastifyInstance {
  const app = Fastify({
    logger: opts.logger === true ? { ...loggerOptions, ...(opts.logStream === undefined ? {} : { stream: opts.logStream }) } : false,
    bodyLimit: opts.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
    // Our own 503 below carries the error body; Fastify's would not.
    return503OnClosing: false,
    schemaErrorFormatter: formatValidationErrors,
    routerOptions: { maxParamLength: 256 },
    // The router answers a malformed URL or an overlong path segment itself, before any hook or error handler;
    // without this its answer would be Fastify's own body, not the catalogue's.
    frameworkErrors: (error, _request, reply) => {
      const invalidUrl = error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      const mapped = invalidUrl
        ? new SvcError('validation_error', 'The URL has a malformed or overlong path segment')
        : new SvcError('internal_error', 'Internal server error');
      void (reply as FastifyReply).code(mapped.status).send(errorBody(mapped));
    },
  });
  app.setValidatorCompiler(validatorCompiler);
  useStrictJsonParser(app);
  app.addHook('preValidation', refuseNulInUrl);
  app.setErrorHandler(buildErrorHandler(opts.onInternalError));
  if (opts.requestLog !== undefined) useRequestLog(app, opts.requestLog);
  const directory = new RouteDirectory();
  directory.watch(app);
  app.setNotFoundHandler(directory.notFound);
  decorateAuth(app);

  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    // Requests that still arrive on kept-alive connections while draining: refuse and drop the connection.
    reply.header('connection', 'close');
    done(new SvcError('unavailable', 'The server is shutting down', { hint: 'retry against another instance' }));
  });

  const perMinute = opts.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE;
  if (perMinute > 0) useRateLimit(app, opts.engine, perMinute);

  const ctx = routeContextOf(opts);
  app.register(healthRoutes, { engine: opts.engine });
  app.register(indexRoute({ publicUrl: opts.publicUrl, metrics: opts.metrics !== undefined }));
  if (opts.metrics !== undefined) useMetrics(app, opts.metrics, opts.metricsToken);
  app.register(publicApiPlugin, {
    prefix: '/api',
    ...ctx,
    groups: [...PUBLIC_API_ROUTE_GROUPS, ...(opts.apiRouteGroups ?? [])],
  });
  app.register(downloadRoutes, { prefix: '/files', ...ctx });
  app.register(simRoutes, { prefix: '/sim', ...ctx });
  app.register(partnerApiPlugin, { prefix: '/partner', ...ctx });
  app.register(connectRoutes, { prefix: '/connect', ...ctx });
  for (const area of opts.areas ?? []) app.register(area.plugin, { prefix: area.prefix, ...ctx });
  return app;
}

/**
 * Liveness (`/healthz`): answers while the process serves, whatever the database does, so an orchestrator
 * does not restart replicas for a database outage. Readiness (`/readyz`): answers only while the database
 * does too (503 `unavailable` otherwise), so a load balancer sends traffic elsewhere meanwhile. The closing
 * hook above turns both into a 503.
 */
const healthRoutes: FastifyPluginAsync<{ engine: Engine }> = async (app, { engine }) => {
  app.get('/healthz', { config: { rateLimit: false } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { rateLimit: false } }, async () => {
    await engine.checkDatabase();
    return { status: 'ok', database: 'ok' };
  });
};

/**
 * GET /metrics, outside /api (no tenant token) and outside the rate limit, so a scraper never competes with
 * tenants; with a metrics token, only a scraper holding it is served (src/http/server/metrics-token.ts).
 */
function useMetrics(app: FastifyInstance, metrics: ServerMetrics, token: string | undefined): void {
  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, not the URL: ids and tokens in paths must not become label values.
    metrics.httpRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  const onRequest = token === undefined ? [] : [requireMetricsToken(token)];
  app.get('/metrics', { config: { rateLimit: false }, schema: { hide: true }, onRequest }, async (_request, reply) =>
    reply.header('content-type', metrics.registry.contentType).send(await metrics.render()),
  );
}

const loggerOptions = {
  level: 'info',
  redact: ['req.headers.authorization', 'req.headers.cookie'],
  serializers: {
    req: (request: { method: string; url: string; ip?: string }) => ({
      method: request.method,
      url: redactUrl(request.url),
      remoteAddress: request.ip,
    }),
  },
} satisfies FastifyServerOptions['logger'];
