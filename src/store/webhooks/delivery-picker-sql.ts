/**
 * The statements of the webhook outbox's picker (delivery-picker.ts): the subscriptions with due work, their due
 * rows, their live leases, and when the next delivery comes due. Their rows' shapes are here too.
 */
import { postgresOnly, query } from '../sql.js';
import type { DeliveryRow } from './delivery-attempts.js';

/** A delivery row as a lease returns it: without its subscription's fields (read with the pick). */
export type LeasedRow = Omit<DeliveryRow, 'url' | 'secret' | 'listen_session_id' | 'workspace_id' | 'partner_id'>;

export interface DueRow {
  id: number;
  due_at: number;
}

export interface Candidate {
  id: number;
  url: string;
  workspace_id: number | null;
  partner_id: number | null;
}

/** A subscription with due work, with what a claim hands its worker (read with the pick, not once more). */
export interface PickedSubscription extends Candidate {
  secret: string;
  listen_session_id: string | null;
}

// The subscriptions that have pending rows, found by a skip-scan of webhook_deliveries_pending_sub (one
// index seek per subscription), so the cost follows the number of subscriptions with work, not the queue.
// The same text runs on both dialects (PostgreSQL's candidates have their copy in migration 21's function).
const PENDING_SUBSCRIPTIONS = `
  pending(id) AS (
    SELECT (SELECT subscription_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY subscription_id LIMIT 1)
    UNION ALL
    SELECT (SELECT d.subscription_id FROM webhook_deliveries d
            WHERE d.status = 'pending' AND d.subscription_id > pending.id ORDER BY d.subscription_id LIMIT 1)
    FROM pending WHERE pending.id IS NOT NULL
  )`;

// Plus those holding an expired lease (only a killed or stuck process leaves one); then the eligible ones.
// On PostgreSQL the subscription rows are locked, skipping those another replica is claiming for right now:
// that replica counts and fills their caps, and this one leaves them to it (it takes them at its next claim).
// NO KEY UPDATE, so enqueues (whose foreign key takes KEY SHARE) never wait for a claim. There, each comes with
// how many rows it has due (up to its cap), so a claim can tell whether it may lease them all in the statement
// that reads them (`LEASE_DUE`). PostgreSQL runs it as migration 21's function, on its generic plan (planned
// at every call, it cost more to plan than to run), where each count reads its index range in the index's order:
// without the ORDER BY, a generic plan made while a drained backlog still filled the statistics scanned the whole
// table for each subscription, expecting the LIMIT to stop it early (3 ms a claim, seen in auto_explain's log).
export const CANDIDATES = query<PickedSubscription & { due?: number }>({
  sqlite: `
    WITH RECURSIVE ${PENDING_SUBSCRIPTIONS}, candidates(id) AS (
      SELECT id FROM pending WHERE id IS NOT NULL
      UNION
      SELECT subscription_id FROM webhook_deliveries WHERE status = 'delivering' AND lease_until <= @now
    )
    SELECT s.id, s.url, s.workspace_id, s.partner_id, s.secret, s.listen_session_id FROM candidates c JOIN webhook_subscriptions s ON s.id = c.id
    WHERE s.enabled = 1 AND s.listen_session_id IS @session ORDER BY s.id`,
  postgres: `
    SELECT id, url, workspace_id, partner_id, secret, listen_session_id, due
    FROM svc_delivery_candidates(@now, CAST(@session AS TEXT), @dueCap) ORDER BY id`,
});

// One subscription's share: its expired leases and due pending rows, oldest first, as many as it has room
// for (the cap less its live leases, counted over webhook_deliveries_delivering_sub).
// SQLite: the LIMITs are CAST because a bare bound parameter there measured several times slower per call.
// PostgreSQL: the rows are locked as they are read and rows another replica has locked are skipped
// (FOR UPDATE SKIP LOCKED), so two replicas never lease the same row. The room (cap less live leases) is
// counted first, by LIVE_OF: a locking read cannot sit under the UNION's computed LIMIT (nor be a UNION branch: each
// is a sub-select). Rows the outer LIMIT
// drops stay locked (not leased) until the claim commits, a few milliseconds.
export const DUE_OF = query<DueRow>({
  sqlite: `
    SELECT id, due_at FROM (
      SELECT * FROM (SELECT id, lease_until AS due_at FROM webhook_deliveries
        WHERE subscription_id = @sub AND status = 'delivering' AND lease_until <= @now
        ORDER BY lease_until, id LIMIT CAST(@limit AS INTEGER))
      UNION ALL
      SELECT * FROM (SELECT id, next_attempt_at AS due_at FROM webhook_deliveries
        WHERE subscription_id = @sub AND status = 'pending' AND next_attempt_at <= @now
        ORDER BY next_attempt_at, id LIMIT CAST(@limit AS INTEGER)))
    ORDER BY due_at, id
    LIMIT CAST(MAX(0, MIN(@limit, @cap - (SELECT COUNT(*) FROM webhook_deliveries
      WHERE subscription_id = @sub AND status = 'delivering' AND lease_until > @now))) AS INTEGER)`,
  postgres: `
    SELECT id, due_at FROM (
      SELECT * FROM (SELECT id, lease_until AS due_at FROM webhook_deliveries
        WHERE subscription_id = @sub AND status = 'delivering' AND lease_until <= @now
        ORDER BY lease_until, id LIMIT CAST(@limit AS BIGINT) FOR UPDATE SKIP LOCKED) expired
      UNION ALL
      SELECT * FROM (SELECT id, next_attempt_at AS due_at FROM webhook_deliveries
        WHERE subscription_id = @sub AND status = 'pending' AND next_attempt_at <= @now
        ORDER BY next_attempt_at, id LIMIT CAST(@limit AS BIGINT) FOR UPDATE SKIP LOCKED) waiting) due
    ORDER BY due_at, id
    LIMIT CAST(@limit AS BIGINT)`,
});

