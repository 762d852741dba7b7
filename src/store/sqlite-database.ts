/**
 * The embedded store: one better-sqlite3 connection per process. Statements are synchronous underneath and
 * resolve at once; write transactions are queued so only one is open on the connection at a time, and
 * writes that ask for it share a group commit (one COMMIT per turn of the event loop).
 */
import type { Statement as PreparedStatement } from 'better-sqlite3';
import type { Db } from './database.js';
import { NAMED_PARAMETER, positionalValues, type Params, type SqlExecutor, type Statement } from './sql.js';
import type { SqlDatabase, WriteOptions } from './sql-database.js';
import { prepareBatch, runBatch, settle, someWriteFailed, WriteGroups, type GroupedWrite, type Outcome } from './group-commit.js';
import { DeferredWrites } from './deferred-writes.js';
import { flushDeferred } from './message-store.js';
import { rollsBack, SqliteReadCache, tablesWrittenBy } from './sqlite-read-cache.js';

interface WriterQueue {
  busy: boolean;
  waiting: Array<() => void>;
}

const writerQueues = new Map<string, WriterQueue>();

interface CompiledStatement {
  prepared: PreparedStatement;
  /** The `@name` parameters in the order of their `?` placeholders. */
  names: string[];
  /** The tables a write statement writes (whose remembered rows it makes stale); empty for a read. */
  writes: string[];
  /** A rollback, after which no remembered row can be trusted. */
  rollsBack: boolean;
}

/** Every `@name` becomes an anonymous `?`, in order of appearance (a name used twice is bound twice). */
function compile(db: Db, s: Statement): CompiledStatement {
  if (s.text.sqlite === '') throw new Error(`statement ${s.id} is PostgreSQL-only: ${s.text.postgres.slice(0, 60)}`);
  const names: string[] = [];
  const text = s.text.sqlite.replace(NAMED_PARAMETER, (_match, name: string) => {
    names.push(name);
    return '?';
  });
  const prepared = db.prepare(text);
  return { prepared, names, writes: prepared.readonly ? [] : tablesWrittenBy(text), rollsBack: rollsBack(text) };
}

const NO_VALUES: unknown[] = [];

/** The values of `params` in positional order; a name the caller did not give is an error, as on PostgreSQL. */
function valuesOf(names: readonly string[], params: Params | undefined): unknown[] {
  return names.length === 0 ? NO_VALUES : positionalValues(names, params);
}

/**
 * One queue per database file in this process. Two connections of one process to the same file (tests and
 * `svc/testing` open several engines on one data directory) must not both hold a transaction: the second
 * BEGIN IMMEDIATE would wait for the lock synchronously, blocking the event loop the first one needs to
 * finish, until the busy timeout. An in-memory database is private to its connection and queues alone.
 */
function writerQueueOf(file: string): WriterQueue {
  if (file === ':memory:' || file === '') return { busy: false, waiting: [] };
  let queue = writerQueues.get(file);
  if (queue === undefined) {
    queue = { busy: false, waiting: [] };
    writerQueues.set(file, queue);
  }
  return queue;
}

/** Most writes one group commit carries; the rest wait for the next. */
const MAX_GROUP = 512;

export class SqliteDatabase implements SqlDatabase {
  readonly dialect = 'sqlite' as const;
  readonly sql: SqlExecutor;
  /** The executor handed to transactions: the same connection, without the autocommit writer's queueing. */
  private readonly tx: SqlExecutor;
  /** Prepared statements by `Statement.id` (small consecutive numbers: an array is the cheapest lookup). */
  private readonly prepared: CompiledStatement[] = [];
  private readonly cache: SqliteReadCache;
  private readonly begin: PreparedStatement;
  private readonly commit: PreparedStatement;
  private readonly rollback: PreparedStatement;
  /** Shared by every connection of this process to the same file (see `writerQueueOf`). */
  private readonly writer: WriterQueue;
  private readonly groups = new WriteGroups({ maxBatch: MAX_GROUP, lingerMs: 0, commit: (batch) => this.commitGroup(batch) });
  /** The last batch had a failing write: the next one starts with a savepoint per write. */
  private lastBatchFailed = false;

