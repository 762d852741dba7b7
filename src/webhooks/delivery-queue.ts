import { query, type SqlExecutor } from '../store/sql.js';
import { DeliveryPicker, type PickOptions } from './delivery-claim.js';
import { recordSuccesses } from './delivery-successes.js';
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
  /** Which tenant is served first (see `PickOptions.rotation`); the outbox counts its claims here. */
  rotation?: number;
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

// A list of ids as one parameter (a JSON array), the same on both dialects.
const IDS = {
  sqlite: 'SELECT value FROM json_each(@ids)',
  postgres: 'SELECT CAST(value AS BIGINT) FROM json_array_elements_text(CAST(@ids AS JSON))',
};

const MATCHING = query<{ id: number }>(`SELECT id FROM webhook_subscriptions
  WHERE enabled = 1 AND event_type = @eventType AND (workspace_id = @workspaceId OR partner_id = @partnerId)
  ORDER BY id`);
const INSERT = query<{ id: number }>(`INSERT INTO webhook_deliveries
  (subscription_id, webhook_msg_id, event_type, payload, status, attempts, next_attempt_at, created_at)
  VALUES (@subscriptionId, @msgId, @eventType, @payload, 'pending', 0, @now, @now) RETURNING id`);
// Every picked row leased in one statement; each subscription's fields are then read once per claim.
const LEASE = query<LeasedRow>({
  sqlite: `UPDATE webhook_deliveries
    SET status = 'delivering', lease_owner = @owner, lease_until = @leaseUntil WHERE id IN (${IDS.sqlite})
    RETURNING id, subscription_id, webhook_msg_id, event_type, payload, attempts, created_at`,
  postgres: `UPDATE webhook_deliveries
    SET status = 'delivering', lease_owner = @owner, lease_until = @leaseUntil WHERE id IN (${IDS.postgres})
    RETURNING id, subscription_id, webhook_msg_id, event_type, payload, attempts, created_at`,
});
const SUBSCRIPTION = query<SubscriptionFields>(
  'SELECT url, secret, listen_session_id, workspace_id, partner_id FROM webhook_subscriptions WHERE id = @id',
);
const LEASED = query<DeliveryRow>(`${SELECT_DELIVERY}
  WHERE d.id = @id AND d.status = 'delivering' AND d.lease_owner = @owner`);
const ATTEMPT = query(`INSERT INTO webhook_attempts
  (delivery_id, attempt_number, ok, status_code, duration_ms, error, created_at)
  VALUES (@deliveryId, @attemptNumber, @ok, @statusCode, @durationMs, @error, @now)`);
// The common case in one statement: the lease check, the attempt count and the final state.
const SUCCEED = query<{ attempts: number; subscription_id: number }>(`UPDATE webhook_deliveries
  SET status = 'succeeded', attempts = attempts + 1, next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL,
      completed_at = @now
  WHERE id = @id AND status = 'delivering' AND lease_owner = @owner RETURNING attempts, subscription_id`);
const FINISH = query(`UPDATE webhook_deliveries
  SET status = @status, attempts = @attempts, next_attempt_at = @nextAttemptAt,
      lease_owner = NULL, lease_until = NULL, completed_at = @completedAt
  WHERE id = @id`);
// Most successes follow successes: no row write then.
const SUBSCRIPTION_OK = query(`UPDATE webhook_subscriptions SET consecutive_failures = 0 WHERE id = @id AND consecutive_failures <> 0`);
const SUBSCRIPTION_FAILED = query<{ consecutive_failures: number }>(`UPDATE webhook_subscriptions
  SET errors_counter = errors_counter + 1, consecutive_failures = consecutive_failures + 1
  WHERE id = @id RETURNING consecutive_failures`);
const NOTIFY = query(`INSERT INTO owner_notifications
  (workspace_id, partner_id, subscription_id, kind, details, created_at)
  VALUES (@workspaceId, @partnerId, @subscriptionId, @kind, @details, @now)`);
const LIVE_OWNERS = query<{ owner: string }>(`SELECT DISTINCT lease_owner AS owner FROM webhook_deliveries
  WHERE status = 'delivering' AND lease_until > @now`);
const EXPIRE_OWNER = query(`UPDATE webhook_deliveries SET lease_until = @now
  WHERE status = 'delivering' AND lease_owner = @owner AND lease_until > @now`);
const REDELIVER = query<{ id: number }>(`INSERT INTO webhook_deliveries
  (subscription_id, webhook_msg_id, event_type, payload, status, attempts, next_attempt_at, created_at)
  SELECT subscription_id, webhook_msg_id, event_type, payload, 'pending', 0, @now, @now
  FROM webhook_deliveries WHERE id = @id RETURNING id`);


