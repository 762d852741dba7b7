import { idList, postgresOnly, query, writeUnanswered, type SqlExecutor } from '../sql.js';
import { recordAttempt, recordAttempts, type DeliveryRow, type RecordAttemptInput, type RecordAttemptResult } from './delivery-attempts.js';
import { createDeliveryPicker, type DeliveryPicker, type LeasedRow, type PickedSubscription, type PickOptions } from './delivery-picker.js';

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
  /** Told whether the claim may have left due work behind (see `PickOptions.onPicked`). */
  onPicked?: (leftBehind: boolean) => void;
}

/**
 * PostgreSQL: deliveries leased to this process's webhook worker as they are written (`enqueueWorkspaceEvents`),
 * where each subscription's caps and the worker's free slots allow; see migration 22.
 */
export interface EnqueueLease {
  owner: string;
  now: number;
  leaseUntil: number;
  /** The most rows to lease: the worker's slots set aside for them. */
  budget: number;
  subscriptionCap: number;
  /** Applied to a tenant's leases over all its subscriptions (the smaller of the tenant's and the receiver's cap). */
  tenantCap: number;
  /** The rows leased, and whether any were written pending (a claim is to take them); before the COMMIT's answer. */
  onLeased: (claimed: ClaimedDelivery[], leftPending: boolean) => void;
}

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

// One delivery per enabled subscription of the scope that names the event, in one statement (not a read and
// then an insert per subscription: inside a group commit on PostgreSQL each would be a round trip).
const INSERT_FOR_EVENT = query<{ id: number }>(`INSERT INTO webhook_deliveries
  (subscription_id, webhook_msg_id, event_type, payload, status, attempts, next_attempt_at, created_at)
  SELECT id, @msgId, @eventType, @payload, 'pending', 0, @now, @now FROM webhook_subscriptions
  WHERE enabled = 1 AND event_type = @eventType AND (workspace_id = @workspaceId OR partner_id = @partnerId)
  ORDER BY id RETURNING id`);
// The deliveries of many workspace events in one statement (a group commit's), in the order of the events.
const INSERT_FOR_EVENTS = postgresOnly(`INSERT INTO webhook_deliveries
  (subscription_id, webhook_msg_id, event_type, payload, status, attempts, next_attempt_at, created_at)
  SELECT s.id, e.msg_id, e.event_type, e.payload, 'pending', 0, e.now, e.now
  FROM unnest(@msgIds::text[], @eventTypes::text[], @workspaceIds::bigint[], @payloads::text[], @nows::bigint[])
    WITH ORDINALITY AS e(msg_id, event_type, workspace_id, payload, now, n)
  JOIN webhook_subscriptions s ON s.workspace_id = e.workspace_id AND s.event_type = e.event_type AND s.enabled = 1
  ORDER BY e.n, s.id`);
// INSERT_FOR_EVENTS with leases for this process's worker (migration 22's function, `EnqueueLease`).
const INSERT_FOR_EVENTS_LEASING = postgresOnly<DeliveryRow & { left_pending: number }>(`SELECT id, subscription_id, webhook_msg_id,
  event_type, payload, attempts, created_at, url, secret, workspace_id, NULL AS listen_session_id, NULL AS partner_id, left_pending
  FROM svc_enqueue_leasing(@msgIds::text[], @eventTypes::text[], @workspaceIds::bigint[], @payloads::text[], @nows::bigint[],
    @owner, @now, @leaseUntil, @budget, @subscriptionCap, @tenantCap)`);
const INSERT = query<{ id: number }>(`INSERT INTO webhook_deliveries
  (subscription_id, webhook_msg_id, event_type, payload, status, attempts, next_attempt_at, created_at)
  VALUES (@subscriptionId, @msgId, @eventType, @payload, 'pending', 0, @now, @now) RETURNING id`);
// Every picked row leased in one statement (its subscription's fields were read with the pick). The ids as
// `idList` binds them: given a JSON list, PostgreSQL scanned the whole table at every lease while it held a few
// thousand rows (seen in auto_explain's log of the mixed load: 629 of 632 slow leases).
const LEASE = query<LeasedRow>({
  sqlite: `UPDATE webhook_deliveries
    SET status = 'delivering', lease_owner = @owner, lease_until = @leaseUntil WHERE id IN (SELECT value FROM json_each(@ids))
    RETURNING id, subscription_id, webhook_msg_id, event_type, payload, attempts, created_at`,
  postgres: `UPDATE webhook_deliveries
    SET status = 'delivering', lease_owner = @owner, lease_until = @leaseUntil WHERE id = ANY(@ids::bigint[])
    RETURNING id, subscription_id, webhook_msg_id, event_type, payload, attempts, created_at`,
});
const LIVE_OWNERS = query<{ owner: string }>(`SELECT DISTINCT lease_owner AS owner FROM webhook_deliveries
  WHERE status = 'delivering' AND lease_until > @now`);
