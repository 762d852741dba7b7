/**
 * @fastify/rate-limit's store interface over counters every replica shares (the `rate_limit_windows` table
 * on PostgreSQL), so N replicas behind a load balancer allow one caller the configured rate, not N times it.
 * A single server keeps the plugin's in-memory store: no write per request.
 */
interface RateLimitResult {
  current: number;
  ttl: number;
}

type Callback = (error: Error | null, result?: RateLimitResult) => void;

/** Counts one request in a bucket's current window and answers the window as it now stands. */
export interface SharedCounters {
  hit(bucket: string, windowMs: number, now: number): Promise<{ hits: number; windowStart: number }>;
}

/** The store class the plugin instantiates (`new Store(options)`) for the given shared counters. */
export function sharedRateLimitStore(counters: SharedCounters, now: () => number = Date.now) {
  return class SharedRateLimitStore {
    constructor(
      _options?: unknown,
      readonly prefix = '',
    ) {}

    // The plugin passes the route's window; its type declaration has not caught up with that yet.
    incr(key: string, callback: Callback, timeWindow = 60_000): void {
      const at = now();
      counters.hit(`${this.prefix}${key}`, timeWindow, at).then(
        ({ hits, windowStart }) => callback(null, { current: hits, ttl: Math.max(0, windowStart + timeWindow - at) }),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
    }

    /** A route with limits of its own counts in buckets of its own. */
    child(routeOptions: object): SharedRateLimitStore {
      // The plugin passes the route's merged settings, with the route itself as `routeInfo`.
      const route = (routeOptions as { routeInfo?: { method?: unknown; url?: string } }).routeInfo;
      return new SharedRateLimitStore(undefined, `${String(route?.method ?? '')} ${route?.url ?? ''}|`);
    }
  };
}
