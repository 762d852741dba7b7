/**
 * The per-token rate limit on one server is a sliding window: no 60 s ever holds more than the limit, a
 * window boundary gives nothing back, and Retry-After says when the oldest counted request leaves the window.
 * Time is faked (the server reads it through the engine's clock, the limiter of earlier releases read Date).
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildServer } from '../../src/http/server/build-server.js';
import { FakeClock } from '../../src/wire/clock.js';
import { createMemoryLimiter } from '../../src/http/server/sliding-window.js';
import { auth, createFakeEngine } from '../support/fake-engine.js';

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0); // on a second's start

describe('rate limit on one server: a sliding 60 s window', () => {
  let app: FastifyInstance | undefined;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
  });
  afterEach(async () => {
    vi.useRealTimers();
    await app?.close();
    app = undefined;
  });

  const server = (limit: number): FastifyInstance =>
    (app = buildServer({ engine: { ...createFakeEngine(), clock: { now: () => Date.now() } }, rateLimitPerMinute: limit }));
  const at = async (ms: number, count: number) => {
    vi.setSystemTime(T0 + ms);
    const answers = [];
    for (let i = 0; i < count; i += 1) answers.push(await app!.inject({ method: 'GET', url: '/api/chats', headers: auth() }));
    return { ok: answers.filter((a) => a.statusCode === 200).length, last: answers.at(-1)! };
  };

  it('GET /api/chats: a window boundary gives nothing back (a fixed window admitted 2x the limit within 0.2 s)', async () => {
    server(600);
    expect((await at(0, 1)).ok).toBe(1);
    expect((await at(59_900, 620)).ok).toBe(599);
    // 0.2 s later: a fixed window that started at 0 has just reset; the last 60 s still hold 600.
    const after = await at(60_100, 100);
    expect(after.ok).toBe(0);
    expect(after.last.statusCode).toBe(429);
    expect(after.last.json()).toMatchObject({ status: 'error', error_code: 'rate_limit_exceeded' });
    // The request at 0 leaves the window when second 61 starts (its whole second is counted): one more.
    expect(Number(after.last.headers['retry-after'])).toBe(1);
    expect((await at(60_999, 1)).ok).toBe(0);
    expect((await at(61_000, 5)).ok).toBe(1);
  });

  it('GET /api/chats: Retry-After is when the oldest counted request leaves the window, and waiting it is enough', async () => {
    server(100);
    await at(0, 1);
    await at(59_900, 99);
    await at(61_000, 1);
    // Counted now: 99 requests of second 59 and 1 of second 61. Second 59 leaves the window at 120 s.
    const refused = await at(61_500, 1);
    expect(refused.last.statusCode).toBe(429);
    expect(Number(refused.last.headers['retry-after'])).toBe(59);
    expect(Number(refused.last.headers['x-ratelimit-reset'])).toBe(59);
    expect(refused.last.headers['x-ratelimit-remaining']).toBe('0');
    expect((await at(119_999, 1)).ok).toBe(0);
    const waited = await at(61_500 + 59_000, 120);
    expect(waited.ok).toBe(99);
    expect(waited.last.headers['x-ratelimit-limit']).toBe('100');
  });

  it('admit: over 5 minutes of random bursts, no 60 s holds more than the limit, and a refusal means the limit was reached within 61 s', () => {
    const clock = new FakeClock(T0);
    const limiter = createMemoryLimiter(clock);
    const limit = 50;
    let seed = 7;
    const random = (): number => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const admitted: number[] = [];
    let refusals = 0;
    while (clock.now() < T0 + 300_000) {
      clock.advance(Math.floor(random() * (random() < 0.1 ? 20_000 : 400)));
      for (let burst = Math.ceil(random() * 8); burst > 0; burst -= 1) {
        const now = clock.now();
        const answer = limiter.admit('workspace:1', limit, 60_000) as { admitted: boolean };
        // What the rule promises, computed from the admissions themselves.
        const inSixty = admitted.filter((t) => t > now - 60_000).length;
        const inCountedSeconds = admitted.filter((t) => t >= (Math.floor(now / 1000) - 60) * 1000).length;
        expect(answer.admitted).toBe(inCountedSeconds < limit);
        if (answer.admitted) {
          expect(inSixty + 1).toBeLessThanOrEqual(limit);
          admitted.push(now);
        } else refusals += 1;
      }
    }
    expect(refusals).toBeGreaterThan(100);
    expect(admitted.length).toBeGreaterThan(4 * limit);
  });

  it('admit: a clock stepping back admits nothing more', () => {
    const clock = new FakeClock(T0);
    const limiter = createMemoryLimiter(clock);
    for (let i = 0; i < 3; i += 1) expect(limiter.admit('k', 3, 60_000)).toMatchObject({ admitted: true });
    clock.set(T0 - 3_600_000);
    expect(limiter.admit('k', 3, 60_000)).toMatchObject({ admitted: false, resetInMs: 3_600_000 + 61_000 });
    clock.set(T0 + 61_000);
    expect(limiter.admit('k', 3, 60_000)).toMatchObject({ admitted: true, remaining: 2 });
  });
});