const EXPIRE_OWNER = query(`UPDATE webhook_deliveries SET lease_until = @now
  WHERE status = 'delivering' AND lease_owner = @owner AND lease_until > @now`);
const END_LEASES = query({
  sqlite: `UPDATE webhook_deliveries SET lease_until = @now
    WHERE id IN (SELECT value FROM json_each(@ids)) AND status = 'delivering' AND lease_owner = @owner AND lease_until > @now`,
  postgres: `UPDATE webhook_deliveries SET lease_until = @now
    WHERE id = ANY(@ids::bigint[]) AND status = 'delivering' AND lease_owner = @owner AND lease_until > @now`,
});
const REDELIVER = query<{ id: number }>(`INSERT INTO webhook_deliveries
  (subscription_id, webhook_msg_id, event_type, payload, status, attempts, next_attempt_at, created_at)
  SELECT subscription_id, webhook_msg_id, event_type, payload, 'pending', 0, @now, @now
  FROM webhook_deliveries WHERE id = @id RETURNING id`);


/**
 * The durable webhook outbox over the tables of migration 002, on one executor: the engine's autocommit one
 * or one transaction's (`createStores` builds one per transaction, so the factory builds nothing but the
 * object). It knows nothing of the engine: the engine calls `enqueueEvent` (`enqueueWorkspaceEvents` for many)
 * inside the transaction that makes the change. `claim` and `record` must run inside a write transaction;
 * workers go through the delivery outbox
 * (delivery-outbox.ts), which opens one for them. `newMessageId` names an event's deliveries (their
 * `webhook-id`) when the caller gives no id: the signing rules' `generateMessageId` (src/webhooks/signature.ts).
 */
