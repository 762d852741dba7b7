import { postgresOnly, query, type SqlExecutor } from './sql.js';

/** One caller's request to the shared rate-limit counters, as a replica sends it once per batch. */
export interface SlotRequest {
  /** The caller's bucket (`workspace:7`, `ip:...`, with a route's prefix when it has limits of its own). */
  bucket: string;
  /** Slots for requests waiting now: granted as far as the window has room. */
  want: number;
  /** Slots to hold for the caller's next requests: at most a quarter of the room left after `want`. */
  ahead: number;
  limit: number;
  /** Seconds of the window; the rule counts `spanSeconds + 1` one-second buckets. */
  spanSeconds: number;
  /** Slots of an earlier grant this replica did not use, handed back to the second they were counted in. */
  giveBack?: { second: number; count: number } | undefined;
}

/** What the database granted one bucket; times are relative to the database's clock at the grant. */
export interface SlotGrant {
  bucket: string;
  granted: number;
  /** Room left in the window after this grant. */
  free: number;
  /** The second (Unix seconds, database clock) the granted slots are counted in. */
  second: number;
  /** Milliseconds until that second ends: the slots may be used only until then. */
  endsInMs: number;
  /** Milliseconds until the oldest counted second leaves the window (0 when nothing is counted). */
  freesInMs: number;
}

/**
 * Every bucket of a batch in one statement and one commit: `svc_rate_limit_reserve` (migration 11) locks each
 * bucket's row in name order, so replicas never deadlock, and reads the clock after the lock, so a bucket's
 * seconds only move forward.
 */
const RESERVE = postgresOnly<{ bucket: string; granted: number; free: number; second: number; ends_in_ms: number; frees_in_ms: number }>(
  `SELECT bucket, granted, free, second, ends_in_ms, frees_in_ms FROM svc_rate_limit_reserve(
     @buckets::text[], @wants::int[], @aheads::int[], @limits::int[], @spans::int[],
     @giveBackSeconds::bigint[], @giveBackCounts::int[], @nowMs::bigint)`,
);
const PURGE_COUNTERS = postgresOnly('DELETE FROM rate_limit_counters WHERE head < @beforeSecond');
/** Migration 9's table: replicas of older releases still count there during a rolling upgrade. */
const PURGE_WINDOWS = query('DELETE FROM rate_limit_windows WHERE window_start < @before');

/** Rate-limit counters shared by every replica on one PostgreSQL database. */
export function createRateLimitStore(sql: SqlExecutor) {
  return {
    /**
     * Grants slots for a batch of buckets (each bucket at most once). `nowMs` stands in for the database's
     * clock in tests; replicas leave it out, so every replica counts on the one clock they share.
     */
    reserve: async (requests: readonly SlotRequest[], nowMs?: number): Promise<SlotGrant[]> => {
      if (requests.length === 0) return [];
      const rows = await sql.all(RESERVE, {
        buckets: requests.map((r) => r.bucket),
        wants: requests.map((r) => r.want),
        aheads: requests.map((r) => r.ahead),
        limits: requests.map((r) => r.limit),
        spans: requests.map((r) => r.spanSeconds),
        giveBackSeconds: requests.map((r) => r.giveBack?.second ?? 0),
        giveBackCounts: requests.map((r) => r.giveBack?.count ?? 0),
        nowMs: nowMs ?? null,
      });
      return rows.map((row) => ({
        bucket: row.bucket,
        granted: row.granted,
        free: row.free,
        second: row.second,
        endsInMs: row.ends_in_ms,
        freesInMs: row.frees_in_ms,
      }));
    },
    /** Forgets counters untouched since `before` (ms): a window is a minute long, so an hour-old one is empty. */
    purge: async (before: number): Promise<number> =>
      (await sql.run(PURGE_WINDOWS, { before })) + (sql.dialect === 'postgres' ? await sql.run(PURGE_COUNTERS, { beforeSecond: Math.floor(before / 1000) }) : 0),
  };
}

export type RateLimitStore = ReturnType<typeof createRateLimitStore>;
/** What the HTTP layer's shared limiter needs of the store. */
export type SlotReservations = Pick<RateLimitStore, 'reserve'>;
