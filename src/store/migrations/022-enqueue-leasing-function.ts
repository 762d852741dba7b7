import type { MigrationSource } from './migration.js';

/**
 * The subscriptions of a batch's events that may take leases now: enabled, POSTed (no listen session), nothing of
 * theirs due (no pending row due, no lease run out), each locked as a claim locks its candidates, skipping those a
 * claim holds. Each look is a probe of the subscription's index range (as NOT EXISTS, the plan hashed every
 * pending row due, a backlog's whole length at every enqueue), and each event's subscriptions are looked up by its
 * workspace's index range (OFFSET 0 keeps the lookup per event: joined, the generic plan scanned every
 * subscription). Exported for the plan test; written out here, since a released migration never changes.
 */
export const ENQUEUE_TAKERS_QUERY = `SELECT s.id FROM webhook_subscriptions s
WHERE s.id IN (
    SELECT named.id FROM unnest(p_workspace_ids, p_event_types) AS e(workspace_id, event_type)
    CROSS JOIN LATERAL (SELECT s2.id FROM webhook_subscriptions s2
      WHERE s2.workspace_id = e.workspace_id AND s2.event_type = e.event_type AND s2.enabled = 1 OFFSET 0) named)
  AND s.listen_session_id IS NULL
  AND (SELECT 1 FROM webhook_deliveries d WHERE d.subscription_id = s.id AND d.status = 'pending' AND d.next_attempt_at <= p_now
       ORDER BY d.next_attempt_at LIMIT 1) IS NULL
  AND (SELECT 1 FROM webhook_deliveries d WHERE d.subscription_id = s.id AND d.status = 'delivering' AND d.lease_until <= p_now
       ORDER BY d.lease_until LIMIT 1) IS NULL
ORDER BY s.id
FOR NO KEY UPDATE OF s SKIP LOCKED`;

/**
 * The deliveries written, those of `v_takers` leased as far as their caps, their tenant's and the budget allow
 * (counted in the order written, so each subscription's leased rows are its oldest new ones); returns the leased
 * rows with their subscriptions' fields, and on each how many were written pending.
 */
export const ENQUEUE_LEASING_QUERY = `WITH e AS (
  SELECT * FROM unnest(p_msg_ids, p_event_types, p_workspace_ids, p_payloads, p_nows)
    WITH ORDINALITY AS e(msg_id, event_type, workspace_id, payload, now, n)
), wanted AS (
  SELECT s.id AS sub, s.workspace_id AS ws, e.msg_id, e.event_type, e.payload, e.now, e.n, s.id = ANY(v_takers) AS taker
  FROM e CROSS JOIN LATERAL (SELECT s.id, s.workspace_id FROM webhook_subscriptions s
    WHERE s.workspace_id = e.workspace_id AND s.event_type = e.event_type AND s.enabled = 1 OFFSET 0) s
), live AS (
  SELECT l.sub, t.ws, l.n FROM (SELECT DISTINCT ws FROM wanted WHERE taker) t
  CROSS JOIN LATERAL (SELECT s.id AS sub,
      (SELECT count(*) FROM webhook_deliveries d WHERE d.subscription_id = s.id AND d.status = 'delivering' AND d.lease_until > p_now) AS n
    FROM webhook_subscriptions s WHERE s.workspace_id = t.ws OFFSET 0) l
), ranked AS (
  SELECT w.*, w.taker
    AND (SELECT l.n FROM live l WHERE l.sub = w.sub) + row_number() OVER (PARTITION BY w.sub ORDER BY w.n) <= p_subscription_cap
    AND (SELECT sum(l.n) FROM live l WHERE l.ws = w.ws) + row_number() OVER (PARTITION BY w.ws ORDER BY w.n, w.sub) <= p_tenant_cap
    AND row_number() OVER (ORDER BY w.n, w.sub) <= p_budget AS leased
  FROM wanted w
), ins AS (
  INSERT INTO webhook_deliveries
    (subscription_id, webhook_msg_id, event_type, payload, status, attempts, next_attempt_at, created_at, lease_owner, lease_until)
  SELECT r.sub, r.msg_id, r.event_type, r.payload, CASE WHEN r.leased THEN 'delivering' ELSE 'pending' END, 0, r.now, r.now,
    CASE WHEN r.leased THEN p_owner END, CASE WHEN r.leased THEN p_lease_until END
  FROM ranked r ORDER BY r.n, r.sub
  RETURNING webhook_deliveries.id, webhook_deliveries.subscription_id, webhook_deliveries.webhook_msg_id,
    webhook_deliveries.event_type, webhook_deliveries.payload, webhook_deliveries.attempts, webhook_deliveries.created_at,
    webhook_deliveries.status
)
SELECT i.id, i.subscription_id, i.webhook_msg_id, i.event_type, i.payload, i.attempts, i.created_at, s.url, s.secret, s.workspace_id,
  (SELECT count(*) FROM ins WHERE ins.status = 'pending')
FROM ins i JOIN webhook_subscriptions s ON s.id = i.subscription_id
WHERE i.status = 'delivering'
ORDER BY i.id`;

/**
 * Version 22, PostgreSQL only: `svc_enqueue_leasing(...)`, the deliveries of a transaction's workspace events
 * written with as many of them as may go at once already leased to this process's webhook worker, so they skip
 * the worker's claim (src/store/webhooks/delivery-store.ts, `enqueueWorkspaceEvents`). A function because its
 * two steps need two snapshots: the subscriptions are locked first (as a claim locks its candidates, skipping
 * those a claim holds right now), and their live leases are counted after the lock, when no claim can add to
 * them unseen. A subscription takes leases only when nothing of it is due (no pending row due, no lease run out:
 * new rows never overtake), and only as many as keep it under its cap, its tenant under the tenant's, and the
 * lease count under the worker's free slots (`p_budget`); the rest are written pending, as before. Returns the
 * leased rows with what the worker needs to sign and send them, and on each how many were left pending.
 */
export const ENQUEUE_LEASING_FUNCTION: MigrationSource = {
  version: 22,
  name: 'enqueue-leasing-function',
  sql: {
    sqlite: `
-- Nothing on SQLite: its worker claims in a fraction of a millisecond.
`,
    postgres: `
CREATE FUNCTION svc_enqueue_leasing(
  p_msg_ids TEXT[], p_event_types TEXT[], p_workspace_ids BIGINT[], p_payloads TEXT[], p_nows BIGINT[],
  p_owner TEXT, p_now BIGINT, p_lease_until BIGINT, p_budget BIGINT, p_subscription_cap BIGINT, p_tenant_cap BIGINT)
RETURNS TABLE (id BIGINT, subscription_id BIGINT, webhook_msg_id TEXT, event_type TEXT, payload TEXT, attempts INTEGER,
  created_at BIGINT, url TEXT, secret TEXT, workspace_id BIGINT, left_pending BIGINT)
LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $fn$
#variable_conflict use_column
DECLARE
  v_takers BIGINT[];
BEGIN
  SELECT array_agg(t.id) INTO v_takers FROM (${ENQUEUE_TAKERS_QUERY}) t;
  RETURN QUERY
  ${ENQUEUE_LEASING_QUERY};
END
$fn$;
`,
  },
};
