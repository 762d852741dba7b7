import type { MigrationSource } from './migration.js';

/**
 * The webhook pick's candidates (src/store/webhooks/delivery-picker-sql.ts) on PostgreSQL: the enabled
 * subscriptions of the listen session given (none: the outbox's own) with pending rows, found by a skip-scan of
 * webhook_deliveries_pending_sub, or with an expired lease; each locked, skipping those another replica is
 * claiming for, and with how many rows it has due, up to the cap. Exported for the plan test; written out here,
 * not built from the store's constant, since a released migration never changes.
 */
export const DELIVERY_CANDIDATES_QUERY = `WITH RECURSIVE pending(id) AS (
    SELECT (SELECT subscription_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY subscription_id LIMIT 1)
    UNION ALL
    SELECT (SELECT d.subscription_id FROM webhook_deliveries d
            WHERE d.status = 'pending' AND d.subscription_id > pending.id ORDER BY d.subscription_id LIMIT 1)
    FROM pending WHERE pending.id IS NOT NULL
  )
  SELECT s.id, s.url, s.workspace_id, s.partner_id, s.secret, s.listen_session_id,
    (SELECT COUNT(*) FROM (SELECT 1 FROM webhook_deliveries d WHERE d.subscription_id = s.id AND d.status = 'pending'
       AND d.next_attempt_at <= p_now ORDER BY d.next_attempt_at LIMIT p_due_cap) waiting)
    + (SELECT COUNT(*) FROM (SELECT 1 FROM webhook_deliveries d WHERE d.subscription_id = s.id AND d.status = 'delivering'
       AND d.lease_until <= p_now ORDER BY d.lease_until LIMIT p_due_cap) expired)
  FROM webhook_subscriptions s
  WHERE s.id IN (
      SELECT pending.id FROM pending WHERE pending.id IS NOT NULL
      UNION
      SELECT d.subscription_id FROM webhook_deliveries d WHERE d.status = 'delivering' AND d.lease_until <= p_now)
    AND s.enabled = 1 AND s.listen_session_id IS NOT DISTINCT FROM p_session
  ORDER BY s.id
  FOR NO KEY UPDATE OF s SKIP LOCKED`;

/** Live leases per subscription, with the fields the caps are counted by (its tenant and receiver). */
export const LIVE_LEASES_QUERY = `SELECT s.id, s.url, s.workspace_id, s.partner_id, COUNT(*)
  FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
  WHERE d.status = 'delivering' AND d.lease_until > p_now GROUP BY s.id`;

/**
 * Version 21, PostgreSQL only: those two reads of every webhook claim as functions, `svc_delivery_candidates(now,
 * session, due cap)` and `svc_live_leases(now)`, whose queries run on the plans PL/pgSQL caches for each
 * connection, generic, as migration 17's. Sent as statements of their own, PostgreSQL planned both at every call:
 * 425 and 215 µs a call under the mixed load, more than they took to run (192 and 80 µs; bench/README.md,
 * 2026-11-29, eighth session). As functions, only these two run on generic plans: the claim's lease and the
 * records it shares a transaction with keep their custom plans.
 */
export const DELIVERY_PICK_FUNCTIONS: MigrationSource = {
  version: 21,
  name: 'delivery-pick-functions',
  sql: {
    sqlite: `
-- Nothing on SQLite: its reads are planned once per prepared statement.
`,
    postgres: `
CREATE FUNCTION svc_delivery_candidates(p_now BIGINT, p_session TEXT, p_due_cap BIGINT)
RETURNS TABLE (id BIGINT, url TEXT, workspace_id BIGINT, partner_id BIGINT, secret TEXT, listen_session_id TEXT, due BIGINT)
LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $fn$
#variable_conflict use_column
BEGIN
  RETURN QUERY ${DELIVERY_CANDIDATES_QUERY};
END
$fn$;
CREATE FUNCTION svc_live_leases(p_now BIGINT)
RETURNS TABLE (id BIGINT, url TEXT, workspace_id BIGINT, partner_id BIGINT, n BIGINT)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $fn$
#variable_conflict use_column
BEGIN
  RETURN QUERY ${LIVE_LEASES_QUERY};
END
$fn$;
`,
  },
};
