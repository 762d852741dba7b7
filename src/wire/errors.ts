/**
 * The one error catalogue of svc. Every failure a caller can cause is an SvcError with a stable
 * `code`; the HTTP edge turns it into a status and error body, the CLI edge into a message and exit code.
 */
export const ERROR_CATALOGUE = {
  validation_error: { status: 400, title: 'Invalid parameters' },
  unauthorized: { status: 401, title: 'Access token missing or invalid' },
  permission_denied: { status: 403, title: 'Access denied' },
  quota_exceeded: { status: 403, title: 'Messaging quota exhausted' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict' },
  gone: { status: 410, title: 'No longer available' },
  seats_full: { status: 409, title: 'No free seats' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  storage_quota_exceeded: { status: 413, title: 'Workspace storage quota reached' },
  rate_limit_exceeded: { status: 429, title: 'Too many requests' },
  internal_error: { status: 500, title: 'Internal error' },
  unavailable: { status: 503, title: 'Service unavailable' },
  insufficient_storage: { status: 507, title: 'Server storage full' },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** A failure with a stable code. `hint` tells a human what to do next (the CLI prints it). */
export class SvcError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { hint?: string; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SvcError';
    this.code = code;
    this.hint = options.hint;
    this.details = options.details;
  }

  get status(): number {
    return ERROR_CATALOGUE[this.code].status;
  }
}

export const isSvcError = (value: unknown): value is SvcError => value instanceof SvcError;

/** Shorthands for the common cases, so call sites read as a sentence. */
export const invalid = (message: string, hint?: string) =>
  new SvcError('validation_error', message, hint === undefined ? {} : { hint });
export const notFound = (what: string, hint?: string) =>
  new SvcError('not_found', `${what} not found`, hint === undefined ? {} : { hint });
export const conflict = (message: string, hint?: string) =>
  new SvcError('conflict', message, hint === undefined ? {} : { hint });

export const isErrorCode = (value: unknown): value is ErrorCode =>
  typeof value === 'string' && Object.hasOwn(ERROR_CATALOGUE, value);

/**
 * What a storage failure means to a caller, or null when it is not one svc explains. Stores throw
 * SQLite's own errors (code SQLITE_...); the HTTP and CLI edges pass them through here.
 */
export function fromStorageError(error: unknown): SvcError | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return null;
  if (code === 'SQLITE_FULL') {
    return new SvcError('insufficient_storage', 'The server\'s disk is full; nothing was written', {
      hint: 'retry later; the operator must free disk space',
    });
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new SvcError('unavailable', 'The database is busy: another process holds its write lock; nothing was written', {
      hint: 'retry in a moment',
      details: { retryAfterSec: 1 },
    });
  }
  if (code.startsWith('SQLITE_READONLY')) {
    return new SvcError('unavailable', 'The data directory is read-only: reading works, but this needs to write', {
      hint: 'give svc write access to the data directory, or use a read command',
    });
  }
  return null;
}

/** A database whose schema is ahead of this release: older code could misread it, or write what it cannot see. */
export const newerSchemaError = (what: string, found: number, known: number): SvcError =>
  new SvcError('unavailable', `${what} was written by a newer svc (schema ${found}, this release knows ${known}): upgrade svc`, {
    hint: 'run the svc release that wrote it, or a later one; this one changed nothing',
  });

/** No room where the data lives, said with the place and the way out (SQLite itself only says "disk I/O error"). */
export const diskFullError = (dir: string, doing: string, free?: { path: string; bytes: number }): SvcError =>
  new SvcError(
    'insufficient_storage',
    `The disk holding ${dir} is full${free === undefined ? '' : ` (${Math.floor(free.bytes / 1024)} KiB free)`}: svc cannot ${doing}`,
    { hint: `free space on that disk (\`df -h ${free?.path ?? dir}\` shows it), or use a data directory on another disk; nothing was written` },
  );
