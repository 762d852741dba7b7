/** Time as a dependency, so spacing, leases, retries and link expiry are tested by advancing a fake clock. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to. */
export class FakeClock implements Clock {
  constructor(private current = Date.UTC(2026, 0, 15, 12, 0, 0)) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(ms: number): void {
    this.current = ms;
  }
}

/** Randomness as a dependency: `next()` returns a float in [0, 1). */
export interface Random {
  next(): number;
}

export const systemRandom: Random = { next: () => Math.random() };

/** ISO-8601 in UTC, the format of every `*_at` field. */
export const isoTime = (ms: number): string => new Date(ms).toISOString();
