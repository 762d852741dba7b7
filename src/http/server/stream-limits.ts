/**
 * Caps on open Server-Sent Events streams. A stream is one request that lives for minutes and polls the
 * database, so the per-minute rate limit says nothing about it: 1,000 streams on one QR link cost 61 % of a
 * core. Each stream is counted under its client address and under what it watches (a link, a session).
 */
import { SvcError } from '../../wire/errors.js';

/** Streams one client address may hold open at once, of every kind together. */
export const STREAMS_PER_CLIENT = 20;
/** Streams one connection link may have open at once (a page open on a few screens is normal). */
export const STREAMS_PER_LINK = 5;
/** Streams one listen session may have open at once: the one in use and one taking over from it. */
export const STREAMS_PER_LISTEN_SESSION = 2;

export interface StreamLimiter {
  /** Counts a new stream under each key, or throws 429 (counting nothing) when one is at its cap. Returns its release. */
  open(keys: ReadonlyArray<{ key: string; cap: number; what: string }>): () => void;
}

export function createStreamLimiter(): StreamLimiter {
  const open = new Map<string, number>();
  return {
    open(keys) {
      for (const { key, cap, what } of keys) {
        if ((open.get(key) ?? 0) >= cap) {
          throw new SvcError('rate_limit_exceeded', `Too many open event streams ${what} (at most ${cap})`, {
            hint: 'close a page or listener that is still open, then retry',
            details: { retryAfterSec: 10 },
          });
        }
      }
      for (const { key } of keys) open.set(key, (open.get(key) ?? 0) + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        for (const { key } of keys) {
          const left = (open.get(key) ?? 1) - 1;
          if (left <= 0) open.delete(key);
          else open.set(key, left);
        }
      };
    },
  };
}

export const clientStreamKey = (ip: string) => ({ key: `client:${ip}`, cap: STREAMS_PER_CLIENT, what: 'from this client address' });
