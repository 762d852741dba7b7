import { fromStorageError, isSvcError, type ErrorCode } from '../wire/errors.js';
import { inFlags } from './field-flags.js';

/** Exit codes of docs/api-behaviour.md. */
export const EXIT = { ok: 0, failure: 1, usage: 2, auth: 4, interrupted: 130 } as const;

/** Codes the CLI adds to the engine's catalogue for failures that never reach the engine. */
export type CliErrorCode = ErrorCode | 'usage_error' | 'interrupted' | 'send_failed' | 'timeout' | 'failure' | 'cancelled';

/** A failure the CLI itself detects; carries its exit code and what to do next. */
export class CliError extends Error {
  constructor(
    readonly code: CliErrorCode,
    message: string,
    readonly hint?: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Wrong invocation: missing or conflicting options. Exit code 2. */
export const usageError = (message: string, hint = 'run the command with --help for usage') =>
  new CliError('usage_error', message, hint, EXIT.usage);

/** What one error turns into at the CLI edge. */
export interface ReportedError {
  code: CliErrorCode;
  message: string;
  hint: string | undefined;
  exitCode: number;
}

/** Default advice per engine error code, used when the error carries no hint of its own. */
function defaultHint(code: ErrorCode, target: string | undefined): string {
  switch (code) {
    case 'unauthorized':
      return 'check --token (or SVC_TOKEN) or run `svc login`';
    case 'validation_error':
      return 'check the values passed; run the command with --help for usage';
    case 'permission_denied':
      return "the token's workspace may not do this; check --profile or --token";
    case 'quota_exceeded':
      return '`svc workspace` shows the quota; wait for the next period or ask support to raise it';
    case 'not_found':
      return 'check the id or uid; the matching list command (for example `svc chats list`) shows what exists';
    case 'conflict':
    case 'seats_full':
      return 'the current state does not allow this; inspect it and retry';
    case 'gone':
      return 'it expired or was replaced; ask for a new one';
    case 'payload_too_large':
      return 'send a smaller file or request';
    case 'storage_quota_exceeded':
      return '`svc workspace` shows the storage in use; delete files you no longer need';
    case 'insufficient_storage':
      return 'the server is out of disk space; retry later or tell its operator';
    case 'rate_limit_exceeded':
      return 'wait a minute and retry';
    case 'unavailable':
      return isRemote(target) ? `is \`svc serve\` running at ${target}?` : 'retry in a moment';
    case 'method_not_allowed':
      return 'the server has this path under another method; is --base-url the /api base of an svc server?';
    case 'internal_error':
      return 'retry; if it persists, check the server log';
  }
}

const isRemote = (target: string | undefined): target is string =>
  target !== undefined && /^https?:\/\//.test(target);

/** Node's fetch hides the socket error in `cause`; a refused connection deserves a clear message. */
function connectionFailure(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === 'string' && /^(ECONNREFUSED|ENOTFOUND|ECONNRESET|EHOSTUNREACH|ETIMEDOUT|UND_ERR_)/.test(code)) {
      return code;
    }
    current = current.cause;
  }
  return undefined;
}

/** Turns anything thrown by a command into a message, a hint and an exit code. */
export function reportError(thrown: unknown, target: string | undefined): ReportedError {
  const error = fromStorageError(thrown) ?? thrown;
  if (error instanceof CliError) {
    return { code: error.code, message: error.message, hint: error.hint, exitCode: error.exitCode };
  }
  if (isSvcError(error)) {
    return {
      code: error.code,
      message: error.code === 'validation_error' ? inFlags(error.message) : error.message,
      hint: error.hint ?? defaultHint(error.code, target),
      exitCode: error.code === 'unauthorized' ? EXIT.auth : EXIT.failure,
    };
  }
  if (error instanceof Error && error.name === 'ExitPromptError') {
    return { code: 'interrupted', message: 'interrupted', hint: undefined, exitCode: EXIT.interrupted };
  }
  const socketCode = connectionFailure(error);
  if (socketCode !== undefined) {
    return {
      code: 'unavailable',
      message: `cannot reach ${target ?? 'the server'} (${socketCode})`,
      hint: isRemote(target) ? `is \`svc serve\` running at ${target}?` : 'check the address and retry',
      exitCode: EXIT.failure,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'failure', message, hint: 'this looks like a bug in svc; please report it', exitCode: EXIT.failure };
}

/** Replaces every occurrence of a secret so no error text can leak it. */
export function redact(text: string, secrets: Array<string | undefined>): string {
  let out = text;
  for (const secret of secrets) {
    if (secret !== undefined && secret.length >= 4) out = out.split(secret).join('***');
  }
  return out;
}
