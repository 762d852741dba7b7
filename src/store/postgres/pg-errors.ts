/**
 * What a PostgreSQL failure means for svc. Connection-level failures (the server restarting, refusing
 * connections, a socket cut mid-query) are "unavailable": the HTTP edge answers 503 with an error body and
 * the client may retry. Serialization failures and deadlocks are retried by the transaction runner itself.
 */
import { SvcError } from '../../wire/errors.js';

interface PgLikeError {
  code?: string;
  message?: string;
}

// SQLSTATE classes and codes that mean the connection or the server is gone, not that the query was wrong.
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006', '08P01']);
const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);
const UNAVAILABLE_MESSAGES = [/Connection terminated/i, /connection timeout/i, /Client has encountered a connection error/i, /terminating connection/i];

/** True when the database could not be reached or dropped the connection. */
export function isUnavailable(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  const { code, message } = error as PgLikeError;
  if (code !== undefined && (UNAVAILABLE_STATES.has(code) || UNAVAILABLE_NODE_CODES.has(code))) return true;
  return message !== undefined && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message));
}

/** True for conflicts that a fresh run of the same transaction resolves (serialization failure, deadlock). */
export const isRetryableConflict = (error: unknown): boolean => {
  const code = (error as PgLikeError | null)?.code;
  return code === '40001' || code === '40P01';
};

/** The catalogue's answer to an unreachable database; the original error stays as `cause` for the log. */
export const unavailable = (cause: unknown): SvcError =>
  new SvcError('unavailable', 'The database is unavailable', { hint: 'retry in a few seconds', cause });

/** Rethrows connection failures as `unavailable`; anything else unchanged. */
export function mapPgError(error: unknown): unknown {
  return isUnavailable(error) ? unavailable(error) : error;
}
