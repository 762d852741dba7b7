/**
 * The database behind one engine, whichever store it is: SQLite in a data directory (the embedded default)
 * or PostgreSQL shared by replicas. The engine sees only this interface and the `SqlExecutor` of sql.ts.
 */
import { query, type Dialect, type SqlExecutor } from './sql.js';
import { flushReceived } from './message-store.js';

/**
 * Reads that the writes of a batch would each make with a round trip of their own (lock a workspace, read its
 * default sender, a chat), made once for the whole batch: `run` is called once per batch transaction, before
 * its writes, with the `arg` of every write of the batch that named it, and leaves what it read in the
 * transaction's `memo`, where the writes look first. Only a store where every statement is a round trip
 * (PostgreSQL) runs preludes; the writes must still be right without them (a savepoint rolled back empties
 * the memo, and the writes after it read for themselves).
 */
export interface BatchPrelude {
  run: (tx: SqlExecutor, args: unknown[]) => Promise<void>;
  arg: unknown;
}

/** A write's share of the prelude `run`: `arg` joins the args of the batch's other writes that name the same `run`. */
export const preludeShare = <Arg>(run: (tx: SqlExecutor, args: Arg[]) => Promise<void>, arg: Arg): BatchPrelude => ({
  run: run as BatchPrelude['run'],
  arg,
});

/**
 * A condition a grouped write must still meet when its batch runs (its API token is still live), checked for
 * the whole batch at once inside the batch's transaction, before any write of it: `check` is called once per
 * batch with the `arg` of every write that named it and answers, in the same order, whether each is admitted;
 * one not admitted never runs and is answered with `refusal()`. On PostgreSQL the check is sent with the
 * batch's preludes, so it costs no round trip of its own.
 */
export interface BatchAdmission {
  check: (tx: SqlExecutor, args: unknown[]) => Promise<boolean[]>;
  arg: unknown;
  refusal: () => Error;
}

export interface WriteOptions {
  /**
   * Join the write transaction that the next turn of the event loop commits for every request that asked for
   * one (group commit, `group-commit.ts`); a failing write undoes only its own writes.
   */
  grouped?: boolean;
  /**
   * Grouped writes of one batch run in ascending `order` (the workspace id of a send), so batches running at
   * once on PostgreSQL lock shared rows in one order and never deadlock each other.
   */
  order?: number;
  /**
   * PostgreSQL isolation. `serializable` (the default) makes every check-then-write rule as exact as on
   * SQLite's single writer; `read committed` is for transactions that lock the rows they depend on first
   * (claims with `FOR UPDATE SKIP LOCKED`, sends behind their workspace's row lock), where replicas racing for
   * the same rows should wait or skip, not fail and retry.
   */
  isolation?: 'serializable' | 'read committed';
  /**
   * PostgreSQL: plan the transaction's statements without bitmap scans (`SET LOCAL enable_bitmapscan = off`,
   * sent with its BEGIN). For claims of a queue table: its partial indexes keep an entry for every row that
   * left them (a delivery no longer delivering) until VACUUM, and a plain index scan marks such an entry dead
   * the first time it passes it, while a bitmap scan visits every one again at every claim (measured: 8,361 of
   * them, 4-6 ms, in one count of live leases after a 10 s load; 0.06 ms once an index scan had passed).
   */
  indexScans?: boolean;
  /**
   * PostgreSQL: run every statement of the transaction on its generic plan (`SET LOCAL plan_cache_mode =
   * force_generic_plan`, sent with its BEGIN), planned once per connection instead of at every call. Only for a
   * transaction whose every statement reaches its rows by key whatever the estimates (test/store/query-plans-pg
   * shows each): a generic plan that guesses a size and scans a table costs more than planning saves.
   */
  genericPlans?: boolean;
  /** A grouped write's share of its batch's prelude (`group-commit.ts`): reads made once for the whole batch. */
  prelude?: BatchPrelude;
  /** A grouped write's admission (`BatchAdmission`): refused without running unless it holds when the batch runs. */
  admission?: BatchAdmission;
}

export interface SqlDatabase {
  readonly dialect: Dialect;
  /** Autocommit statements: reads, and writes that are one statement. */
  readonly sql: SqlExecutor;
  /**
   * Runs `fn` in one write transaction and commits; rolls back on any error. `fn` may be run again from the
   * start (PostgreSQL serialization failures), so it must only touch the database through `tx` and await
   * nothing else: no network, no timers.
   */
  write<T>(fn: (tx: SqlExecutor) => Promise<T>, options?: WriteOptions): Promise<T>;
  /** Wake-ups for other processes on the same database (PostgreSQL LISTEN/NOTIFY); absent on SQLite. */
  readonly notifications?: {
    /** Sent when `tx` commits: each of `topics` a notification of its own. */
    notify(tx: SqlExecutor, topics: readonly string[]): Promise<void>;
    subscribe(handler: (topic: string) => void): () => void;
  };
  /**
   * Resolves when the database answers a trivial query on a connection of its own (readiness), however busy
   * the pooled connections are; rejects with `unavailable` when it does not.
   */
  ping(): Promise<void>;
  close(): Promise<void>;
}

const SAVEPOINT = query('SAVEPOINT svc_nested');
const RELEASE = query('RELEASE SAVEPOINT svc_nested');
const ROLLBACK_TO = query('ROLLBACK TO SAVEPOINT svc_nested');

/**
 * Runs `fn` inside a savepoint of the open transaction `tx`, so a failure undoes only `fn`'s own writes and
 * the caller may catch it and go on (group commit does, once per request of a batch).
 */
export async function inSavepoint<T>(tx: SqlExecutor, fn: () => Promise<T>): Promise<T> {
  // Received messages deferred before the savepoint are written before it: written inside it (by a read that
  // needs them), they would be undone with it, though their writes succeeded.
  await flushReceived(tx);
  const mark = tx.deferred?.mark();
  await tx.run(SAVEPOINT);
  try {
    const result = await fn();
    await tx.run(RELEASE);
    return result;
  } catch (error) {
    // Rolling back to the savepoint also releases the row locks taken since: forget them.
    tx.memo?.clear();
    if (mark !== undefined) tx.deferred?.undoTo(mark);
    await tx.run(ROLLBACK_TO);
    await tx.run(RELEASE);
    throw error;
  }
}
