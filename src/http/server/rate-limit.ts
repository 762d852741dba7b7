/**
 * The per-caller rate limit: @fastify/rate-limit (hooks, per-route settings, X-RateLimit-* and Retry-After
 * headers, the 429 body) over a store of ours that applies the sliding window of src/http/server/sliding-window.ts,
 * in memory on one server or shared through the database by PostgreSQL replicas (src/http/server/shared-rate-limit.ts).
 * The plugin's store interface fits a sliding window: it hands the store the route's limit and window and
 * reads back a count and a time to wait.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Engine } from '../../engine/engine-api.js';
import { SvcError } from '../../wire/errors.js';
import { createSharedLimiter } from './shared-rate-limit.js';
import { type Limiter, createMemoryLimiter } from './sliding-window.js';

interface PluginAnswer {
  current: number;
  ttl: number;
}
type Callback = (error: Error | null, result?: PluginAnswer) => void;

/** Limits every route (except those with `config.rateLimit: false`) to `perMinute` requests in any 60 s per caller. */
export function useRateLimit(app: FastifyInstance, engine: Engine, perMinute: number): void {
  const shared = engine.sharedRateLimits === undefined ? undefined : createSharedLimiter(engine.sharedRateLimits);
  if (shared !== undefined) app.addHook('onClose', async () => shared.close());
  app.register(rateLimit, {
    max: perMinute,
    timeWindow: 60_000,
    keyGenerator: (request) => request.rateLimitKey ?? `ip:${request.ip}`,
    // Replicas on PostgreSQL count in the database, so the limit holds for the service, not per replica.
    store: pluginStore(shared ?? createMemoryLimiter(engine.clock)),
    errorResponseBuilder: (_request, context) =>
      new SvcError('rate_limit_exceeded', `Rate limit of ${context.max} requests a minute exceeded; retry in ${context.after}`),
  });
}

/** The store class the plugin instantiates (`new Store(options)`), answering from `limiter`. */
function pluginStore(limiter: Limiter) {
  return class SlidingWindowStore {
    constructor(
      _options?: unknown,
      readonly prefix = '',
    ) {}

    // The plugin passes the route's window and limit; its type declaration has not caught up with that yet.
    incr(key: string, callback: Callback, timeWindow = 60_000, max = 1): void {
      const answer = (admission: Awaited<ReturnType<Limiter['admit']>>): void =>
        // The plugin refuses when `current` passes `max`, and tells the caller `max - current` requests remain.
        callback(null, { current: admission.admitted ? max - admission.remaining : max + 1, ttl: admission.resetInMs });
      const admission = limiter.admit(`${this.prefix}${key}`, max, timeWindow);
      if (!(admission instanceof Promise)) return answer(admission);
      admission.then(answer, (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))));
    }

    /** A route with limits of its own counts in buckets of its own. */
    child(routeOptions: object): SlidingWindowStore {
      // The plugin passes the route's merged settings, with the route itself as `routeInfo`.
      const route = (routeOptions as { routeInfo?: { method?: unknown; url?: string } }).routeInfo;
      return new SlidingWindowStore(undefined, `${String(route?.method ?? '')} ${route?.url ?? ''}|`);
    }
  };
}
