import { SvcError } from '../wire/errors.js';

/** docs/api-behaviour.md: three attempts in total, the first plus two retries. */
export const WEBHOOK_MAX_ATTEMPTS = 3;
/** docs/api-behaviour.md: wait 5 s before the second attempt and 30 s before the third. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [5000, 30_000];

/** After this many deliveries of a subscription in a row fail (after all their attempts), its owner is notified. */
export const DEFAULT_FAILURE_NOTIFY_THRESHOLD = 3;

/** How many attempts a delivery gets with these delays: one more than there are delays. */
export const maxAttempts = (delays: readonly number[] = DEFAULT_RETRY_DELAYS_MS): number => delays.length + 1;

/**
 * When attempt `attemptNumber + 1` is due after attempt `attemptNumber` (1-based) failed at `failedAt`,
 * or null when that was the last attempt.
 */
export function nextAttemptAt(
  attemptNumber: number,
  failedAt: number,
  delays: readonly number[] = DEFAULT_RETRY_DELAYS_MS,
): number | null {
  if (!Number.isInteger(attemptNumber) || attemptNumber < 1) {
    throw new RangeError(`attemptNumber must be a positive integer, got ${attemptNumber}`);
  }
  const delay = delays[attemptNumber - 1];
  return delay === undefined ? null : failedAt + delay;
}

/**
 * Checks retry delays given in milliseconds: exactly two (the attempt count is fixed by docs/api-behaviour.md),
 * each a whole number of milliseconds between 0 and 24 hours.
 */
export function checkRetryDelays(delays: readonly number[]): readonly number[] {
  if (delays.length !== WEBHOOK_MAX_ATTEMPTS - 1) {
    throw new SvcError('validation_error', `expected ${WEBHOOK_MAX_ATTEMPTS - 1} retry delays, got ${delays.length}`, {
      hint: 'Give one delay per retry, e.g. --webhook-retry-delays 5,30',
    });
  }
  for (const delay of delays) {
    if (!Number.isInteger(delay) || delay < 0 || delay > 86_400_000) {
      throw new SvcError('validation_error', `retry delay ${delay} ms is not between 0 and 24 hours`);
    }
  }
  return [...delays];
}

/** Parses `--webhook-retry-delays 5,30` (seconds, decimals allowed) into checked milliseconds. */
export function parseRetryDelaysSeconds(text: string): readonly number[] {
  const parts = text.split(',').map((part) => part.trim());
  const delays = parts.map((part) => {
    const seconds = /^\d+(\.\d+)?$/.test(part) ? Number(part) : Number.NaN;
    if (Number.isNaN(seconds)) {
      throw new SvcError('validation_error', `retry delay "${part}" is not a number of seconds`, {
        hint: 'Use comma-separated seconds, e.g. --webhook-retry-delays 5,30',
      });
    }
    return Math.round(seconds * 1000);
  });
  return checkRetryDelays(delays);
}