/**
 * The durable webhook outbox over the tables of migration 002, on one executor: the engine's autocommit one
 * or one transaction's (`createStores` builds one per transaction, so the constructor builds nothing but the
 * object). It knows nothing of the engine: the engine calls `enqueueEvent` inside the transaction that makes
 * the change. `claim` and `record` must run inside a write transaction; workers go through `DeliveryOutbox`,
 * which opens one for them.
 */
export class DeliveryQueue {
  private pickerOf?: DeliveryPicker;

  constructor(
    private readonly sql: SqlExecutor,
    private readonly random?: RandomBytes,
  ) {}

  get dialect(): SqlExecutor['dialect'] {
    return this.sql.dialect;
  }

  /** Made on first use: most transactions' queues only enqueue. */
  private get picker(): DeliveryPicker {
    this.pickerOf ??= new DeliveryPicker(this.sql);
    return this.pickerOf;
  }

  /**
   * Writes one pending delivery per enabled subscription of the scope that names `eventType`, all sharing
   * one `webhook-id`. Call it inside the transaction of the change that caused the event. Returns the
   * delivery ids (empty when nobody subscribed).
   */
  async enqueueEvent(input: {
    workspaceId?: number | null;
    partnerId?: number | null;
    eventType: string;
    payload: unknown;
    now: number;
    /** The `webhook-id` all its deliveries share; a fresh one when absent. */
    msgId?: string;
  }): Promise<number[]> {
    const subscriptions = await this.sql.all(MATCHING, {
      eventType: input.eventType,
      workspaceId: input.workspaceId ?? null,
      partnerId: input.partnerId ?? null,
    });
    if (subscriptions.length === 0) return [];
    const msgId = input.msgId ?? generateMessageId(this.random);
    const payload = typeof input.payload === 'string' ? input.payload : JSON.stringify(input.payload);
    const ids: number[] = [];
    for (const s of subscriptions) {
      ids.push(await this.enqueue({ subscriptionId: s.id, eventType: input.eventType, payload, now: input.now, msgId }));
    }
    return ids;
  }

  /** Writes one pending delivery for one subscription (test events use this directly). */
  async enqueue(input: { subscriptionId: number; eventType: string; payload: unknown; now: number; msgId?: string }): Promise<number> {
    const row = await this.sql.get(INSERT, {
      subscriptionId: input.subscriptionId,
      msgId: input.msgId ?? generateMessageId(this.random),
      eventType: input.eventType,
      payload: typeof input.payload === 'string' ? input.payload : JSON.stringify(input.payload),
      now: input.now,
    });
    return row!.id;
  }

  /**
   * Ids of up to `limit` due deliveries, dealt fairly, without leasing them: outside a transaction, a cheap
   * look whether a claim would find anything (a poll that finds nothing takes no write lock).
   */
  pick(options: PickOptions): Promise<number[]> {
    return this.picker.pick(options);
  }

  /**
   * Leases up to `limit` due deliveries (pending and due, or delivering with an expired lease). Call it inside
   * a write transaction: on SQLite the transaction's lock, on PostgreSQL the rows locked by the pick (FOR
   * UPDATE SKIP LOCKED, in a READ COMMITTED transaction), keep two processes from leasing the same row. Fair
   * across subscriptions: each gets at most `perSubscriptionCap` in flight, counting leases others hold.
   */
  async claim(options: ClaimOptions): Promise<ClaimedDelivery[]> {
    const { ids, subscriptions } = await this.picker.pickWithSubscriptions(options);
    if (ids.length === 0) return [];
    const leased = await this.sql.all(LEASE, { ids: JSON.stringify(ids), owner: options.owner, leaseUntil: options.now + options.leaseMs });
    const byId = new Map(leased.map((row) => [row.id, row]));
    const claimed: ClaimedDelivery[] = [];
    // In the order they were dealt.
    for (const id of ids) {
      const row = byId.get(id);
      if (row === undefined) continue;
      const picked = subscriptions.get(row.subscription_id);
      const subscription: SubscriptionFields =
        picked === undefined
          ? (await this.sql.get(SUBSCRIPTION, { id: row.subscription_id }))!
          : { url: picked.url, secret: picked.secret, listen_session_id: picked.listen_session_id, workspace_id: picked.workspace_id, partner_id: picked.partner_id };
      claimed.push(rowToClaimed({ ...row, ...subscription }));
    }
    return claimed;
  }

