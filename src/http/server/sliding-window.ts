/**
 * The per-caller rate limit's rule, counted in memory (one `svc serve` on SQLite): a sliding window of
 * one-second buckets. A request at time t is admitted only while the buckets of the seconds that overlap
 * (t - window, t] hold fewer than the limit. The oldest of those seconds is counted whole although only part
 * of it lies in the window, so no window of that length ever holds more than the limit (ARCHITECTURE.md,
 * "The rate limit"); the price is that a caller is refused once the limit was reached within the last
 * window plus one second. PostgreSQL replicas apply the same rule in the database
 * (src/store/migrations/011-rate-limit-counters.ts).
 */
import type { Clock } from '../../wire/clock.js';

export const BUCKET_MS = 1000;

/** Seconds a window spans; the rule counts this many buckets plus the current one. */
export const spanOf = (windowMs: number): number => Math.max(1, Math.ceil(windowMs / BUCKET_MS));

/** What the limiter answers for one request. */
export interface Admission {
  admitted: boolean;
  /** Requests the caller may still make now (approximate across replicas). */
  remaining: number;
  /** Milliseconds until the oldest counted bucket leaves the window (a refused caller's Retry-After). */
  resetInMs: number;
}

/** Counts admitted requests per caller; `admit` answers at once or, across replicas, after the database did. */
export interface Limiter {
  admit(key: string, limit: number, windowMs: number): Admission | Promise<Admission>;
}

/** One caller's window: the seconds that had hits, oldest first, and their counts. */
class Window {
  private readonly seconds: number[] = [];
  private readonly hits: number[] = [];
  private total = 0;

  /** The newest second counted; time never runs backwards for a window, so a clock stepping back changes nothing. */
  newest = -Infinity;

  /** Counts one request at `nowMs` if the window has room; answers what the caller is told. */
  take(nowMs: number, limit: number, span: number): Admission {
    const second = Math.max(Math.floor(nowMs / BUCKET_MS), this.newest);
    while (this.seconds.length > 0 && this.seconds[0]! < second - span) {
      this.seconds.shift();
      this.total -= this.hits.shift()!;
    }
    const admitted = this.total < limit;
    if (admitted) {
      if (this.seconds.at(-1) === second) this.hits[this.hits.length - 1]! += 1;
      else {
        this.seconds.push(second);
        this.hits.push(1);
      }
      this.total += 1;
      this.newest = second;
    }
    // The oldest counted second leaves the window when second `oldest + span + 1` starts.
    const oldest = this.seconds[0];
    const resetInMs = oldest === undefined ? 0 : Math.max(0, (oldest + span + 1) * BUCKET_MS - nowMs);
    return { admitted, remaining: Math.max(0, limit - this.total), resetInMs };
  }
}

/** How often idle windows are forgotten, so memory follows the callers of the last minute. */
const SWEEP_EVERY_MS = 10_000;

/** The rule in memory, on the engine's clock (tests move it). */
export function createMemoryLimiter(clock: Clock): Limiter {
  const windows = new Map<string, { window: Window; span: number }>();
  let sweptAt = clock.now();
  const sweep = (nowMs: number): void => {
    sweptAt = nowMs;
    const second = Math.floor(nowMs / BUCKET_MS);
    for (const [key, entry] of windows) if (entry.window.newest < second - entry.span) windows.delete(key);
  };
  return {
    admit(key, limit, windowMs) {
      const nowMs = clock.now();
      if (Math.abs(nowMs - sweptAt) >= SWEEP_EVERY_MS) sweep(nowMs);
      let entry = windows.get(key);
      if (entry === undefined) windows.set(key, (entry = { window: new Window(), span: spanOf(windowMs) }));
      return entry.window.take(nowMs, limit, entry.span);
    },
  };
}