export function createDeliveryStore(sql: SqlExecutor, newMessageId: () => string) {
  // Made on first use: most transactions' stores only enqueue.
  let pickerOf: DeliveryPicker | undefined;
  const picker = (): DeliveryPicker => (pickerOf ??= createDeliveryPicker(sql));

  const body = (payload: unknown): string => (typeof payload === 'string' ? payload : JSON.stringify(payload));

  /** Writes one pending delivery for one subscription (test events use this directly). */
  const enqueue = async (input: { subscriptionId: number; eventType: string; payload: unknown; now: number; msgId?: string }): Promise<number> => {
    const row = await sql.get(INSERT, {
      subscriptionId: input.subscriptionId,
      msgId: input.msgId ?? newMessageId(),
      eventType: input.eventType,
      payload: body(input.payload),
      now: input.now,
    });
    return row!.id;
  };

  /**
   * Writes one pending delivery per enabled subscription of the scope that names `eventType`, all sharing
   * one `webhook-id`. Call it inside the transaction of the change that caused the event. Returns the
   * delivery ids (empty when nobody subscribed).
   */
  const enqueueEvent = async (input: {
    workspaceId?: number | null;
    partnerId?: number | null;
    eventType: string;
    payload: unknown;
    now: number;
    /** The `webhook-id` all its deliveries share; a fresh one when absent. */
    msgId?: string;
  }): Promise<number[]> => {
    const rows = await sql.all(INSERT_FOR_EVENT, {
      msgId: input.msgId ?? newMessageId(),
      eventType: input.eventType,
      payload: body(input.payload),
      now: input.now,
      workspaceId: input.workspaceId ?? null,
      partnerId: input.partnerId ?? null,
    });
    return rows.map((row) => row.id).sort((a, b) => a - b);
  };

  return {
    dialect: sql.dialect,

    enqueueEvent,

    /**
     * `enqueueEvent` for several workspace events at once, in their order: one statement on PostgreSQL, where
     * each is a round trip (a group commit's events, written last before its COMMIT, which follows it without
     * waiting for its answer: `sendBeforeCommit`). Resolves once it is written or, there, sent.
     */
    async enqueueWorkspaceEvents(
      events: ReadonlyArray<{ workspaceId: number; eventType: string; payload: unknown; now: number }>,
      lease?: EnqueueLease,
    ): Promise<void> {
      if (sql.dialect !== 'postgres') {
        for (const event of events) await enqueueEvent(event);
        // Leased as they are written on PostgreSQL only: here every row waits for a claim.
        lease?.onLeased([], true);
        return;
      }
      if (events.length === 0) return;
      const params = {
        msgIds: events.map(() => newMessageId()), eventTypes: events.map((e) => e.eventType), workspaceIds: events.map((e) => e.workspaceId),
        payloads: events.map((e) => body(e.payload)), nows: events.map((e) => e.now),
      };
      if (lease === undefined || lease.budget <= 0) return writeUnanswered(sql, INSERT_FOR_EVENTS, params);
      const { owner, now, leaseUntil, budget, subscriptionCap, tenantCap } = lease;
      await writeUnanswered(sql, INSERT_FOR_EVENTS_LEASING, { ...params, owner, now, leaseUntil, budget, subscriptionCap, tenantCap }, (rows) =>
        // No row: nothing was leased, and whatever was written waits for a claim.
        lease.onLeased(rows.map(rowToClaimed), rows.length === 0 || Number(rows[0]!.left_pending) > 0),
      );
    },

    enqueue,

    /**
     * Ids of up to `limit` due deliveries, dealt fairly, without leasing them: outside a transaction, a cheap
     * look whether a claim would find anything (a poll that finds nothing takes no write lock).
     */
    pick: (options: PickOptions): Promise<number[]> => picker().pick(options),

    /**
     * Leases up to `limit` due deliveries (pending and due, or delivering with an expired lease). Call it inside
     * a write transaction: on SQLite the transaction's lock, on PostgreSQL the rows locked by the pick (FOR
     * UPDATE SKIP LOCKED, in a READ COMMITTED transaction), keep two processes from leasing the same row. Fair
     * across subscriptions: each gets at most `perSubscriptionCap` in flight, counting leases others hold.
     */
    async claim(options: ClaimOptions): Promise<ClaimedDelivery[]> {
      const claimed: ClaimedDelivery[] = [];
      const fill = (ids: readonly number[], leased: LeasedRow[], subscriptions: ReadonlyMap<number, PickedSubscription>): void => {
        const byId = new Map(leased.map((row) => [row.id, row]));
        // In the order they were dealt. Every picked row's subscription was read with the pick (a row without one
        // cannot be; it would be claimed again once its lease ran out).
        for (const id of ids) {
          const row = byId.get(id);
          const picked = row && subscriptions.get(row.subscription_id);
          if (row === undefined || picked === undefined) continue;
          const { url, secret, listen_session_id, workspace_id, partner_id } = picked;
          claimed.push(rowToClaimed({ ...row, url, secret, listen_session_id, workspace_id, partner_id }));
        }
      };
      const leaseUntil = options.now + options.leaseMs;
      // On PostgreSQL the pick usually leases the rows it reads itself (`PickOptions.lease`), the claim's last statement.
      const onLeased = (rows: LeasedRow[], subscriptions: ReadonlyMap<number, PickedSubscription>) => fill(rows.map((row) => row.id), rows, subscriptions);
      const { ids, subscriptions, leased } = await picker().pickWithSubscriptions({ ...options, lease: { owner: options.owner, leaseUntil, onLeased } });
      if (leased === true || ids.length === 0) return claimed;
      // The claim's last statement. On PostgreSQL its COMMIT goes out behind it unanswered, and `claimed` is
      // filled when its rows arrive, before the transaction returns: nothing inside the transaction reads it.
      await writeUnanswered(sql, LEASE, { ids: idList(sql, ids), owner: options.owner, leaseUntil }, (rows) => fill(ids, rows, subscriptions));
      return claimed;
    },

    /** Records many attempts in a few statements (see `recordAttempts`); results in input order. */
    recordMany: (inputs: readonly RecordAttemptInput[]): Promise<RecordAttemptResult[]> => recordAttempts(sql, inputs),

    /** Logs one attempt and moves the delivery on (see `recordAttempt`). Call it inside a write transaction. */
    record: (input: RecordAttemptInput): Promise<RecordAttemptResult> => recordAttempt(sql, input),

    /** Earliest time a POSTed delivery becomes due (a retry, or a lease running out), or null when none is pending. */
    nextDueAt: (): Promise<number | null> => picker().nextDueAt(),

    /** Owners holding a live lease, and letting one owner's leases run out now (see workers/lease-owners.ts). */
    liveOwners: async (now: number): Promise<string[]> => (await sql.all(LIVE_OWNERS, { now })).map((row) => row.owner),

    expireOwner: async (owner: string, now: number): Promise<void> => void (await sql.run(EXPIRE_OWNER, { owner, now })),

    /** Lets `owner`'s leases of these deliveries run out now: the next claim takes them (as due). */
    endLeases: async (ids: readonly number[], owner: string, now: number): Promise<void> =>
      void (await sql.run(END_LEASES, { ids: idList(sql, ids), owner, now })),

    /** Queues a delivery again as a new row with the same `webhook-id` and body; returns the new id. */
    redeliver: async (deliveryId: number, now: number): Promise<number | null> => (await sql.get(REDELIVER, { id: deliveryId, now }))?.id ?? null,
  };
}

export type DeliveryStore = ReturnType<typeof createDeliveryStore>;
