/**
 * Group commit, one design for both stores: the writes that ask for it (`grouped: true`) and arrive in one
 * turn of the event loop share one transaction, and one failing write undoes only its own writes. Each store
 * supplies how a batch's transaction is opened and committed; the queueing and the savepoint rule live here.
 */
import type { SqlExecutor } from './sql.js';
import { inSavepoint, type BatchAdmission, type BatchPrelude } from './sql-database.js';

export interface GroupedWrite {
  fn: (tx: SqlExecutor) => Promise<unknown>;
  prelude?: BatchPrelude | undefined;
  admission?: BatchAdmission | undefined;
  /** Writes of a batch run in ascending `order` (stable): batches lock shared rows in one order, no deadlocks. */
  order: number;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** A write's result; `refused`: it never ran, its admission failed (`BatchAdmission`). */
export type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown; refused?: boolean };

/** Whether a write of the batch ran and failed: what makes the next batch start with a savepoint per write. */
export const someWriteFailed = (outcomes: readonly Outcome[]): boolean => outcomes.some((outcome) => !outcome.ok && outcome.refused !== true);

export interface WriteGroupsOptions {
  /** Most writes one batch carries; the rest wait for the next. */
  maxBatch: number;
  /**
   * How long a batch may wait for the writers of the batch just committed (see `schedule`); 0 never waits.
   * Under a steady load of N writers it keeps one batch of N per commit instead of two batches taking turns.
   */
  lingerMs: number;
  /** Runs one batch in one transaction and settles every write of it. */
  commit: (batch: GroupedWrite[]) => Promise<void>;
}

/**
 * PostgreSQL's wait of a batch for the writers just answered (`lingerMs`): about the time a client's next
 * request takes to arrive over loopback and be parsed. Each batch there costs round trips and a COMMIT's
 * flush, so one batch instead of two pays (wrk -c32 on one replica: 4,110 -> 4,700 sends/s for one workspace,
 * 3,840 -> 4,610 for 8, about +11 % for incoming messages). SQLite's batches cost no round trip; waiting
 * measured 5-8 % slower there, so it does not wait.
 */
export const GROUP_LINGER_MS = 1;

/** The queue of grouped writes of one database connection (SQLite) or pool (PostgreSQL). */
export class WriteGroups {
  private queue: GroupedWrite[] = [];
  /** One batch runs at a time; meanwhile new writes gather into a bigger next batch. */
  private running = false;
  /** `turn`: a batch starts after this turn's I/O; `linger`: it waits (at most `lingerMs`) for `lingerTarget` writes. */
  private pending: 'none' | 'turn' | 'linger' = 'none';
  private lingerTimer: NodeJS.Timeout | undefined;
  private lingerTarget = 0;

  constructor(private readonly options: WriteGroupsOptions) {}

  push<T>(fn: (tx: SqlExecutor) => Promise<T>, order = 0, prelude?: BatchPrelude, admission?: BatchAdmission): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, order, prelude, admission, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.running || this.queue.length === 0 || this.pending === 'turn') return;
    if (this.pending === 'linger') {
      if (this.queue.length < this.lingerTarget) return;
      clearTimeout(this.lingerTimer);
    }
    this.pending = 'turn';
    // setImmediate runs after the I/O of this turn: every request parsed in it has queued its write.
    setImmediate(() => {
      this.pending = 'none';
      if (this.running) return;
      if (this.queue.length < this.lingerTarget && this.options.lingerMs > 0) {
        this.pending = 'linger';
        this.lingerTimer = setTimeout(() => {
          this.pending = 'none';
          this.lingerTarget = 0;
          this.start();
        }, this.options.lingerMs);
        return;
      }
      this.start();
    });
  }

  private start(): void {
    if (this.running || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.options.maxBatch);
    this.lingerTarget = 0;
    // The writes queued when the batch is answered, counted before any answered writer can write again.
    let queuedMeanwhile: number | undefined;
    const seeQueue = () => (queuedMeanwhile ??= this.queue.length);
    if (this.options.lingerMs > 0) {
      for (const item of batch) {
        const { resolve, reject } = item;
        item.resolve = (value) => (seeQueue(), resolve(value));
        item.reject = (error) => (seeQueue(), reject(error));
      }
    }
    this.running = true;
    void this.options
      .commit(batch.sort((a, b) => a.order - b.order))
      .catch((error: unknown) => {
        for (const item of batch) item.reject(error);
      })
      .finally(() => {
        this.running = false;
        // Writes queued while the batch ran: their writers and the batch's own, now answered, are clients
        // writing concurrently, and the answered ones most likely write again within a moment (a client at the
        // next request, a server at the next one of its callers). Starting at once with the queued writes alone
        // would settle into two batches taking turns, each a round of BEGIN, reads, writes and COMMIT (on
        // PostgreSQL: 27 then 5 writes of 32 writers, measured). So the next batch waits, at most `lingerMs`,
        // until the answered writers are back. A lone writer (nothing queued meanwhile) never waits.
        const queued = queuedMeanwhile ?? this.queue.length;
        if (queued > 0) this.lingerTarget = Math.min(this.options.maxBatch, queued + batch.length);
        this.schedule();
      });
    this.schedule();
  }
}

