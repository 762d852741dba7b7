/**
 * svc's store on PostgreSQL (node-postgres). Loaded only when a `postgres://` URL is used, so the embedded
 * SQLite path never pays for it. One pool per process; write transactions run on one checked-out client at
 * READ COMMITTED, with the engine taking row locks (`FOR UPDATE`) where it checks before it writes, and are
 * run again from the start after a serialization failure or deadlock.
 */
import pg from 'pg';
import { query, type SqlExecutor } from '../sql.js';
import type { SqlDatabase, WriteOptions } from '../sql-database.js';
import { BatchWriteFailed, GROUP_LINGER_MS, prepareBatch, runBatch, runWhole, settle, someWriteFailed, WriteGroups, type GroupedWrite } from '../group-commit.js';
import { pgExecutor } from './pg-executor.js';
import { PoolGate } from './pool-gate.js';
import { DeferredWrites } from '../deferred-writes.js';
import { flushDeferred } from '../message-store.js';
import { isRetryableConflict, mapPgError, unavailable } from './pg-errors.js';
import { NOTIFY_CHANNEL, PgNotifications, listenerConfig, type NotificationHandler } from './pg-notifications.js';

const INT8_OID = 20;
const NUMERIC_OID = 1700;

// Ids, timestamps (epoch milliseconds) and sums are BIGINT/NUMERIC; every value svc stores fits a double.
const typeParsers = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === INT8_OID || oid === NUMERIC_OID) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as 'text');
  }) as typeof pg.types.getTypeParser,
};

export interface PgDatabaseOptions {
  url: string;
  /** Most connections this process opens for queries (the LISTEN connection comes on top). */
  poolSize?: number;
  /** How long the server may take to answer a new connection before the database counts as unavailable. */
  connectTimeoutMs?: number;
  /** How long a request waits in line for a connection other requests hold before it is refused as busy (429). */
  poolWaitMs?: number;
  /** How long an unused pooled connection stays open. */
  idleTimeoutMs?: number;
  /** Background failures: idle connections dropped by a restarting server, the LISTEN connection lost. */
  onError?: (error: unknown) => void;
}

// Every topic of a wake-up in one statement (one round trip and one commit however many topics).
const NOTIFY = query('SELECT pg_notify(@channel, topic) FROM unnest(@topics::text[]) AS topic');

/** How many times a transaction is run when it keeps losing serialization conflicts. */
const MAX_CONFLICT_RETRIES = 30;

/** Most writes one group commit carries; the rest wait for the next. */
const MAX_GROUP = 256;

export class PgDatabase implements SqlDatabase {
  readonly dialect = 'postgres' as const;
  readonly pool: pg.Pool;
  /** The line for a pooled connection: every statement and transaction of this process goes through it. */
  readonly gate: PoolGate;
  /** Autocommit statements on the pool. */
  readonly sql: SqlExecutor;
  private readonly listener: PgNotifications;
  private readonly groups: WriteGroups;
  /** The last batch had a failing write: the next one starts with a savepoint per write. */
  private lastBatchFailed = false;
  private closed = false;

  constructor(private readonly options: PgDatabaseOptions) {
    const config: pg.PoolConfig = {
      connectionString: options.url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      idleTimeoutMillis: options.idleTimeoutMs ?? 30_000,
      types: typeParsers,
      application_name: 'svc',
      // A transaction's BEGIN goes out with its first statement (`transaction`), not a round trip of its own.
      pipeline: true,
    };
    this.pool = new pg.Pool(config);
    // An idle connection cut by a server restart emits here; without a listener it would end the process.
    this.pool.on('error', (error) => options.onError?.(error));
    // A checked-out connection has no listener of the pool's: the server's "terminating connection" (57P01)
    // arriving between two statements, or in the same read as the answer that freed the connection for its
    // next user (before that user's await resumes), would be an unhandled 'error' and end the process. Each
    // connection keeps a listener of its own; the error still marks it unusable, so its next statement
    // fails as "unavailable" (a 503) and the pool discards it on release.
    this.pool.on('connect', (client) => client.on('error', () => undefined));
    this.gate = new PoolGate(this.pool, { size: config.max!, waitMs: options.poolWaitMs ?? 10_000 });
    this.sql = pgExecutor(this.gate);
    // One batch at a time, as on SQLite: batches run side by side measured slower, since they queue on the same
    // workspace rows and make smaller batches (wrk -c32, one workspace: 1,370 and 1,140 req/s with one at a
    // time, 910 and 730 with three; starting the next batch while one waits for its COMMIT did not help).
    this.groups = new WriteGroups({ maxBatch: MAX_GROUP, lingerMs: GROUP_LINGER_MS, commit: (batch) => this.commitGroup(batch) });
    this.listener = new PgNotifications({
      newClient: () => new pg.Client(listenerConfig({ connectionString: options.url, types: typeParsers, application_name: 'svc-listen' })),
      ...(options.onError === undefined ? {} : { onError: options.onError }),
    });
  }

