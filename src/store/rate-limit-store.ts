import { query, type SqlExecutor } from './sql.js';

/**
 * Counts one request in its bucket's current window and answers the window as it now stands: a window that
 * has run out starts again at `now`. One statement, so concurrent replicas serialize on the bucket's row.
 */
const HIT = query<{ hits: number; window_start: number }>(
  `INSERT INTO rate_limit_windows (bucket, window_start, hits) VALUES (@bucket, @now, 1)
   ON CONFLICT (bucket) DO UPDATE SET
     hits = CASE WHEN rate_limit_windows.window_start + @windowMs <= @now THEN 1 ELSE rate_limit_windows.hits + 1 END,
     window_start = CASE WHEN rate_limit_windows.window_start + @windowMs <= @now THEN @now ELSE rate_limit_windows.window_start END
   RETURNING hits, window_start`,
);
const PURGE = query('DELETE FROM rate_limit_windows WHERE window_start < @before');

/** Rate-limit windows shared by every process on the database (PostgreSQL replicas). */
export function createRateLimitStore(sql: SqlExecutor) {
  return {
    hit: async (bucket: string, windowMs: number, now: number) => {
      const row = await sql.get(HIT, { bucket, windowMs, now });
      return { hits: row!.hits, windowStart: row!.window_start };
    },
    /** Forgets windows that started before `before` (every window that long over). */
    purge: (before: number) => sql.run(PURGE, { before }),
  };
}

export type RateLimitStore = ReturnType<typeof createRateLimitStore>;
