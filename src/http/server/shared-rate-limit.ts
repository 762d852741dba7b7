/**
 * The rate limit for PostgreSQL replicas: the sliding window of src/http/server/sliding-window.ts, counted in the
 * database that every replica shares, without a commit per request. A replica reserves slots in batches (one
 * statement for every caller that needs slots in an event-loop turn) and admits locally while it holds some.
 *
 * Why the limit holds for the service (ARCHITECTURE.md, "The rate limit"): slots are counted in the database
 * in the second (database clock) they are granted in, and a replica uses them only until that second ends,
 * measured from just before it sent the statement; so every admitted request happens within the second it is
 * counted in, and the database's check (the window's seconds hold at most the limit) is a check on requests.
 * Slots a replica did not use are given back once their second is over, in its next statement.
 */
import type { SlotGrant, SlotRequest, SlotReservations } from '../../store/rate-limit-store.js';
import { type Admission, type Limiter, spanOf } from './sliding-window.js';

/** Slots a replica may hold for a caller's next requests: a sixtieth of the limit (one second's share of a minute). */
export const aheadCap = (limit: number): number => Math.max(1, Math.floor(limit / 60));
/**
 * A caller the database refused is refused locally until its oldest second leaves the window, or until just
 * after the current second ends, when the slots other replicas held in it come back: at most about a second.
 */
const GIVE_BACK_GRACE_MS = 50;
/**
 * Admissions are counted per period of this length; what the last two held (the last 0.5-1 s) sizes the slots
 * asked ahead, so a caller busy on this replica costs about a statement or two a second here, not one per request.
 */
const RATE_PERIOD_MS = 500;
const SWEEP_EVERY_MS = 5_000;

interface Waiter {
  resolve(admission: Admission): void;
  reject(error: unknown): void;
}

interface Caller {
  readonly bucket: string;
  limit: number;
  span: number;
  /** Slots granted and not used yet, for second `second`, usable until `until` (performance.now()). */
  held: { second: number; left: number; until: number } | null;
  giveBack: { second: number; count: number } | null;
  waiting: Waiter[];
  asking: boolean;
  refusedUntil: number;
  /** When the oldest counted second leaves the window, and the room left, as last heard from the database. */
  freesAt: number;
  free: number;
  period: number;
  inPeriod: number;
  inLastPeriod: number;
  expiry: NodeJS.Timeout | null;
}

