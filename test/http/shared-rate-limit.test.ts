/**
 * The rate limit of PostgreSQL replicas (src/http/server/shared-rate-limit.ts), with two limiters in this process
 * standing for two replicas, each on its own pool: together they admit at most the limit in any window and
 * at least the limit less the slots the other holds ahead; the database sees a statement per batch, not per
 * request. Real time (the database's clock), so windows are kept short where they must slide.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aheadCap, createSharedLimiter } from '../../src/http/server/shared-rate-limit.js';
import type { Admission } from '../../src/http/server/sliding-window.js';
import { openPostgres } from '../../src/store/postgres/open-postgres.js';
import type { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { createRateLimitStore, type SlotReservations } from '../../src/store/rate-limit-store.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

let database: TestDatabase;
const pools: PgDatabase[] = [];

beforeAll(async () => {
  database = await createTestDatabase('sharedlimit');
  for (let i = 0; i < 2; i += 1) pools.push(await openPostgres(database.url, { poolSize: 3 }));
});
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
  await database.drop();
});

/** Two replicas' limiters, and the statements each sent and the slots they asked for. */
function twoReplicas() {
  const sent = { statements: 0, buckets: 0 };
  const limiters = pools.map((pool) => {
    const store = createRateLimitStore(pool.sql);
    const counted: SlotReservations = {
      reserve: async (requests, nowMs) => {
        sent.statements += 1;
        sent.buckets += requests.length;
        return store.reserve(requests, nowMs);
      },
    };
    return createSharedLimiter(counted);
  });
  return { limiters, sent, close: () => limiters.forEach((limiter) => limiter.close()) };
}

/** `callers` concurrent callers per limiter, each making requests one after another until `until()`. */
async function hammer(
  limiters: ReturnType<typeof twoReplicas>['limiters'],
  key: string,
  limit: number,
  windowMs: number,
  callers: number,
  until: () => boolean,
) {
  const answers: Array<{ at: number; admission: Admission; replica: number }> = [];
  await Promise.all(
    limiters.flatMap((limiter, replica) =>
      Array.from({ length: callers }, async () => {
        while (!until()) {
          const admission = await limiter.admit(key, limit, windowMs);
          answers.push({ at: Date.now(), admission, replica });
          // A refused caller comes back a moment later, as a client would (and lets the other callers in).
          if (!admission.admitted) await new Promise((resolve) => setTimeout(resolve, 2));
          else await new Promise((resolve) => setImmediate(resolve));
        }
      }),
    ),
  );
  return answers;
}

