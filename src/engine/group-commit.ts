import type { Db } from '../store/database.js';
import { inSavepoint, inWriteTransaction } from '../store/transactions.js';

interface Pending {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: write operations that arrive within one turn of the event loop share one transaction, each
 * in its own savepoint, so one failing request undoes only its own writes. Nobody is answered before the
 * shared COMMIT, so an acknowledged write is as durable as with a transaction of its own; the server just
 * pays for one commit per batch instead of one per request.
 */
export function createGroupCommit(db: Db, maxBatch = 512) {
  let queue: Pending[] = [];
  let scheduled = false;

  const flush = (): void => {
    scheduled = false;
    const batch = queue.splice(0, maxBatch);
    if (queue.length > 0) schedule();
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      inWriteTransaction(db, () => {
        for (const item of batch) {
          try {
            outcomes.push({ ok: true, value: inSavepoint(db, item.fn) });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      // The shared commit itself failed (for example the lock stayed busy): nothing of the batch was written.
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  };

  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  };

  return {
    /** Runs `fn` inside the next shared write transaction and resolves once that transaction has committed. */
    run<T>(fn: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
        schedule();
      });
    },
  };
}

export type GroupCommit = ReturnType<typeof createGroupCommit>;
