/**
 * Shapes of the ids callers hand in, checked the same way by the engine as by the HTTP schemas, so the local
 * client and the HTTP client answer a malformed id alike (validation_error) and an unknown one alike (not_found).
 */
import { invalid } from '../wire/errors.js';

/** Longest uid accepted; the HTTP path schemas use the same bound. */
export const MAX_UID_LENGTH = 200;

/** A numeric id: a safe integer from 1. */
export function assertId(what: string, value: unknown): asserts value is number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) throw invalid(`${what} must be a whole number of 1 or more`);
}

/** A uid: a string of 1 to MAX_UID_LENGTH characters (its format is otherwise opaque). */
export function assertUid(what: string, value: unknown): asserts value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_UID_LENGTH) {
    throw invalid(`${what} must be 1 to ${MAX_UID_LENGTH} characters`);
  }
}
