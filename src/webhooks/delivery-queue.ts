import type { Transaction } from 'better-sqlite3';
import type { Db } from '../store/database.js';
import { DeliveryPicker } from './delivery-claim.js';
import type { SendOutcome } from './send-outcome.js';
import { DEFAULT_RETRY_DELAYS_MS, nextAttemptAt } from './retry-schedule.js';
import { generateMessageId, type RandomBytes } from './signature.js';

/** After this many deliveries in a row fail (after all attempts), the owner is notified. */
export const DEFAULT_FAILURE_NOTIFY_THRESHOLD = 3;
export const OWNER_NOTIFICATION_WEBHOOK_FAILING = 'webhook_failing';

/** A delivery a worker holds a lease on, with what it needs to sign and send it. */
export interface ClaimedDelivery {
  id: number;
  subscriptionId: number;
  msgId: string;
  eventType: string;
  payload: string;
  /** Attempts already recorded; the one about to be made is `attempts + 1`. */
  attempts: number;
  url: string;
  secret: string;
  listenSessionId: string | null;
  /** Set for a partner's subscription (its deliveries carry X-SVC-* headers). */
  partnerId: number | null;
  /** When the event was queued (for the send → arrival latency). */
  createdAt: number;
}

export interface ClaimOptions {
  now: number;
  limit: number;
  owner: string;
  leaseMs: number;
  /** Most deliveries of one subscription in flight at once, across every process. */
  perSubscriptionCap: number;
  /** Most deliveries of one tenant to one receiver (URL origin) in flight, across its subscriptions and every process. */
  perEndpointCap?: number;
  /** Most deliveries of one tenant (workspace or partner) in flight, across every process. */
  perTenantCap?: number;
  /** null (the default) claims POSTed subscriptions; a session id claims only that listener's. */
  listenSessionId?: string | null;
}

export interface RecordAttemptInput {
  deliveryId: number;
  owner: string;
  outcome: SendOutcome;
  now: number;
  retryDelays?: readonly number[];
  failureNotifyThreshold?: number;
}

export type RecordAttemptResult =
  | { status: 'succeeded' | 'failed'; attemptNumber: number; nextAttemptAt: null; ownerNotified: boolean }
  | { status: 'retry_scheduled'; attemptNumber: number; nextAttemptAt: number; ownerNotified: false }
  /** The lease ran out and another worker took the delivery over (or it was deleted): nothing written. */
  | { status: 'lease_lost' };

interface DeliveryRow {
  id: number;
  subscription_id: number;
  webhook_msg_id: string;
  event_type: string;
  payload: string;
  attempts: number;
  url: string;
  secret: string;
  listen_session_id: string | null;
  workspace_id: number | null;
  partner_id: number | null;
  created_at: number;
}

type SubscriptionFields = Pick<DeliveryRow, 'url' | 'secret' | 'listen_session_id' | 'workspace_id' | 'partner_id'>;
type LeasedRow = Omit<DeliveryRow, keyof SubscriptionFields>;

const rowToClaimed = (row: DeliveryRow): ClaimedDelivery => ({
  id: row.id,
  subscriptionId: row.subscription_id,
  msgId: row.webhook_msg_id,
  eventType: row.event_type,
  payload: row.payload,
  attempts: row.attempts,
  url: row.url,
  secret: row.secret,
  listenSessionId: row.listen_session_id,
  partnerId: row.partner_id,
  createdAt: row.created_at,
});

const SELECT_DELIVERY = `
  SELECT d.id, d.subscription_id, d.webhook_msg_id, d.event_type, d.payload, d.attempts, d.created_at,
         s.url, s.secret, s.listen_session_id, s.workspace_id, s.partner_id
  FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id`;

