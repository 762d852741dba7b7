import { describe, expect, it } from 'vitest';
import {
  checkRetryDelays,
  DEFAULT_RETRY_DELAYS_MS,
  maxAttempts,
  nextAttemptAt,
  parseRetryDelaysSeconds,
  WEBHOOK_MAX_ATTEMPTS,
} from '../../src/webhooks/retry-schedule.js';

describe('retry schedule', () => {
  it('nextAttemptAt: 5 s after the first failure, 30 s after the second, none after the third', () => {
    expect(WEBHOOK_MAX_ATTEMPTS).toBe(3);
    expect(maxAttempts()).toBe(3);
    expect(DEFAULT_RETRY_DELAYS_MS).toEqual([5000, 30_000]);
    expect(nextAttemptAt(1, 1_000)).toBe(6_000);
    expect(nextAttemptAt(2, 6_000)).toBe(36_000);
    expect(nextAttemptAt(3, 36_000)).toBeNull();
  });

  it('nextAttemptAt: uses configured delays', () => {
    expect(nextAttemptAt(1, 0, [100, 200])).toBe(100);
    expect(nextAttemptAt(2, 100, [100, 200])).toBe(300);
    expect(nextAttemptAt(3, 300, [100, 200])).toBeNull();
  });

  it('nextAttemptAt: rejects attempt numbers below 1', () => {
    expect(() => nextAttemptAt(0, 0)).toThrow(RangeError);
    expect(() => nextAttemptAt(1.5, 0)).toThrow(RangeError);
  });

  it('parseRetryDelaysSeconds: reads "5,30" as milliseconds', () => {
    expect(parseRetryDelaysSeconds('5,30')).toEqual([5000, 30_000]);
    expect(parseRetryDelaysSeconds(' 0.5 , 2 ')).toEqual([500, 2000]);
  });

  it('parseRetryDelaysSeconds: refuses anything but two non-negative numbers', () => {
    expect(() => parseRetryDelaysSeconds('5')).toThrow(/expected 2 retry delays, got 1/);
    expect(() => parseRetryDelaysSeconds('5,30,60')).toThrow(/expected 2/);
    expect(() => parseRetryDelaysSeconds('5,-1')).toThrow(/not a number of seconds/);
    expect(() => parseRetryDelaysSeconds('5,abc')).toThrow(/"abc"/);
    expect(() => checkRetryDelays([5000, 90_000_000])).toThrow(/24 hours/);
  });
});