// PostgreSQL only: DUE_OF for many subscriptions at once, `asks` a JSON array of {sub, lim}, each sub-select
// locking its rows as DUE_OF does. SQLite runs DUE_OF per subscription instead (no round trips there).
export const DUE_OF_MANY = postgresOnly<DueRow & { sub: number }>(`
  SELECT a.sub, due.id, due.due_at FROM json_to_recordset(CAST(@asks AS JSON)) AS a(sub BIGINT, lim BIGINT)
  CROSS JOIN LATERAL (
    SELECT id, due_at FROM (
      SELECT * FROM (SELECT id, lease_until AS due_at FROM webhook_deliveries
        WHERE subscription_id = a.sub AND status = 'delivering' AND lease_until <= @now
        ORDER BY lease_until, id LIMIT a.lim FOR UPDATE SKIP LOCKED) expired
      UNION ALL
      SELECT * FROM (SELECT id, next_attempt_at AS due_at FROM webhook_deliveries
        WHERE subscription_id = a.sub AND status = 'pending' AND next_attempt_at <= @now
        ORDER BY next_attempt_at, id LIMIT a.lim FOR UPDATE SKIP LOCKED) waiting) u
    ORDER BY due_at, id LIMIT a.lim) due
  ORDER BY a.sub, due.due_at, due.id`);

// PostgreSQL only: DUE_OF_MANY's rows leased by the statement that reads them, for a claim whose asks all fit
// (see `PickOptions.lease`): the claim's due rows and its leases in one round trip, its COMMIT riding behind it.
// The rows are updated by key (`id = ANY` of the rows read): joined to them, the planner (which guesses 100 asks
// of the JSON, and rows for each) hashed a scan of the whole table. Each row's due time (an expired lease's is
// overwritten) is looked up in two arrays of the rows read, built once: a sub-select of them per row read every
// row for each (the statement alone with 256 rows: 5.4 ms against 9.0; with 8 or 32, the same).
export const LEASE_DUE = postgresOnly<LeasedRow & { due_at: number }>(`
  WITH due AS MATERIALIZED (${DUE_OF_MANY.text.postgres})
  UPDATE webhook_deliveries d SET status = 'delivering', lease_owner = @owner, lease_until = @leaseUntil
  WHERE d.id = ANY(ARRAY(SELECT id FROM due))
  RETURNING d.id, d.subscription_id, d.webhook_msg_id, d.event_type, d.payload, d.attempts, d.created_at,
    (ARRAY(SELECT due_at FROM due ORDER BY id))[array_position(ARRAY(SELECT id FROM due ORDER BY id), d.id)] AS due_at`);

// PostgreSQL only: a subscription's live leases, counted before its rows are locked.
export const LIVE_OF = query<{ n: number }>(`SELECT COUNT(*) AS n FROM webhook_deliveries
  WHERE subscription_id = @sub AND status = 'delivering' AND lease_until > @now`);

// Live leases per subscription (a range of webhook_deliveries_delivering_sub: only the deliveries in flight).
// PostgreSQL groups by the primary key, so the subscription's other columns may be selected; it runs this as
// migration 21's function, on its generic plan, as the candidates.
export const LIVE_BY_SUBSCRIPTION = query<Candidate & { n: number }>({
  sqlite: `
    SELECT s.id, s.url, s.workspace_id, s.partner_id, COUNT(*) AS n
    FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
    WHERE d.status = 'delivering' AND d.lease_until > @now GROUP BY s.id`,
  postgres: 'SELECT n, id, url, workspace_id, partner_id FROM svc_live_leases(@now)',
});

// Per subscription with pending rows, its earliest one (an index seek), and the earliest lease to run out.
export const NEXT_DUE = query<{ due_at: number | null }>(`
  WITH RECURSIVE ${PENDING_SUBSCRIPTIONS}
  SELECT MIN(due_at) AS due_at FROM (
    SELECT (SELECT MIN(d.next_attempt_at) FROM webhook_deliveries d
            WHERE d.subscription_id = s.id AND d.status = 'pending') AS due_at
    FROM pending p JOIN webhook_subscriptions s ON s.id = p.id
    WHERE s.enabled = 1 AND s.listen_session_id IS NULL
    UNION ALL
    SELECT MIN(d.lease_until) FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
    WHERE d.status = 'delivering' AND s.enabled = 1 AND s.listen_session_id IS NULL) due`);