const prepareStatements = (db: Db) => ({
  matching: db.prepare(`SELECT id FROM webhook_subscriptions
    WHERE enabled = 1 AND event_type = @eventType AND (workspace_id = @workspaceId OR partner_id = @partnerId)
    ORDER BY id`),
  insert: db.prepare(`INSERT INTO webhook_deliveries
    (subscription_id, webhook_msg_id, event_type, payload, status, attempts, next_attempt_at, created_at)
    VALUES (@subscriptionId, @msgId, @eventType, @payload, 'pending', 0, @now, @now)`),
  // One statement per leased row; its subscription's fields are read once per claim.
  lease: db.prepare<{ id: number; owner: string; leaseUntil: number }, LeasedRow>(`UPDATE webhook_deliveries
    SET status = 'delivering', lease_owner = @owner, lease_until = @leaseUntil WHERE id = @id
    RETURNING id, subscription_id, webhook_msg_id, event_type, payload, attempts, created_at`),
  subscription: db.prepare<[number], SubscriptionFields>(
    'SELECT url, secret, listen_session_id, workspace_id, partner_id FROM webhook_subscriptions WHERE id = ?',
  ),
  leased: db.prepare(`${SELECT_DELIVERY}
    WHERE d.id = @id AND d.status = 'delivering' AND d.lease_owner = @owner`),
  attempt: db.prepare(`INSERT INTO webhook_attempts
    (delivery_id, attempt_number, ok, status_code, duration_ms, error, created_at)
    VALUES (@deliveryId, @attemptNumber, @ok, @statusCode, @durationMs, @error, @now)`),
  // The common case in one statement: the lease check, the attempt count and the final state.
  succeed: db.prepare<{ id: number; owner: string; now: number }, { attempts: number; subscription_id: number }>(`UPDATE webhook_deliveries
    SET status = 'succeeded', attempts = attempts + 1, next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL,
        completed_at = @now
    WHERE id = @id AND status = 'delivering' AND lease_owner = @owner RETURNING attempts, subscription_id`),
  finish: db.prepare(`UPDATE webhook_deliveries
    SET status = @status, attempts = @attempts, next_attempt_at = @nextAttemptAt,
        lease_owner = NULL, lease_until = NULL, completed_at = @completedAt
    WHERE id = @id`),
  // Most successes follow successes: no row write then.
  subscriptionOk: db.prepare(`UPDATE webhook_subscriptions SET consecutive_failures = 0 WHERE id = ? AND consecutive_failures <> 0`),
  subscriptionFailed: db.prepare(`UPDATE webhook_subscriptions
    SET errors_counter = errors_counter + 1, consecutive_failures = consecutive_failures + 1
    WHERE id = ? RETURNING consecutive_failures`),
  notify: db.prepare(`INSERT INTO owner_notifications
    (workspace_id, partner_id, subscription_id, kind, details, created_at)
    VALUES (@workspaceId, @partnerId, @subscriptionId, @kind, @details, @now)`),
  liveOwners: db.prepare<{ now: number }, { owner: string }>(`SELECT DISTINCT lease_owner AS owner FROM webhook_deliveries
    WHERE status = 'delivering' AND lease_until > @now`),
  expireOwner: db.prepare(`UPDATE webhook_deliveries SET lease_until = @now
    WHERE status = 'delivering' AND lease_owner = @owner AND lease_until > @now`),
  redeliver: db.prepare(`INSERT INTO webhook_deliveries
    (subscription_id, webhook_msg_id, event_type, payload, status, attempts, next_attempt_at, created_at)
    SELECT subscription_id, webhook_msg_id, event_type, payload, 'pending', 0, @now, @now
    FROM webhook_deliveries WHERE id = @id`),
});

/**
 * The durable webhook outbox over the tables of migration 002. It knows nothing of the engine: the engine
 * calls `enqueueEvent` inside the transaction that makes the change, and workers call `claimDue` and
 * `recordAttempt`. Statements are prepared once per store.
 */
export class DeliveryQueue {
  private readonly stmt: ReturnType<typeof prepareStatements>;
  private readonly picker: DeliveryPicker;
  private readonly claimTx: Transaction<(options: ClaimOptions) => ClaimedDelivery[]>;
  private readonly recordTx: Transaction<(input: RecordAttemptInput) => RecordAttemptResult>;
  private readonly recordAndClaimTx: Transaction<
    (inputs: readonly RecordAttemptInput[], claim: ClaimOptions | null) => { results: RecordAttemptResult[]; claimed: ClaimedDelivery[] }
  >;