  /**
   * Runs `fn` in one transaction on one connection and commits; rolls back on any error. A serialization
   * failure or deadlock runs `fn` again from the start, so `fn` must only touch the database (and state it
   * rebuilds on every run).
   */
  async write<T>(fn: (tx: SqlExecutor) => Promise<T>, options: WriteOptions = {}): Promise<T> {
    if (options.grouped === true) return this.groups.push(fn, options.order, options.prelude, options.admission);
    const begin = [
      options.isolation === 'read committed' ? 'BEGIN' : 'BEGIN ISOLATION LEVEL SERIALIZABLE',
      ...(options.indexScans === true ? ['SET LOCAL enable_bitmapscan = off'] : []),
      ...(options.genericPlans === true ? ['SET LOCAL plan_cache_mode = force_generic_plan'] : []),
    ];
    // One message for all (a simple query of several statements), sent with the transaction's first statement.
    return this.transaction(begin.join('; '), fn, options.genericPlans === true);
  }

  /** One transaction on one connection; what `fn` deferred (`tx.deferred`) is written just before the COMMIT. */
  private async transaction<T>(begin: string, fn: (tx: SqlExecutor) => Promise<T>, genericPlans = false): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      const client = await this.gate.acquire();
      let broken: Error | undefined;
      const sent: Array<Promise<unknown>> = [];
      try {
        // Pipelined: the BEGIN's answer is not waited for. Its failure (a broken connection) fails the
        // statements behind it too; awaited after `fn` for a transaction that sent none.
        const began = client.query(begin);
        began.catch(() => undefined);
        const tx = pgExecutor(client, { memo: new Map(), deferred: new DeferredWrites(), sent, genericPlans });
        const result = await fn(tx);
        await began;
        await flushDeferred(tx);
        // Pipelined behind the writes sent without waiting (`sendBeforeCommit`). A failed one has aborted the
        // transaction, which this COMMIT then rolls back: its error is thrown here, before the COMMIT's answer.
        const committed = client.query('COMMIT');
        committed.catch(() => undefined);
        await Promise.all(sent);
        if ((await committed).command !== 'COMMIT') throw new Error('the transaction was rolled back at its COMMIT');
        return result;
      } catch (thrown) {
        await client.query('ROLLBACK').catch((rollbackError: Error) => {
          broken = rollbackError;
        });
        // A write sent unanswered that failed is the cause of what failed after it ("transaction is aborted").
        const error: unknown = (await Promise.allSettled(sent)).find((settled) => settled.status === 'rejected')?.reason ?? thrown;
        if (isRetryableConflict(error) && attempt < MAX_CONFLICT_RETRIES) {
          // Exponential backoff with full jitter, so transactions that collided do not collide again in step.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(200, 2 ** attempt)));
          continue;
        }
        throw mapPgError(error);
      } finally {
        // A client whose ROLLBACK failed is in an unknown state: destroy it rather than return it to the pool.
        this.gate.release(client, broken);
      }
    }
  }

  /**
   * Group commit: the grouped writes of one turn run in one READ COMMITTED transaction on one connection, so a
   * batch pays one BEGIN and COMMIT, and a row an earlier write of the batch locked (the workspace of a send)
   * is not asked for again (`SqlExecutor.memo`). A write that fails undoes only itself (`runBatch`); a
   * deadlock or serialization failure runs the whole batch again.
   */
  private async commitGroup(batch: GroupedWrite[]): Promise<void> {
    // Most batches succeed whole: they run without savepoints (two round trips fewer while the batch holds its
    // workspace rows). If a write fails, that transaction is rolled back and the batch runs again in a new one
    // with a savepoint per write, as does the next batch (failures come in runs).
    if (batch.length > 1 && !this.lastBatchFailed) {
      const whole = await this.transaction('BEGIN', async (tx) => {
        return runWhole(tx, batch, await prepareBatch(tx, batch, true), isRetryableConflict);
      }).catch((error: unknown) => {
        if (error instanceof BatchWriteFailed) return undefined;
        throw error;
      });
      if (whole !== undefined) return settle(batch, whole);
    }
    const outcomes = await this.transaction('BEGIN', async (tx) => {
      const outcomes = await runBatch(tx, batch, await prepareBatch(tx, batch, true), false, isRetryableConflict);
      this.lastBatchFailed = someWriteFailed(outcomes);
      return outcomes;
    });
    settle(batch, outcomes);
  }

  /** Wake-ups across replicas: `notify` is sent when `tx` commits; `subscribe` hears every replica's. */
  readonly notifications = {
    notify: async (tx: SqlExecutor, topics: readonly string[]): Promise<void> => {
      await tx.run(NOTIFY, { channel: NOTIFY_CHANNEL, topics });
    },
    subscribe: (handler: NotificationHandler): (() => void) => this.listener.subscribe(handler),
  };

  /** Resolves once this process listens for notifications. */
  listening(): Promise<void> {
    return this.listener.ready();
  }

  /** A connection of its own, opened for the check and closed after it (2 s at most). */
  async ping(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.url, connectionTimeoutMillis: 2000, query_timeout: 2000, application_name: 'svc-ready' });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
    } catch (error) {
      throw unavailable(error);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.listener.stop();
    await this.pool.end();
  }

}
