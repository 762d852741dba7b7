import type { SqlDatabase, WriteOptions } from '../sql-database.js';
import type { RecordAttemptInput, RecordAttemptResult } from './delivery-attempts.js';
import { createDeliveryStore, type ClaimOptions, type ClaimedDelivery, type DeliveryStore } from './delivery-store.js';

/**
 * How an outbox's claims and records run: READ COMMITTED (claims lock what they take, replicas skip each other's
 * rows) and, on PostgreSQL, with index scans only (see `WriteOptions.indexScans`: the delivering and pending
 * indexes fill with entries of rows that left them).
 */
export const OUTBOX_TRANSACTION: WriteOptions = { isolation: 'read committed', indexScans: true };

/** Runs `fn` with a delivery store on one write transaction's executor, and resolves after the commit. */
export type DeliveryTransaction = <T>(fn: (deliveries: DeliveryStore) => Promise<T>) => Promise<T>;

/**
 * What a delivery worker needs of the outbox: reads and single-statement writes on the autocommit store, and
 * each claim and each batch of recorded attempts in one write transaction (READ COMMITTED on PostgreSQL, where
 * claims lock the rows they take with FOR UPDATE SKIP LOCKED: replicas racing for the same rows skip them
 * instead of failing and retrying). The engine's outbox opens its transactions with `inWriteTransaction`.
 * Only the database is awaited inside a transaction: the HTTP POST happens between a claim and its record.
 */
export function createDeliveryOutbox(
  /** Autocommit statements. */
  deliveries: DeliveryStore,
  transaction: DeliveryTransaction,
) {
  /** Claims made so far: the tenant served first rotates with it. */
  let turn = 0;
  const withTurn = (options: ClaimOptions): ClaimOptions => {
    if (options.rotation !== undefined) return options;
    turn += 1;
    return { ...options, rotation: turn };
  };

  return {
    deliveries,

    /**
     * Leases up to `limit` due deliveries in one write transaction, so two processes never lease the same row.
     * Fair across subscriptions: each gets at most `perSubscriptionCap` in flight, counting leases other
     * processes hold.
     */
    async claimDue(options: ClaimOptions): Promise<ClaimedDelivery[]> {
      const claim = withTurn(options);
      // SQLite: a plain read first, so a poll that finds nothing (or only subscriptions at their cap) takes no
      // write lock. PostgreSQL: straight to the transaction, which locks nothing it does not lease (READ
      // COMMITTED, SKIP LOCKED); a read first would only double the round trips of every claim.
      if (deliveries.dialect === 'sqlite' && (await deliveries.pick(claim)).length === 0) return [];
      return transaction((tx) => tx.claim(claim));
    },

    /**
     * As `claimDue`, without the read first: for a worker that was just told that deliveries were queued, where
     * that read would almost always find work and only double the cost of the claim.
     */
    claimQueued(options: ClaimOptions): Promise<ClaimedDelivery[]> {
      const claim = withTurn(options);
      return transaction((tx) => tx.claim(claim));
    },

    /** Records one attempt (see `recordAttempt` of delivery-attempts.ts) in its own transaction. */
    recordAttempt(input: RecordAttemptInput): Promise<RecordAttemptResult> {
      return transaction((tx) => tx.record(input));
    },

    /** Records finished attempts and leases up to `claim.limit` due deliveries, in one transaction. */
    recordAndClaim(
      inputs: readonly RecordAttemptInput[],
      claim: ClaimOptions | null,
    ): Promise<{ results: RecordAttemptResult[]; claimed: ClaimedDelivery[] }> {
      const options = claim === null ? null : withTurn(claim);
      return transaction(async (tx) => {
        const results = await tx.recordMany(inputs);
        return { results, claimed: options === null ? [] : await tx.claim(options) };
      });
    },

    nextDueAt: (): Promise<number | null> => deliveries.nextDueAt(),
    liveOwners: (now: number): Promise<string[]> => deliveries.liveOwners(now),
    expireOwner: (owner: string, now: number): Promise<void> => deliveries.expireOwner(owner, now),
    endLeases: (ids: readonly number[], owner: string, now: number): Promise<void> => deliveries.endLeases(ids, owner, now),
  };
}

export type DeliveryOutbox = ReturnType<typeof createDeliveryOutbox>;

/** An outbox straight on a database (the engine builds its own over its context); see `createDeliveryStore`. */
export function openDeliveryOutbox(database: SqlDatabase, newMessageId: () => string): DeliveryOutbox {
  return createDeliveryOutbox(createDeliveryStore(database.sql, newMessageId), (fn) =>
    database.write((tx) => fn(createDeliveryStore(tx, newMessageId)), OUTBOX_TRANSACTION),
  );
}