  constructor(
    private readonly db: Db,
    private readonly random?: RandomBytes,
  ) {
    this.stmt = prepareStatements(db);
    this.picker = new DeliveryPicker(db);
    // Transaction wrappers are built once: better-sqlite3's db.transaction() is measurable on this path.
    const lease = (options: ClaimOptions): ClaimedDelivery[] => {
      const subscriptions = new Map<number, SubscriptionFields>();
      return this.picker.pick(options).map((id) => {
        const row = this.stmt.lease.get({ id, owner: options.owner, leaseUntil: options.now + options.leaseMs }) as LeasedRow;
        let subscription = subscriptions.get(row.subscription_id);
        if (subscription === undefined) {
          subscription = this.stmt.subscription.get(row.subscription_id) as SubscriptionFields;
          subscriptions.set(row.subscription_id, subscription);
        }
        return rowToClaimed({ ...row, ...subscription });
      });
    };
    this.claimTx = db.transaction(lease);
    this.recordTx = db.transaction((input: RecordAttemptInput) => this.recordOne(input));
    this.recordAndClaimTx = db.transaction((inputs: readonly RecordAttemptInput[], claim: ClaimOptions | null) => {
      const results = inputs.map((input) => this.recordOne(input));
      return { results, claimed: claim === null ? [] : lease(claim) };
    });
  }

  /**
   * Writes one pending delivery per enabled subscription of the scope that names `eventType`, all sharing
   * one `webhook-id`. Call it inside the transaction of the change that caused the event. Returns the
   * delivery ids (empty when nobody subscribed).
   */
  enqueueEvent(input: {
    workspaceId?: number | null;
    partnerId?: number | null;
    eventType: string;
    payload: unknown;
    now: number;
    /** The `webhook-id` all its deliveries share; a fresh one when absent. */
    msgId?: string;
  }): number[] {
    const subscriptions = this.stmt.matching.all({
      eventType: input.eventType,
      workspaceId: input.workspaceId ?? null,
      partnerId: input.partnerId ?? null,
    }) as Array<{ id: number }>;
    if (subscriptions.length === 0) return [];
    const msgId = input.msgId ?? generateMessageId(this.random);
    const payload = typeof input.payload === 'string' ? input.payload : JSON.stringify(input.payload);
    return subscriptions.map((s) =>
      this.enqueue({ subscriptionId: s.id, eventType: input.eventType, payload, now: input.now, msgId }),
    );
  }

  /** Writes one pending delivery for one subscription (test events use this directly). */
  enqueue(input: { subscriptionId: number; eventType: string; payload: unknown; now: number; msgId?: string }): number {
    const result = this.stmt.insert.run({
      subscriptionId: input.subscriptionId,
      msgId: input.msgId ?? generateMessageId(this.random),
      eventType: input.eventType,
      payload: typeof input.payload === 'string' ? input.payload : JSON.stringify(input.payload),
      now: input.now,
    });
    return Number(result.lastInsertRowid);
  }

  /**
   * Leases up to `limit` due deliveries (pending and due, or delivering with an expired lease) in one
   * IMMEDIATE transaction, so two processes never lease the same row. Fair across subscriptions: each
   * gets at most `perSubscriptionCap` in flight, counting leases other processes hold.
   */
  claimDue(options: ClaimOptions): ClaimedDelivery[] {
    // A plain read first: a poll that finds nothing (or only subscriptions at their cap) takes no write lock.
    if (this.picker.pick(options).length === 0) return [];
    return this.claimTx.immediate(options);
  }



  /**
   * Logs one attempt and moves the delivery on: succeeded, pending again at the next retry time, or
   * failed after the last attempt. Only a final failure counts in `errors_counter`; subscriptions are
   * never disabled. The owner is notified once per failure streak, when it reaches the threshold.
   */
  private recordSuccess(input: RecordAttemptInput): RecordAttemptResult {
    const { outcome, now } = input;
    const row = this.stmt.succeed.get({ id: input.deliveryId, owner: input.owner, now });
    if (row === undefined) return { status: 'lease_lost' };
    this.stmt.attempt.run({
      deliveryId: input.deliveryId,
      attemptNumber: row.attempts,
      ok: 1,
      statusCode: outcome.statusCode,
      durationMs: outcome.durationMs,
      error: null,
      now,
    });
    this.stmt.subscriptionOk.run(row.subscription_id);
    return { status: 'succeeded', attemptNumber: row.attempts, nextAttemptAt: null, ownerNotified: false };
  }