  constructor(
    readonly db: Db,
    private readonly beforeClose?: () => Promise<void>,
  ) {
    this.writer = writerQueueOf(db.name);
    // Parameters are bound by position: better-sqlite3 binds a named object by looking every name up, about
    // a third slower, and this is the hot path of every send.
    const statement = (s: Statement): CompiledStatement => (this.prepared[s.id] ??= compile(db, s));
    const dataVersion = db.prepare('PRAGMA data_version').pluck();
    const cache = (this.cache = new SqliteReadCache(db.name, () => dataVersion.get() as number));
    this.tx = {
      dialect: 'sqlite',
      memo: new Map<string, unknown>(),
      deferred: new DeferredWrites(),
      all<Row>(s: Statement<Row>, params?: Params): Promise<Row[]> {
        try {
          const c = statement(s);
          if (c.writes.length > 0) cache.written(c.writes, db.inTransaction);
          return Promise.resolve(c.prepared.all(...valuesOf(c.names, params)) as Row[]);
        } catch (error) {
          return Promise.reject(error);
        }
      },
      get<Row>(s: Statement<Row>, params?: Params): Promise<Row | undefined> {
        try {
          const c = statement(s);
          const values = valuesOf(c.names, params);
          const tables = s.options?.cachedUntilWritten;
          if (tables !== undefined) return Promise.resolve(cache.read(s, tables, values, () => c.prepared.get(...values) as Row | undefined));
          if (c.writes.length > 0) cache.written(c.writes, db.inTransaction);
          return Promise.resolve(c.prepared.get(...values) as Row | undefined);
        } catch (error) {
          return Promise.reject(error);
        }
      },
      run(s: Statement, params?: Params): Promise<number> {
        try {
          const c = statement(s);
          if (c.writes.length > 0) cache.written(c.writes, db.inTransaction);
          if (c.rollsBack) cache.rolledBack(false);
          return Promise.resolve(c.prepared.run(...valuesOf(c.names, params)).changes);
        } catch (error) {
          return Promise.reject(error);
        }
      },
    };
    // An autocommit write issued while another flow's transaction is open on this connection would land
    // inside it (and vanish with its rollback): it waits for the transaction to end instead. Reads go at once.
    const waitsForWriter = (s: Statement): boolean => this.writer.busy && !statement(s).prepared.readonly;
    this.sql = {
      dialect: 'sqlite',
      all: <Row>(s: Statement<Row>, params?: Params) =>
        waitsForWriter(s) ? this.exclusively(() => this.tx.all(s, params)) : this.tx.all(s, params),
      get: <Row>(s: Statement<Row>, params?: Params) =>
        waitsForWriter(s) ? this.exclusively(() => this.tx.get(s, params)) : this.tx.get(s, params),
      run: (s: Statement, params?: Params) => (waitsForWriter(s) ? this.exclusively(() => this.tx.run(s, params)) : this.tx.run(s, params)),
    };
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
  }

  write<T>(fn: (tx: SqlExecutor) => Promise<T>, options: WriteOptions = {}): Promise<T> {
    if (options.grouped === true) return this.groups.push(fn, options.order, undefined, options.admission);
    return this.exclusively(() => this.transaction(() => fn(this.tx)));
  }

  ping(): Promise<void> {
    try {
      this.db.prepare('SELECT 1').get();
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async close(): Promise<void> {
    await this.beforeClose?.();
    this.cache.close();
    this.db.close();
  }

  /**
   * One transaction at a time on the connection: the IMMEDIATE lock orders writers of different processes,
   * this queue the writers of this one (their statements would otherwise land in each other's transaction).
   */
  private async exclusively<T>(fn: () => Promise<T>): Promise<T> {
    if (this.writer.busy) await new Promise<void>((resolve) => this.writer.waiting.push(resolve));
    this.writer.busy = true;
    try {
      return await fn();
    } finally {
      const next = this.writer.waiting.shift();
      if (next === undefined) this.writer.busy = false;
      else next();
    }
  }

  private async transaction<T>(fn: () => Promise<T>): Promise<T> {
    // A read-only snapshot (a data directory svc may not write) has nothing to lock: reads inside fn work,
    // and the first write fails with SQLITE_READONLY before anything changes.
    if (this.db.readonly) {
      this.tx.deferred?.clear();
      const result = await fn();
      await flushDeferred(this.tx);
      return result;
    }
    this.tx.memo?.clear();
    this.tx.deferred?.clear();
    this.begin.run();
    this.cache.writeTransactionBegan();
    try {
      const result = await fn();
      await flushDeferred(this.tx);
      this.commit.run();
      this.cache.committed();
      return result;
    } catch (error) {
      if (this.db.inTransaction) this.rollback.run();
      this.cache.rolledBack(true);
      throw error;
    }
  }

  /**
   * Group commit: the writes queued during one turn share a transaction, and one failing request undoes only
   * its own writes. Nobody is answered before the shared COMMIT, so an acknowledged write is as durable as
   * with a transaction of its own. After a batch with a failing write, the next one starts with a savepoint
   * per write, since failures come in runs (an exhausted quota fails them all).
   */
  private async commitGroup(batch: GroupedWrite[]): Promise<void> {
    let outcomes: Outcome[] = [];
    try {
      await this.exclusively(() =>
        this.transaction(async () => {
          outcomes = await runBatch(this.tx, batch, await prepareBatch(this.tx, batch, false), !this.lastBatchFailed);
          this.lastBatchFailed = someWriteFailed(outcomes);
        }),
      );
    } catch (error) {
      // The write of a batch of one, or the shared commit itself (the lock stayed busy): nothing was written.
      if (batch.length === 1) this.lastBatchFailed = true;
      for (const item of batch) item.reject(error);
      return;
    }
    settle(batch, outcomes);
  }
}