/** The shared limiter over the database's slot reservations. */
export function createSharedLimiter(reservations: SlotReservations): Limiter & { close(): void } {
  const callers = new Map<string, Caller>();
  const pending = new Set<Caller>();
  let scheduled = false;
  let inFlight = false;
  let sweptAt = performance.now();

  const callerOf = (bucket: string, limit: number, windowMs: number): Caller => {
    let caller = callers.get(bucket);
    if (caller === undefined) {
      caller = {
        bucket,
        limit,
        span: spanOf(windowMs),
        held: null,
        giveBack: null,
        waiting: [],
        asking: false,
        refusedUntil: 0,
        freesAt: 0,
        free: limit,
        period: 0,
        inPeriod: 0,
        inLastPeriod: 0,
        expiry: null,
      };
      callers.set(bucket, caller);
    }
    return caller;
  };

  /** Slots whose second is over cannot be used any more: they go back to the database with the next batch. */
  const expire = (caller: Caller, now: number): void => {
    const held = caller.held;
    if (held === null || now < held.until) return;
    caller.held = null;
    // A newer give-back replaces an older one that was never sent: the older slots stay counted (refusing early, never admitting more).
    if (held.left > 0) caller.giveBack = { second: held.second, count: held.left };
  };

  const countAdmitted = (caller: Caller, now: number, n: number): void => {
    const period = Math.floor(now / RATE_PERIOD_MS);
    if (period !== caller.period) {
      caller.inLastPeriod = period === caller.period + 1 ? caller.inPeriod : 0;
      caller.inPeriod = 0;
      caller.period = period;
    }
    caller.inPeriod += n;
  };

  /** Slots to ask ahead: what the caller used here in the last 0.5-1 s, at most `aheadCap`. */
  const ahead = (caller: Caller, now: number): number => {
    countAdmitted(caller, now, 0);
    return Math.min(caller.inPeriod + caller.inLastPeriod, aheadCap(caller.limit));
  };

  const admitted = (caller: Caller, now: number): Admission => ({
    admitted: true,
    remaining: (caller.held?.left ?? 0) + caller.free,
    resetInMs: Math.max(0, caller.freesAt - now),
  });
  const refused = (caller: Caller, now: number): Admission => ({ admitted: false, remaining: 0, resetInMs: Math.max(0, caller.freesAt - now) });

  const schedule = (): void => {
    if (scheduled || inFlight || pending.size === 0) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      void flush();
    });
  };

  const watchExpiry = (caller: Caller, now: number): void => {
    if (caller.expiry !== null) clearTimeout(caller.expiry);
    caller.expiry = setTimeout(
      () => {
        caller.expiry = null;
        // Timers keep whole milliseconds and may fire a fraction early: the slots are given up now either way.
        expire(caller, Number.POSITIVE_INFINITY);
        if (caller.giveBack === null) return;
        pending.add(caller);
        schedule();
      },
      Math.max(0, caller.held!.until - now),
    );
    caller.expiry.unref();
  };

  const apply = (caller: Caller, grant: SlotGrant, sentAt: number): void => {
    const now = performance.now();
    const until = sentAt + grant.endsInMs;
    let granted = grant.granted;
    // The answer came after its second ended: the slots are counted but must not be used; ask again.
    const late = now >= until;
    if (late && granted > 0) caller.giveBack = { second: grant.second, count: granted };
    if (late) granted = 0;
    caller.free = grant.free;
    caller.freesAt = now + grant.freesInMs;
    while (granted > 0 && caller.waiting.length > 0) {
      caller.waiting.shift()!.resolve(admitted(caller, now));
      countAdmitted(caller, now, 1);
      granted -= 1;
    }
    if (granted > 0) {
      caller.held = { second: grant.second, left: granted, until };
      watchExpiry(caller, now);
    }
    // More came while the statement ran, or the answer was late: they ask in the next batch.
    if (caller.waiting.length === 0 || late || grant.free > 0) return;
    // The window is full: nothing frees until its oldest second leaves (or a replica gives slots back).
    caller.refusedUntil = Math.min(caller.freesAt, now + grant.endsInMs + GIVE_BACK_GRACE_MS);
    for (const waiter of caller.waiting.splice(0)) waiter.resolve(refused(caller, now));
  };

  const flush = async (): Promise<void> => {
    const now = performance.now();
    const batch: Caller[] = [];
    const requests: SlotRequest[] = [];
    for (const caller of pending) {
      if (caller.asking) continue;
      pending.delete(caller);
      expire(caller, now);
      if (caller.waiting.length === 0 && caller.giveBack === null) continue;
      batch.push(caller);
      requests.push({
        bucket: caller.bucket,
        want: caller.waiting.length,
        ahead: caller.waiting.length === 0 ? 0 : ahead(caller, now),
        limit: caller.limit,
        spanSeconds: caller.span,
        giveBack: caller.giveBack ?? undefined,
      });
      caller.asking = true;
    }
    if (batch.length === 0) return;
    inFlight = true;
    const sentAt = performance.now();
    try {
      const grants = new Map((await reservations.reserve(requests)).map((grant) => [grant.bucket, grant]));
      for (const [i, caller] of batch.entries()) {
        caller.asking = false;
        if (caller.giveBack === requests[i]!.giveBack) caller.giveBack = null;
        const grant = grants.get(caller.bucket);
        if (grant !== undefined) apply(caller, grant, sentAt);
        if (caller.waiting.length > 0 || caller.giveBack !== null) pending.add(caller);
      }
    } catch (error) {
      // The database did not answer: these requests fail (503). Give-backs go with the caller's next request
      // rather than straight away, which would retry in a loop while the database is down.
      for (const caller of batch) {
        caller.asking = false;
        for (const waiter of caller.waiting.splice(0)) waiter.reject(error);
      }
    } finally {
      inFlight = false;
    }
    schedule();
  };

  const idle = (caller: Caller, now: number): boolean =>
    caller.held === null &&
    caller.giveBack === null &&
    caller.waiting.length === 0 &&
    !caller.asking &&
    now >= caller.refusedUntil &&
    Math.floor(now / RATE_PERIOD_MS) > caller.period + 1;

  const sweep = (now: number): void => {
    sweptAt = now;
    for (const [bucket, caller] of callers) if (idle(caller, now)) callers.delete(bucket);
  };

  return {
    admit(bucket, limit, windowMs) {
      const now = performance.now();
      if (now - sweptAt >= SWEEP_EVERY_MS) sweep(now);
      const caller = callerOf(bucket, limit, windowMs);
      expire(caller, now);
      if (caller.held !== null && caller.held.left > 0) {
        caller.held.left -= 1;
        countAdmitted(caller, now, 1);
        return admitted(caller, now);
      }
      if (now < caller.refusedUntil) return refused(caller, now);
      return new Promise<Admission>((resolve, reject) => {
        caller.waiting.push({ resolve, reject });
        pending.add(caller);
        schedule();
      });
    },
    close() {
      for (const caller of callers.values()) if (caller.expiry !== null) clearTimeout(caller.expiry);
      callers.clear();
      pending.clear();
    },
  };
}
