import { InvalidArgumentError, type Command } from 'commander';
import type { CliContext } from '../context.js';
import { EXIT, usageError } from '../errors.js';
import type { InterruptSignal } from '../io.js';
import { describeStore } from '../../client/store-description.js';
import { httpUrl, port, positiveInt, secondsListToMs } from '../parse.js';
import { VERSION } from '../version.js';

interface ServeFlags {
  port: number;
  host: string;
  dev?: boolean;
  webhookRetryDelays?: number[];
  publicUrl?: string;
  rateLimit?: number;
  smtpUrl?: string;
  smtpFrom?: string;
  metrics: boolean;
  metricsToken?: string;
  logFormat: 'text' | 'json' | 'none';
}

/** `svc serve`: the engine of a data directory over HTTP until SIGINT/SIGTERM. */
export function registerServe(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .description('serve the data directory (--data, SVC_HOME) over HTTP: Public API under /api')
    .option('--port <port>', 'port to listen on; 0 picks a free one', port, 8080)
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--dev', 'development mode: webhooks may use http and private addresses (refused once served without it)')
    .option('--webhook-retry-delays <seconds>', 'delays before webhook retries, e.g. 5,30; kept for every process on this instance', secondsListToMs)
    .option('--public-url <url>', 'origin used in links the server hands out (QR, downloads)', httpUrl)
    .option('--rate-limit <n>', 'requests per minute per token', positiveInt)
    // No argument parser here: commander would repeat a rejected value, and this one holds a password.
    .option('--smtp-url <url>', 'e-mail owner notifications through smtp[s]://user:pass@host:port (env SVC_SMTP_URL)')
    .option('--smtp-from <address>', 'From address of those e-mails (env SVC_SMTP_FROM)')
    .option('--log-format <format>', 'request log on stderr, one line per request: text, json or none', logFormat, 'text')
    .option('--no-metrics', 'do not serve Prometheus metrics at GET /metrics (served by default)')
    // No argument parser here either: the value is a secret and must not be repeated in an error.
    .option('--metrics-token <token>', 'require Authorization: Bearer <token> on GET /metrics (env SVC_METRICS_TOKEN)')
    .action(async (opts: ServeFlags) => {
      if (ctx.globals.baseUrl !== undefined) {
        throw usageError('`svc serve` serves a local data directory, not a remote instance', 'drop --base-url; pass --data DIR');
      }
      const log = (line: string) => ctx.io.stdout(`${line}\n`);
      const sendLeaseMs = leaseFromEnv(ctx.io.env['SVC_SEND_LEASE_MS']);
      const smtp = smtpSettings(opts, ctx.io.env);
      const metricsToken = metricsTokenSetting(opts, ctx.io.env);
      const { dataDir, databaseUrl } = ctx.config();
      const handle = await ctx.io.serve({
        port: opts.port,
        host: opts.host,
        dataDir,
        ...(databaseUrl === undefined ? {} : { databaseUrl }),
        dev: opts.dev === true,
        ...(opts.publicUrl === undefined ? {} : { publicUrl: opts.publicUrl }),
        ...(opts.rateLimit === undefined ? {} : { rateLimitPerMinute: opts.rateLimit }),
        ...(opts.webhookRetryDelays === undefined ? {} : { webhookRetryDelaysMs: opts.webhookRetryDelays }),
        ...(sendLeaseMs === undefined ? {} : { sendLeaseMs }),
        ...smtp,
        metrics: opts.metrics,
        ...(metricsToken === undefined ? {} : { metricsToken }),
        ...(opts.logFormat === 'none' ? {} : { requestLog: { format: opts.logFormat, write: (chunk: string) => ctx.io.logLines(chunk) } }),
        log,
      });
      // Subscribe before announcing, so a signal sent right after the line is seen is never missed.
      let unsubscribe = () => {};
      const stopped = new Promise<InterruptSignal>((resolve) => {
        unsubscribe = ctx.io.onInterrupt(resolve);
      });
      // Scripts wait for exactly this line, with the real port when --port 0 was asked for.
      const origin = new URL(handle.url).origin;
      log(`listening on ${origin}`);
      // Which release serves which store (the PostgreSQL password masked): the first thing to check in a log.
      log(`  svc          ${VERSION}`);
      log(`  Store        ${describeStore({ dataDir, databaseUrl })}`);
      // The server root is not an API: say where each one is, so nobody passes the root as --base-url.
      log(`  Public API   ${origin}/api   (--base-url; OpenAPI: ${origin}/api/openapi.json)`);
      log(`  Partner API  ${origin}/partner   (OpenAPI: ${origin}/partner/openapi.json)`);
      if (opts.metrics) log(`  Metrics      ${origin}/metrics${metricsToken === undefined ? '' : '   (bearer token required)'}`);
      const signal = await stopped;
      unsubscribe();
      log(`${signal}: shutting down`);
      await handle.close();
      // Ctrl-C is an interruption (130); SIGTERM is the normal way a supervisor stops a server (0).
      ctx.exitCode = signal === 'SIGINT' ? EXIT.interrupted : EXIT.ok;
    });
}

