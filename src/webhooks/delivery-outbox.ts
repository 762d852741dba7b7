import type { SqlDatabase } from '../store/sql-database.js';
import { DeliveryQueue, type ClaimOptions, type ClaimedDelivery, type RecordAttemptInput, type RecordAttemptResult } from './delivery-queue.js';
import type { RandomBytes } from './signature.js';

/** Runs `fn` with a queue on one write transaction's executor, and resolves after the commit. */
export type QueueTransaction = <T>(fn: (queue: DeliveryQueue) => Promise<T>) => Promise<T>;

/**
 * What a delivery worker needs of the outbox: reads and single-statement writes on the autocommit queue, and
 * each claim and each batch of recorded attempts in one write transaction (READ COMMITTED on PostgreSQL, where
 * claims lock the rows they take with FOR UPDATE SKIP LOCKED: replicas racing for the same rows skip them
 * instead of failing and retrying). The engine's outbox opens its transactions with `inWriteTransaction`.
 * Only the database is awaited inside a transaction: the HTTP POST happens between a claim and its record.
 */
export class DeliveryOutbox {
  /** Claims made so far: the tenant served first rotates with it. */
  private turn = 0;

  constructor(
    /** Autocommit statements. */
    readonly queue: DeliveryQueue,
    private readonly transaction: QueueTransaction,
  ) {}

  /** An outbox straight on a database (the engine builds its own over its context). */
  static over(database: SqlDatabase, random?: RandomBytes): DeliveryOutbox {
    return new DeliveryOutbox(new DeliveryQueue(database.sql, random), (fn) =>
      database.write((tx) => fn(new DeliveryQueue(tx, random)), { isolation: 'read committed' }),
    );
  }

  /**
   * Leases up to `limit` due deliveries in one write transaction, so two processes never lease the same row.
   * Fair across subscriptions: each gets at most `perSubscriptionCap` in flight, counting leases other
   * processes hold.
   */
  async claimDue(options: ClaimOptions): Promise<ClaimedDelivery[]> {
    const claim = this.withTurn(options);
    // SQLite: a plain read first, so a poll that finds nothing (or only subscriptions at their cap) takes no
    // write lock. PostgreSQL: straight to the transaction, which locks nothing it does not lease (READ
    // COMMITTED, SKIP LOCKED); a read first would only double the round trips of every claim.
    if (this.queue.dialect === 'sqlite' && (await this.queue.pick(claim)).length === 0) return [];
    return this.transaction((queue) => queue.claim(claim));
  }

  /**
   * As `claimDue`, without the read first: for a worker that was just told that deliveries were queued, where
   * that read would almost always find work and only double the cost of the claim.
   */
  claimQueued(options: ClaimOptions): Promise<ClaimedDelivery[]> {
    const claim = this.withTurn(options);
    return this.transaction((queue) => queue.claim(claim));
  }

  /** Records one attempt (see `DeliveryQueue.record`) in its own transaction. */
  recordAttempt(input: RecordAttemptInput): Promise<RecordAttemptResult> {
    return this.transaction((queue) => queue.record(input));
  }

  /** Records finished attempts and leases up to `claim.limit` due deliveries, in one transaction. */
  recordAndClaim(
    inputs: readonly RecordAttemptInput[],
    claim: ClaimOptions | null,
  ): Promise<{ results: RecordAttemptResult[]; claimed: ClaimedDelivery[] }> {
    const options = claim === null ? null : this.withTurn(claim);
    return this.transaction(async (queue) => {
      const results = await queue.recordMany(inputs);
      return { results, claimed: options === null ? [] : await queue.claim(options) };
    });
  }

  nextDueAt(): Promise<number | null> {
    return this.queue.nextDueAt();
  }

  liveOwners(now: number): Promise<string[]> {
    return this.queue.liveOwners(now);
  }

  expireOwner(owner: string, now: number): Promise<void> {
    return this.queue.expireOwner(owner, now);
  }

  private withTurn(options: ClaimOptions): ClaimOptions {
    if (options.rotation !== undefined) return options;
    this.turn += 1;
    return { ...options, rotation: this.turn };
  }
}