describe('shared rate limit: two replicas on one PostgreSQL database', () => {
  it('admit: together at most the limit, and at least the limit less what the other replica holds ahead (aheadCap), which comes back after its second', { timeout: 30_000 }, async () => {
    const limit = 600;
    const [a, b] = [0, 1];
    const { limiters, sent, close } = twoReplicas();
    try {
      // Early in a second, replica B serves a quick run of requests, so it holds slots ahead; then it goes quiet.
      while (Date.now() % 1000 > 100) await new Promise((resolve) => setTimeout(resolve, 5));
      const firstAt = Date.now();
      let made = 0;
      const warm = await hammer([limiters[b]!], 'workspace:burst', limit, 60_000, 4, () => made++ >= 45);
      // Replica A's callers then ask far more than the limit.
      made = 0;
      const burst = await hammer([limiters[a]!], 'workspace:burst', limit, 60_000, 16, () => made++ >= 1_200);
      const answers = [...warm, ...burst];
      const admitted = answers.filter((x) => x.admission.admitted).length;
      const refused = answers.filter((x) => !x.admission.admitted);
      console.info(
        `shared limit burst: ${answers.length} requests, ${admitted} admitted (B ${warm.length} first, then A's burst), ` +
          `${sent.statements} statements; refused early: ${limit - admitted} (bound ${aheadCap(limit)})`,
      );
      expect(admitted).toBeLessThanOrEqual(limit);
      expect(admitted).toBeGreaterThanOrEqual(limit - aheadCap(limit));
      // Retry-After: not before the first request's second has left the 60 s window (61 s after its start).
      for (const { at, admission } of refused) {
        expect(at + admission.resetInMs).toBeGreaterThanOrEqual((Math.floor(firstAt / 1000) + 61) * 1000 - 5);
        expect(admission.resetInMs).toBeLessThanOrEqual(61_000);
      }
      // Far fewer statements than requests: slots are reserved in batches and held ahead.
      expect(sent.statements * 5).toBeLessThan(answers.length);

      // What B held ahead goes back to the database once its second is over: A gets exactly the rest.
      await new Promise((resolve) => setTimeout(resolve, 1_300));
      made = 0;
      const after = await hammer([limiters[a]!], 'workspace:burst', limit, 60_000, 2, () => made++ >= 60);
      expect(admitted + after.filter((x) => x.admission.admitted).length).toBe(limit);
    } finally {
      close();
    }
  });

  it('admit: both replicas at once, many times the limit: at most the limit, at least the limit less 2 x aheadCap', { timeout: 30_000 }, async () => {
    const limit = 600;
    const { limiters, sent, close } = twoReplicas();
    try {
      let made = 0;
      const answers = await hammer(limiters, 'workspace:both', limit, 60_000, 16, () => made++ >= 1_500);
      const admitted = answers.filter((x) => x.admission.admitted).length;
      console.info(
        `shared limit, both replicas: ${answers.length} requests, ${admitted} admitted ` +
          `(${[0, 1].map((r) => answers.filter((x) => x.replica === r && x.admission.admitted).length).join(' + ')}), ${sent.statements} statements`,
      );
      expect(admitted).toBeLessThanOrEqual(limit);
      expect(admitted).toBeGreaterThanOrEqual(limit - 2 * aheadCap(limit));
      expect(sent.statements * 5).toBeLessThan(answers.length);
    } finally {
      close();
    }
  });

  it('admit: a 2 s window slides across both replicas: no 2 s ever holds more than the limit', { timeout: 30_000 }, async () => {
    const limit = 120;
    const windowMs = 2_000;
    const { limiters, sent, close } = twoReplicas();
    try {
      const stopAt = Date.now() + 4_500;
      const answers = await hammer(limiters, 'workspace:slide', limit, windowMs, 4, () => Date.now() >= stopAt);
      const times = answers.filter((a) => a.admission.admitted).map((a) => a.at).sort((x, y) => x - y);
      let most = 0;
      for (const [i, t] of times.entries()) {
        // Times are read when the caller resumes, a few microseconds after the admission: 5 ms of slack.
        const inWindow = times.slice(0, i + 1).filter((u) => u > t - windowMs + 5).length;
        most = Math.max(most, inWindow);
      }
      console.info(
        `shared limit slide: ${answers.length} requests, ${times.length} admitted over ${((times.at(-1)! - times[0]!) / 1000).toFixed(1)} s, ` +
          `at most ${most} in any ${windowMs} ms, ${sent.statements} statements`,
      );
      expect(most).toBeLessThanOrEqual(limit);
      // The window did slide: over more than 4 s, more than one window's worth was admitted.
      expect(times.length).toBeGreaterThan(limit);
    } finally {
      close();
    }
  });

  it('admit: a high limit costs a few statements a second, not one per request', { timeout: 30_000 }, async () => {
    const { limiters, sent, close } = twoReplicas();
    try {
      const stopAt = Date.now() + 2_000;
      const answers = await hammer(limiters, 'workspace:fast', 100_000_000, 60_000, 8, () => Date.now() >= stopAt);
      console.info(`shared limit, high limit: ${answers.length} requests in 2 s over 2 replicas, ${sent.statements} statements`);
      expect(answers.every((a) => a.admission.admitted)).toBe(true);
      expect(sent.statements * 20).toBeLessThan(answers.length);
    } finally {
      close();
    }
  });
});
