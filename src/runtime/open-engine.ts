import { homedir } from 'node:os';
import { join } from 'node:path';
import { checkpointInBackground } from '../store/background-checkpoint.js';
import { checkIntegrity, openDatabase } from '../store/database.js';
import { SqliteDatabase } from '../store/sqlite-database.js';
import type { SqlDatabase } from '../store/sql-database.js';
import { systemClock, type Clock, type Random } from '../wire/clock.js';
import type { Logger } from '../engine/context.js';
import type { EngineMetrics } from '../engine/engine-metrics.js';
import { createEngine } from './create-engine.js';
import { applyInstancePolicy, type EffectivePolicy } from './instance-policy.js';
import type { Engine } from '../engine/engine-api.js';

/** The engine as the CLI's admin commands hold it (they reach the engine only through this entry point). */
export type { Engine };
export type { InstanceSettingsDto, InstanceSettingsUpdate } from '../engine/instance-settings.js';
import type { SmtpSettings } from '../workers/smtp.js';
import type { ResolveHost } from '../webhooks/guarded-dispatcher.js';

export { maskSmtpUrl, type SmtpSettings } from '../workers/smtp.js';

export interface OpenEngineOptions {
  /** Directory holding `svc.db`; created (owner-only) when missing. Unused when `databaseUrl` is given. */
  dataDir: string;
  /** A `postgres://` URL: the engine runs on that PostgreSQL database (migrated first) instead of `svc.db`. */
  databaseUrl?: string;
  /**
   * A long-running server (svc serve) rather than one command: on PostgreSQL it keeps a larger pool and a
   * connection that listens for the other replicas' wake-ups.
   */
  replica?: boolean;
  /**
   * `svc serve`: `dev` false marks the instance strict for good, `dev` true is refused on a strict instance,
   * and `webhookRetryDelaysMs` becomes the instance's schedule (src/runtime/instance-policy.ts). Any other
   * process gets `dev` only on an instance never marked strict, and the instance's retry schedule.
   */
  serve?: boolean;
  dev?: boolean;
  /**
   * Run the HTTP webhook worker when the workers start (default true). One-shot commands pass false: they
   * leave deliveries to a long-running process, so none waits on a receiver or leaves a claim behind.
   */
  deliverWebhooks?: boolean;
  publicUrl?: string;
  webhookRetryDelaysMs?: number[];
  sendLeaseMs?: number;
  clock?: Clock;
  random?: Random;
  logger?: Logger;
  /** E-mails owner notifications (svc serve --smtp-url); without it they are only recorded. */
  smtp?: SmtpSettings;
  /** Where the mailer reports failed sends (the server's output). */
  mailLog?: (line: string) => void;
  /** Read every page first and refuse a damaged database (svc serve, before it starts listening). */
  checkIntegrity?: boolean;
  /** How long a write waits for another process's lock before answering "busy" (default 10 s). */
  busyTimeoutMs?: number;
  /** Receives what the engine reports (svc serve's Prometheus metrics). */
  metrics?: EngineMetrics;
  /** DNS behind webhook deliveries (default: the system resolver); tests make a name resolve to loopback. */
  webhookResolveHost?: ResolveHost;
  /** Checkpoint the WAL on a thread of its own rather than inside commits (svc serve: a long-lived writer). */
  backgroundCheckpoints?: boolean;
}

/** The default data directory: `SVC_HOME`, else `~/.local/share/svc`. */
export const defaultDataDir = (env: NodeJS.ProcessEnv = process.env): string =>
  env.SVC_HOME && env.SVC_HOME.length > 0 ? env.SVC_HOME : join(homedir(), '.local', 'share', 'svc');

export const databasePath = (dataDir: string): string => join(dataDir, 'svc.db');

/**
 * Opens the engine over PostgreSQL (`databaseUrl`) or the SQLite database in `dataDir`, migrating it first.
 * Workers are not started.
 */
export async function openEngine(options: OpenEngineOptions): Promise<Engine> {
  // The one place that picks the store. The PostgreSQL driver is imported only here, only for a URL.
  const database: SqlDatabase =
    options.databaseUrl === undefined ? openSqlite(options) : await openPostgresStore(options.databaseUrl, options.replica === true, options.logger);
  let policy: EffectivePolicy;
  try {
    policy = await applyInstancePolicy(database, options.clock ?? systemClock, {
      serve: options.serve === true,
      dev: options.dev ?? false,
      webhookRetryDelaysMs: options.webhookRetryDelaysMs,
    });
  } catch (error) {
    await database.close();
    throw error;
  }
  return createEngine({
    database,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.random === undefined ? {} : { random: options.random }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.smtp === undefined ? {} : { smtp: options.smtp }),
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    ...(options.replica === undefined ? {} : { replica: options.replica }),
    ...(options.mailLog === undefined ? {} : { ownerMailer: { log: options.mailLog } }),
    ...(options.deliverWebhooks === undefined ? {} : { deliverWebhooks: options.deliverWebhooks }),
    ...(options.webhookResolveHost === undefined ? {} : { webhookResolveHost: options.webhookResolveHost }),
    config: {
      dev: policy.dev,
      ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }),
      ...(policy.webhookRetryDelaysMs === undefined ? {} : { webhookRetryDelaysMs: policy.webhookRetryDelaysMs }),
      ...(options.sendLeaseMs === undefined ? {} : { sendLeaseMs: options.sendLeaseMs }),
    },
  });
}

async function openPostgresStore(url: string, replica: boolean, logger: Logger | undefined): Promise<SqlDatabase> {
  const { openPostgres } = await import('../store/postgres/open-postgres.js');
  return openPostgres(url, {
    // One command does one thing at a time and should hold no connection it does not use (many may run at
    // once); a server serves many requests at once, its writes mostly through one group commit at a time.
    poolSize: replica ? positiveEnv('SVC_DATABASE_POOL_SIZE', 10) : 1,
    // A request waits this long for a connection the others hold before it is answered 429 (busy).
    poolWaitMs: positiveEnv('SVC_DATABASE_POOL_WAIT_MS', 10_000),
    idleTimeoutMs: replica ? 30_000 : 1000,
    // Background failures (a restarting server cutting idle connections) are logged; requests meanwhile get 503.
    onError: (error) => logger?.error('database connection lost', { error: String(error) }),
  });
}

/** A positive whole number from the environment, or `fallback`. */
function positiveEnv(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

/** `svc.db` in the data directory, migrated (and checked, when asked) before the engine sees it. */
function openSqlite(options: OpenEngineOptions): SqliteDatabase {
  const path = databasePath(options.dataDir);
  const db = openDatabase(path, options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs });
  if (options.checkIntegrity === true) {
    try {
      checkIntegrity(db, path);
    } catch (error) {
      db.close();
      throw error;
    }
  }
  const checkpoints = options.backgroundCheckpoints === true && !db.readonly ? checkpointInBackground(db, path) : undefined;
  // The checkpoint thread stops when the database closes: after the workers, before the connection.
  return new SqliteDatabase(db, checkpoints?.stop);
}
