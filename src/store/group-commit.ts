/**
 * Group commit, one design for both stores: the writes that ask for it (`grouped: true`) and arrive in one
 * turn of the event loop share one transaction, and one failing write undoes only its own writes. Each store
 * supplies how a batch's transaction is opened and committed; the queueing and the savepoint rule live here.
 */
import type { SqlExecutor } from './sql.js';
import { inSavepoint, type BatchPrelude } from './sql-database.js';

export interface GroupedWrite {
  fn: (tx: SqlExecutor) => Promise<unknown>;
  prelude?: BatchPrelude | undefined;
  /** Writes of a batch run in ascending `order` (stable): batches lock shared rows in one order, no deadlocks. */
  order: number;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export interface WriteGroupsOptions {
  /** Most writes one batch carries; the rest wait for the next. */
  maxBatch: number;
  /**
   * Concurrent writers are split into two halves that take turns (PostgreSQL, see `WriteGroups`); otherwise a
   * batch takes every write queued (SQLite, where a batch costs no round trip and nothing can overlap it).
   */
  alternate: boolean;
  /** Runs one batch in one transaction and gives each write's outcome, in batch order. */
  commit: (batch: GroupedWrite[]) => Promise<Outcome[]>;
}

/**
 * The queue of grouped writes of one database connection (SQLite) or pool (PostgreSQL). One batch runs at a
 * time (batches side by side queue on the same workspace rows); meanwhile new writes gather for the next.
 *
 * `alternate` (PostgreSQL): while a batch is in the database this process has nothing to do but parse the
 * requests that were not in it. With every concurrent writer in one batch, the process and the database work
 * in turn and each idles half the time (wrk -c32: throughput was 1 / (process + database CPU per request),
 * measured). So a batch takes half the writers seen at once, and when it commits the other half, queued
 * meanwhile, starts at once, before the committed batch's writers are answered: the database works on one
 * half while this process answers and parses the other.
 */
export class WriteGroups {
  private queue: GroupedWrite[] = [];
  private running = false;
  /** A batch is due at the end of this turn's I/O (when every request parsed in it has queued its write). */
  private scheduled = false;
  /** Writers seen at once when the last batch ended: its own and those queued meanwhile (none known: all). */
  private writers = Number.POSITIVE_INFINITY;

  constructor(private readonly options: WriteGroupsOptions) {}

  push<T>(fn: (tx: SqlExecutor) => Promise<T>, order = 0, prelude?: BatchPrelude): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, order, prelude, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.running || this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.start();
    });
  }

  private start(): void {
    if (this.running || this.queue.length === 0) return;
    const size = this.options.alternate ? Math.ceil(this.writers / 2) : this.options.maxBatch;
    const batch = this.queue.splice(0, Math.min(size, this.options.maxBatch));
    this.running = true;
    void this.options.commit(batch.sort((a, b) => a.order - b.order)).then(
      (outcomes) => this.finish(batch, outcomes),
      (error: unknown) => this.finish(batch, batch.map(() => ({ ok: false, error }))),
    );
  }

  private finish(batch: readonly GroupedWrite[], outcomes: readonly Outcome[]): void {
    this.running = false;
    this.writers = this.queue.length + batch.length;
    if (this.options.alternate) this.start();
    settle(batch, outcomes);
    this.schedule();
  }
}

/** Runs every prelude the writes of `batch` named, once each, with their writes' args in batch order. */
export async function runPreludes(tx: SqlExecutor, batch: readonly GroupedWrite[]): Promise<void> {
  const argsByRun = new Map<BatchPrelude['run'], unknown[]>();
  for (const { prelude } of batch) {
    if (prelude === undefined) continue;
    const args = argsByRun.get(prelude.run);
    if (args === undefined) argsByRun.set(prelude.run, [prelude.arg]);
    else args.push(prelude.arg);
  }
  for (const [run, args] of argsByRun) await run(tx, args);
}

/**
 * Runs `batch` inside the open transaction `tx`. Most batches succeed whole, so `wholeFirst` runs them inside
 * one savepoint rather than one per write (two statements each, and on SQLite a copy of every page it
 * changes). If a write fails, that savepoint is undone and the batch runs again with a savepoint per write.
 * `isFatal` names errors that must end the whole transaction instead (a PostgreSQL deadlock: the batch is
 * run again from the start).
 */
export async function runBatch(tx: SqlExecutor, batch: readonly GroupedWrite[], wholeFirst: boolean, isFatal: (error: unknown) => boolean = () => false): Promise<Outcome[]> {
  // A write alone needs no savepoint: if it fails, the store rolls its transaction back and answers it.
  if (batch.length === 1) return [{ ok: true, value: await batch[0]!.fn(tx) }];
  if (wholeFirst) {
    try {
      return await inSavepoint(tx, async () => {
        const outcomes: Outcome[] = [];
        for (const item of batch) outcomes.push({ ok: true, value: await item.fn(tx) });
        return outcomes;
      });
    } catch (error) {
      if (isFatal(error)) throw error;
    }
  }
  const outcomes: Outcome[] = [];
  for (const item of batch) {
    try {
      outcomes.push({ ok: true, value: await inSavepoint(tx, () => item.fn(tx)) });
    } catch (error) {
      if (isFatal(error)) throw error;
      outcomes.push({ ok: false, error });
    }
  }
  return outcomes;
}

/** Thrown by `runWhole` when a write of the batch failed: the caller rolls the transaction back. */
export class BatchWriteFailed extends Error {
  constructor() {
    super('a write of the batch failed');
  }
}

/**
 * Runs every write of `batch` in the open transaction `tx` with no savepoint at all, for a store where a
 * savepoint costs round trips (PostgreSQL): if a write fails, it throws `BatchWriteFailed` (or the fatal
 * error itself), the caller rolls the whole transaction back and runs the batch again with `runBatch`.
 */
export async function runWhole(tx: SqlExecutor, batch: readonly GroupedWrite[], isFatal: (error: unknown) => boolean): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const item of batch) {
    try {
      outcomes.push({ ok: true, value: await item.fn(tx) });
    } catch (error) {
      throw isFatal(error) ? error : new BatchWriteFailed();
    }
  }
  return outcomes;
}

/** Answers every write of a committed batch with its own outcome. */
export function settle(batch: readonly GroupedWrite[], outcomes: readonly Outcome[]): void {
  batch.forEach((item, index) => {
    const outcome = outcomes[index]!;
    if (outcome.ok) item.resolve(outcome.value);
    else item.reject(outcome.error);
  });
}