/** The refusal of each write of a batch (`BatchAdmission`), in batch order; undefined: admitted. */
export type Refusals = ReadonlyArray<Error | undefined>;

/** The outcome of the write at `index` when it was refused; undefined when it is to run. */
function refusedAt(refusals: Refusals, index: number): Outcome | undefined {
  const error = refusals[index];
  return error === undefined ? undefined : { ok: false, error, refused: true };
}

/**
 * Checks the admissions of `batch` (each `check` once, with its writes' args in batch order) and, when
 * `preludes` (PostgreSQL), runs every prelude the writes named, once each, likewise. The checks are sent first
 * and awaited last: on PostgreSQL they go out with the preludes, no round trip of their own.
 */
export async function prepareBatch(tx: SqlExecutor, batch: readonly GroupedWrite[], preludes: boolean): Promise<Refusals> {
  const checking = admit(tx, batch);
  checking.catch(() => undefined);
  if (preludes) {
    const argsByRun = new Map<BatchPrelude['run'], unknown[]>();
    for (const { prelude } of batch) {
      if (prelude === undefined) continue;
      const args = argsByRun.get(prelude.run);
      if (args === undefined) argsByRun.set(prelude.run, [prelude.arg]);
      else args.push(prelude.arg);
    }
    for (const [run, args] of argsByRun) await run(tx, args);
  }
  return checking;
}

async function admit(tx: SqlExecutor, batch: readonly GroupedWrite[]): Promise<Refusals> {
  if (!batch.some((item) => item.admission !== undefined)) return [];
  const refusals: Array<Error | undefined> = batch.map(() => undefined);
  const byCheck = new Map<BatchAdmission['check'], number[]>();
  batch.forEach(({ admission }, index) => {
    if (admission === undefined) return;
    const indexes = byCheck.get(admission.check);
    if (indexes === undefined) byCheck.set(admission.check, [index]);
    else indexes.push(index);
  });
  const checks = [...byCheck].map(async ([check, indexes]) => {
    const admitted = await check(tx, indexes.map((index) => batch[index]!.admission!.arg));
    indexes.forEach((index, n) => {
      if (admitted[n] !== true) refusals[index] = batch[index]!.admission!.refusal();
    });
  });
  await Promise.all(checks);
  return refusals;
}

/**
 * Runs `batch` inside the open transaction `tx`. Most batches succeed whole, so `wholeFirst` runs them inside
 * one savepoint rather than one per write (two statements each, and on SQLite a copy of every page it
 * changes). If a write fails, that savepoint is undone and the batch runs again with a savepoint per write.
 * `isFatal` names errors that must end the whole transaction instead (a PostgreSQL deadlock: the batch is
 * run again from the start).
 */
export async function runBatch(
  tx: SqlExecutor,
  batch: readonly GroupedWrite[],
  refusals: Refusals,
  wholeFirst: boolean,
  isFatal: (error: unknown) => boolean = () => false,
): Promise<Outcome[]> {
  const refused = (index: number) => refusedAt(refusals, index);
  // A write alone needs no savepoint: if it fails, the store rolls its transaction back and answers it.
  if (batch.length === 1) return [refused(0) ?? { ok: true, value: await batch[0]!.fn(tx) }];
  if (wholeFirst) {
    try {
      return await inSavepoint(tx, async () => {
        const outcomes: Outcome[] = [];
        for (const [index, item] of batch.entries()) outcomes.push(refused(index) ?? { ok: true, value: await item.fn(tx) });
        return outcomes;
      });
    } catch (error) {
      if (isFatal(error)) throw error;
    }
  }
  const outcomes: Outcome[] = [];
  for (const [index, item] of batch.entries()) {
    const refusal = refused(index);
    if (refusal !== undefined) {
      outcomes.push(refusal);
      continue;
    }
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
export async function runWhole(tx: SqlExecutor, batch: readonly GroupedWrite[], refusals: Refusals, isFatal: (error: unknown) => boolean): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const [index, item] of batch.entries()) {
    const refusal = refusedAt(refusals, index);
    if (refusal !== undefined) {
      outcomes.push(refusal);
      continue;
    }
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