  /** Records finished attempts and leases up to `claim.limit` due deliveries, in one transaction. */
  recordAndClaim(inputs: readonly RecordAttemptInput[], claim: ClaimOptions | null): { results: RecordAttemptResult[]; claimed: ClaimedDelivery[] } {
    return this.recordAndClaimTx.immediate(inputs, claim);
  }

  recordAttempt(input: RecordAttemptInput): RecordAttemptResult {
    return this.recordTx.immediate(input);
  }

  private recordOne(input: RecordAttemptInput): RecordAttemptResult {
    if (input.outcome.ok) return this.recordSuccess(input);
    const row = this.stmt.leased.get({ id: input.deliveryId, owner: input.owner }) as DeliveryRow | undefined;
    if (row === undefined) return { status: 'lease_lost' };
    const attemptNumber = row.attempts + 1;
    const { outcome, now } = input;
    this.stmt.attempt.run({
      deliveryId: row.id,
      attemptNumber,
      ok: outcome.ok ? 1 : 0,
      statusCode: outcome.statusCode,
      durationMs: outcome.durationMs,
      error: outcome.error,
      now,
    });
    const finish = (status: string, nextAt: number | null) =>
      this.stmt.finish.run({
        id: row.id,
        status,
        attempts: attemptNumber,
        nextAttemptAt: nextAt,
        completedAt: nextAt === null ? now : null,
      });
    const nextAt = nextAttemptAt(attemptNumber, now, input.retryDelays ?? DEFAULT_RETRY_DELAYS_MS);
    if (nextAt !== null) {
      finish('pending', nextAt);
      return { status: 'retry_scheduled', attemptNumber, nextAttemptAt: nextAt, ownerNotified: false };
    }
    finish('failed', null);
    const { consecutive_failures: streak } = this.stmt.subscriptionFailed.get(row.subscription_id) as {
      consecutive_failures: number;
    };
    const threshold = input.failureNotifyThreshold ?? DEFAULT_FAILURE_NOTIFY_THRESHOLD;
    // A listener's subscription fails whenever the developer's local app is down: no e-mail for that.
    const ownerNotified = streak === threshold && row.listen_session_id === null;
    if (ownerNotified) {
      this.stmt.notify.run({
        workspaceId: row.workspace_id,
        partnerId: row.partner_id,
        subscriptionId: row.subscription_id,
        kind: OWNER_NOTIFICATION_WEBHOOK_FAILING,
        // What the owner's e-mail says (never the secret): which endpoint, how bad, and which delivery to look at.
        details: JSON.stringify({
          url: row.url,
          event_type: row.event_type,
          consecutive_failures: streak,
          last_error: outcome.error,
          last_status_code: outcome.statusCode,
          last_delivery_id: row.id,
        }),
        now,
      });
    }
    return { status: 'failed', attemptNumber, nextAttemptAt: null, ownerNotified };
  }

  /** Earliest time a POSTed delivery becomes due (a retry, or a lease running out), or null when none is pending. */
  nextDueAt(): number | null {
    return this.picker.nextDueAt();
  }

  /** Owners holding a live lease, and letting one owner's leases run out now (see workers/lease-owners.ts). */
  liveOwners(now: number): string[] {
    return this.stmt.liveOwners.all({ now }).map((row) => row.owner);
  }

  expireOwner(owner: string, now: number): void {
    this.stmt.expireOwner.run({ owner, now });
  }

  /** Queues a delivery again as a new row with the same `webhook-id` and body; returns the new id. */
  redeliver(deliveryId: number, now: number): number | null {
    const result = this.stmt.redeliver.run({ id: deliveryId, now });
    return result.changes === 0 ? null : Number(result.lastInsertRowid);
  }
}
