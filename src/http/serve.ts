/**
 * `svc serve`: opens the engine on a data directory, starts its workers, and serves it over HTTP.
 * Shutdown order matters: stop taking requests and drain them first, then stop the workers (which finish
 * the job in hand), then close the database, so nothing acknowledged is lost.
 */
import type { AddressInfo } from 'node:net';
import { maskSmtpUrl, openEngine } from '../runtime/open-engine.js';
import { SvcError } from '../wire/errors.js';
import { buildServer } from './server/build-server.js';
import type { RequestLogOptions } from './server/request-log.js';
import { createServerMetrics } from '../runtime/metrics.js';

/** Options of `serve`, as the CLI's `svc serve` passes them. */
export interface ServeOptions {
  port: number;
  host: string;
  dataDir: string;
  /** A `postgres://` URL: serve the engine on that database instead of `dataDir`. */
  databaseUrl?: string | undefined;
  dev: boolean;
  publicUrl?: string | undefined;
  rateLimitPerMinute?: number | undefined;
  webhookRetryDelaysMs?: number[] | undefined;
  /** How long a claimed send job stays leased before another process may take it over (engine default 30 s). */
  sendLeaseMs?: number | undefined;
  /** In-flight requests get this long to finish on close before their connections are cut. */
  drainTimeoutMs?: number | undefined;
  /** SMTP URL (with its password) for e-mailing owner notifications; without it they are only recorded. */
  smtpUrl?: string | undefined;
  /** From address of those e-mails. */
  smtpFrom?: string | undefined;
  /** Serve Prometheus metrics at GET /metrics (default true). */
  metrics?: boolean | undefined;
  /** When set, GET /metrics requires `Authorization: Bearer <metricsToken>`; never printed. */
  metricsToken?: string | undefined;
  /** One line per request (`svc serve` writes them to stderr); none when absent. */
  requestLog?: RequestLogOptions | undefined;
  log: (line: string) => void;
}

/** A running server. `close` is idempotent. */
export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;

/**
 * SQLite waits for another process's write lock synchronously, which stops the whole event loop: a backup or
 * a local `svc` command holding the lock for seconds would freeze every request, /healthz included. The
 * server waits this long at most, then answers 503 with Retry-After (reads never wait: WAL readers do not block).
 */
export const SERVER_BUSY_TIMEOUT_MS = 20;

/** Serves the engine of `opts.dataDir` until `close()` is called. */
export async function serve(opts: ServeOptions): Promise<RunningServer> {
  const metrics = opts.metrics === false ? undefined : createServerMetrics();
  const engine = await openEngine({
    ...(metrics === undefined ? {} : { metrics: metrics.engine }),
    // Operational lines (a worker failing, a tenant's webhook backlog) go to the server's output, without stacks.
    logger: {
      info: (message) => opts.log(message),
      error: (message, fields) => opts.log(fields === undefined ? message : `${message} ${JSON.stringify(fields)}`),
    },
    dataDir: opts.dataDir,
    ...(opts.databaseUrl === undefined ? {} : { databaseUrl: opts.databaseUrl }),
    replica: true,
    serve: true,
    dev: opts.dev,
    checkIntegrity: true,
    backgroundCheckpoints: true,
    busyTimeoutMs: SERVER_BUSY_TIMEOUT_MS,
    ...(opts.publicUrl === undefined ? {} : { publicUrl: opts.publicUrl }),
    ...(opts.webhookRetryDelaysMs === undefined ? {} : { webhookRetryDelaysMs: opts.webhookRetryDelaysMs }),
    ...(opts.sendLeaseMs === undefined ? {} : { sendLeaseMs: opts.sendLeaseMs }),
    ...(opts.smtpUrl === undefined ? {} : { smtp: { url: opts.smtpUrl, from: opts.smtpFrom }, mailLog: opts.log }),
  }).catch((error: unknown) => {
    metrics?.close();
    throw error;
  });
  // The URL holds the SMTP password: only its masked form is ever printed.
  if (opts.smtpUrl !== undefined) opts.log(`owner notifications: e-mailed via ${maskSmtpUrl(opts.smtpUrl)}`);
  metrics?.watchQueues(() => engine.queueStats(), () => Date.now());
  const app = buildServer({
    engine,
    metrics,
    metricsToken: opts.metricsToken,
    publicUrl: opts.publicUrl,
    rateLimitPerMinute: opts.rateLimitPerMinute,
    ...(opts.requestLog === undefined ? {} : { requestLog: opts.requestLog }),
    onInternalError: (error, request) =>
      opts.log(`error ${request.method} ${request.url}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
  });

  try {
    await app.listen({ port: opts.port, host: opts.host });
  } catch (error) {
    await app.close().catch(() => undefined);
    metrics?.close();
    await engine.workers.stop();
    await engine.close();
    throw listenError(error, opts);
  }

  const { port } = app.server.address() as AddressInfo;
  const url = `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}`;
  // Links in webhook payloads are built by the engine, with no request to take an origin from: without
  // --public-url they point at where this server really listens (the port may have been 0). The workers
  // start only now, so no event is built with the default origin first.
  if (opts.publicUrl === undefined) engine.usePublicUrl(url);
  engine.workers.start();
  // No "listening on" line here: `svc serve` prints it itself once its signal handlers are in place, so a
  // script that signals right after reading the line always gets a graceful shutdown.

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      const drain = setTimeout(() => app.server.closeAllConnections(), opts.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS);
      try {
        await app.close();
      } finally {
        clearTimeout(drain);
        metrics?.close();
        await engine.workers.stop();
        await engine.close();
      }
    })();
    return closed;
  };
  return { url, close };
}

const listenError = (error: unknown, opts: ServeOptions): SvcError => {
  const code = (error as { code?: string }).code;
  const where = `${opts.host}:${opts.port}`;
  if (code === 'EADDRINUSE') {
    return new SvcError('unavailable', `Cannot listen on ${where}: the address is already in use`, {
      hint: 'pick another --port, or --port 0 for a free one',
      cause: error,
    });
  }
  if (code === 'EACCES' || code === 'EADDRNOTAVAIL') {
    return new SvcError('unavailable', `Cannot listen on ${where} (${code})`, {
      hint: 'use a port above 1024 and an address of this machine, e.g. --host 127.0.0.1',
      cause: error,
    });
  }
  return new SvcError('unavailable', `Cannot listen on ${where}`, { cause: error });
};