  /**
   * Records many attempts, as `record` does one by one, in a few statements: the successes of one owner at one
   * time (the common case) share one UPDATE, one multi-row INSERT of their attempts and one reset of their
   * subscriptions' failure streaks; the rest go one by one. Results come back in input order.
   */
  async recordMany(inputs: readonly RecordAttemptInput[]): Promise<RecordAttemptResult[]> {
    const results: RecordAttemptResult[] = new Array<RecordAttemptResult>(inputs.length);
    const first = inputs[0];
    const together: number[] = [];
    inputs.forEach((input, i) => {
      if (input.outcome.ok && first !== undefined && input.owner === first.owner && input.now === first.now) together.push(i);
    });
    if (together.length > 1 && first !== undefined) {
      const recorded = await recordSuccesses(
        this.sql,
        together.map((i) => inputs[i] as RecordAttemptInput),
        first.owner,
        first.now,
      );
      for (const i of together) {
        const attemptNumber = recorded.get((inputs[i] as RecordAttemptInput).deliveryId);
        results[i] = attemptNumber === undefined ? { status: 'lease_lost' } : { status: 'succeeded', attemptNumber, nextAttemptAt: null, ownerNotified: false };
      }
    }
    for (const [i, input] of inputs.entries()) results[i] ??= await this.record(input);
    return results;
  }

  /**
   * Logs one attempt and moves the delivery on: succeeded, pending again at the next retry time, or
   * failed after the last attempt. Only a final failure counts in `errors_counter`; subscriptions are
   * never disabled. The owner is notified once per failure streak, when it reaches the threshold.
   * Call it inside a write transaction (it writes several rows).
   */
  async record(input: RecordAttemptInput): Promise<RecordAttemptResult> {
    if (input.outcome.ok) return this.recordSuccess(input);
    const row = await this.sql.get(LEASED, { id: input.deliveryId, owner: input.owner });
    if (row === undefined) return { status: 'lease_lost' };
    const attemptNumber = row.attempts + 1;
    const { outcome, now } = input;
    await this.sql.run(ATTEMPT, {
      deliveryId: row.id,
      attemptNumber,
      ok: outcome.ok ? 1 : 0,
      statusCode: outcome.statusCode,
      durationMs: outcome.durationMs,
      error: outcome.error,
      now,
    });
    const finish = (status: string, nextAt: number | null) =>
      this.sql.run(FINISH, {
        id: row.id,
        status,
        attempts: attemptNumber,
        nextAttemptAt: nextAt,
        completedAt: nextAt === null ? now : null,
      });
    const nextAt = nextAttemptAt(attemptNumber, now, input.retryDelays ?? DEFAULT_RETRY_DELAYS_MS);
    if (nextAt !== null) {
      await finish('pending', nextAt);
      return { status: 'retry_scheduled', attemptNumber, nextAttemptAt: nextAt, ownerNotified: false };
    }
    await finish('failed', null);
    const { consecutive_failures: streak } = (await this.sql.get(SUBSCRIPTION_FAILED, { id: row.subscription_id }))!;
    const threshold = input.failureNotifyThreshold ?? DEFAULT_FAILURE_NOTIFY_THRESHOLD;
    // A listener's subscription fails whenever the developer's local app is down: no e-mail for that.
    const ownerNotified = streak === threshold && row.listen_session_id === null;
    if (ownerNotified) {
      await this.sql.run(NOTIFY, {
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

  private async recordSuccess(input: RecordAttemptInput): Promise<RecordAttemptResult> {
    const { outcome, now } = input;
    const row = await this.sql.get(SUCCEED, { id: input.deliveryId, owner: input.owner, now });
    if (row === undefined) return { status: 'lease_lost' };
    await this.sql.run(ATTEMPT, {
      deliveryId: input.deliveryId,
      attemptNumber: row.attempts,
      ok: 1,
      statusCode: outcome.statusCode,
      durationMs: outcome.durationMs,
      error: null,
      now,
    });
    await this.sql.run(SUBSCRIPTION_OK, { id: row.subscription_id });
    return { status: 'succeeded', attemptNumber: row.attempts, nextAttemptAt: null, ownerNotified: false };
  }

  /** Earliest time a POSTed delivery becomes due (a retry, or a lease running out), or null when none is pending. */
  nextDueAt(): Promise<number | null> {
    return this.picker.nextDueAt();
  }

  /** Owners holding a live lease, and letting one owner's leases run out now (see workers/lease-owners.ts). */
  async liveOwners(now: number): Promise<string[]> {
    return (await this.sql.all(LIVE_OWNERS, { now })).map((row) => row.owner);
  }

  async expireOwner(owner: string, now: number): Promise<void> {
    await this.sql.run(EXPIRE_OWNER, { owner, now });
  }

  /** Queues a delivery again as a new row with the same `webhook-id` and body; returns the new id. */
  async redeliver(deliveryId: number, now: number): Promise<number | null> {
    return (await this.sql.get(REDELIVER, { id: deliveryId, now }))?.id ?? null;
  }
}
