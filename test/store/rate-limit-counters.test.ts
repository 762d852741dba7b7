/**
 * The shared rate-limit counters on PostgreSQL (migration 11, `svc_rate_limit_reserve`): the same sliding
 * window as the in-memory limiter of one server, exact under racing replicas, and slots given back count no
 * more. Most cases pass the time in (`nowMs`), as replicas would read it from the database's clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { createMemoryLimiter } from '../../src/http/server/sliding-window.js';
import { openPostgres } from '../../src/store/postgres/open-postgres.js';
import type { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { createRateLimitStore, type SlotRequest } from '../../src/store/rate-limit-store.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

let database: TestDatabase;
let db: PgDatabase;
let store: ReturnType<typeof createRateLimitStore>;
const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);

beforeAll(async () => {
  database = await createTestDatabase('ratecounters');
  db = await openPostgres(database.url, { poolSize: 2 });
  store = createRateLimitStore(db.sql);
});
afterAll(async () => {
  await db.close();
  await database.drop();
});

const request = (bucket: string, want: number, more: Partial<SlotRequest> = {}): SlotRequest => ({
  bucket,
  want,
  ahead: 0,
  limit: 10,
  spanSeconds: 60,
  ...more,
});
const one = async (nowMs: number, req: SlotRequest) => (await store.reserve([req], nowMs))[0]!;

describe('rate-limit counters on PostgreSQL', () => {
  it('reserve: one request at a time, the same answers as the in-memory window of one server', async () => {
    const clock = new FakeClock(T0);
    const memory = createMemoryLimiter(clock);
    let seed = 11;
    const random = (): number => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const buckets = ['workspace:1', 'workspace:2'];
    const seen = { admitted: 0, refused: 0 };
    for (let i = 0; i < 300; i += 1) {
      clock.advance(Math.floor(random() * (random() < 0.05 ? 30_000 : 700)));
      const bucket = buckets[i % 2]!;
      const inMemory = memory.admit(bucket, 10, 60_000) as { admitted: boolean; resetInMs: number };
      const grant = await one(clock.now(), request(bucket, 1));
      seen[grant.granted === 1 ? 'admitted' : 'refused'] += 1;
      expect({ at: clock.now() - T0, admitted: grant.granted === 1, resetInMs: grant.freesInMs }).toEqual({
        at: clock.now() - T0,
        admitted: inMemory.admitted,
        resetInMs: inMemory.resetInMs,
      });
    }
    expect(seen.admitted).toBeGreaterThan(50);
    expect(seen.refused).toBeGreaterThan(50);
  });

  it('reserve: a batch grants what is waiting as far as there is room, ahead at most a quarter of the rest', async () => {
    const [a, b] = await store.reserve([request('batch:a', 3, { ahead: 100 }), request('batch:b', 12, { ahead: 5 })], T0 + 250);
    // a: room 10, 3 waiting, then a quarter of the 7 left (1). b: room 10, 12 waiting: 10 of them.
    expect(a).toMatchObject({ bucket: 'batch:a', granted: 4, free: 6, second: T0 / 1000, endsInMs: 750, freesInMs: 60_750 });
    expect(b).toMatchObject({ bucket: 'batch:b', granted: 10, free: 0 });
    // The next second: the window still holds them; at second 61 the first second has left.
    expect(await one(T0 + 1_500, request('batch:b', 1))).toMatchObject({ granted: 0, freesInMs: 59_500 });
    expect(await one(T0 + 61_000, request('batch:b', 12))).toMatchObject({ granted: 10, second: T0 / 1000 + 61 });
  });

  it('reserve: slots given back count no more, but only within the window and never below zero', async () => {
    expect(await one(T0, request('back', 8))).toMatchObject({ granted: 8, free: 2 });
    // 5 of them were not used: the replica gives them back with its next request, in a later second.
    expect(await one(T0 + 2_000, request('back', 6, { giveBack: { second: T0 / 1000, count: 5 } }))).toMatchObject({ granted: 6, free: 1 });
    // Giving back more than was counted in that second leaves it at zero; a second out of the window is ignored.
    expect(await one(T0 + 2_100, request('back', 0, { giveBack: { second: T0 / 1000, count: 50 } }))).toMatchObject({ granted: 0, free: 4 });
    expect(await one(T0 + 2_200, request('back', 0, { giveBack: { second: T0 / 1000 - 61, count: 6 } }))).toMatchObject({ free: 4 });
  });

  it('reserve: a bucket never goes back in time: an earlier clock counts in the newest second', async () => {
    expect(await one(T0 + 10_000, request('late', 10))).toMatchObject({ granted: 10, second: T0 / 1000 + 10 });
    // A caller whose clock reads 5 s earlier cannot count in a second the window has already passed.
    expect(await one(T0 + 5_000, request('late', 1))).toMatchObject({ granted: 0, second: T0 / 1000 + 10, endsInMs: 1_000 });
  });

  it('reserve: replicas racing on the database clock never grant more than the limit in any window', async () => {
    const limit = 40;
    const replicas = await Promise.all([1, 2, 3].map(() => openPostgres(database.url, { poolSize: 3 })));
    const granted = new Map<number, number>();
    const stopAt = performance.now() + 2_500;
    try {
      await Promise.all(
        replicas.flatMap((replica) =>
          [1, 2, 3].map(async (_, worker) => {
            const counters = createRateLimitStore(replica.sql);
            while (performance.now() < stopAt) {
              const [grant] = await counters.reserve([request('race', 1 + worker, { ahead: 2, limit, spanSeconds: 1 })]);
              granted.set(grant!.second, (granted.get(grant!.second) ?? 0) + grant!.granted);
            }
          }),
        ),
      );
    } finally {
      await Promise.all(replicas.map((replica) => replica.close()));
    }
    const seconds = [...granted.keys()].sort((x, y) => x - y);
    // A 1 s window counts two buckets: the current second and the one before.
    const pairs = seconds.map((s) => (granted.get(s - 1) ?? 0) + granted.get(s)!);
    console.info(`rate-limit counters race: granted per second ${seconds.map((s) => granted.get(s)).join(', ')}`);
    expect(seconds.length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...pairs)).toBeLessThanOrEqual(limit);
    // Every other second the window is refilled, so the racers did reach the limit.
    expect(Math.max(...pairs)).toBe(limit);
  });

  it('purge: forgets counters untouched for an hour, keeps the rest', async () => {
    await one(Date.now() - 2 * 3_600_000, request('old', 1));
    await one(Date.now(), request('fresh', 1));
    expect(await store.purge(Date.now() - 3_600_000)).toBeGreaterThanOrEqual(1);
    const left = await db.pool.query<{ bucket: string }>("SELECT bucket FROM rate_limit_counters WHERE bucket IN ('old', 'fresh')");
    expect(left.rows.map((row) => row.bucket)).toEqual(['fresh']);
  });
});