function logFormat(value: string): 'text' | 'json' | 'none' {
  if (value === 'text' || value === 'json' || value === 'none') return value;
  throw new InvalidArgumentError('expected text, json or none');
}

/**
 * SVC_SEND_LEASE_MS: how long a claimed send stays leased before a restarted (or another) process takes it
 * over. The engine's default (30 s) suits production; tests that kill the server shorten it.
 */
function leaseFromEnv(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw usageError(`SVC_SEND_LEASE_MS must be a whole number of milliseconds (1 or more), got "${value}"`, 'unset it to use the default of 30000');
  }
  return Number(value);
}

/**
 * SMTP for owner notifications: the flag, else SVC_SMTP_URL (empty counts as unset). Errors never quote the
 * URL, since it carries the SMTP password.
 */
function smtpSettings(opts: ServeFlags, env: Record<string, string | undefined>): { smtpUrl?: string; smtpFrom?: string } {
  const fromEnv = (name: string) => (env[name] === undefined || env[name] === '' ? undefined : env[name]);
  const url = opts.smtpUrl ?? fromEnv('SVC_SMTP_URL');
  const from = opts.smtpFrom ?? fromEnv('SVC_SMTP_FROM');
  if (url === undefined) {
    if (from !== undefined) throw usageError('--smtp-from (SVC_SMTP_FROM) needs an SMTP server', 'add --smtp-url smtp://user:pass@host:587');
    return {};
  }
  const problem = smtpUrlProblem(url);
  if (problem !== null) throw usageError(problem, 'expected smtp://user:pass@host:port or smtps://...; percent-encode special characters');
  if (from !== undefined && (from.trim() === '' || /[\r\n]/.test(from))) throw usageError('--smtp-from must be one e-mail address');
  return { smtpUrl: url, ...(from === undefined ? {} : { smtpFrom: from }) };
}

/**
 * The token GET /metrics requires: the flag, else SVC_METRICS_TOKEN (empty counts as unset). It travels as a
 * bearer token, so it is one word of visible ASCII; 16 characters at least, since anyone may try guesses.
 * Errors never quote it.
 */
function metricsTokenSetting(opts: ServeFlags, env: Record<string, string | undefined>): string | undefined {
  if (!opts.metrics) {
    if (opts.metricsToken !== undefined) throw usageError('--metrics-token has no effect with --no-metrics', 'drop one of the two');
    return undefined;
  }
  const fromEnv = env['SVC_METRICS_TOKEN'] === '' ? undefined : env['SVC_METRICS_TOKEN'];
  const token = opts.metricsToken ?? fromEnv;
  if (token === undefined) return undefined;
  if (!/^[\x21-\x7e]{16,512}$/.test(token)) {
    const source = opts.metricsToken === undefined ? 'SVC_METRICS_TOKEN' : '--metrics-token';
    throw usageError(`${source} must be 16 to 512 visible ASCII characters, without spaces`, 'make one with `openssl rand -hex 32`');
  }
  return token;
}

function smtpUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'the SMTP URL is not a valid URL';
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') return 'the SMTP URL must start with smtp:// or smtps://';
  return url.hostname === '' ? 'the SMTP URL has no host' : null;
}
