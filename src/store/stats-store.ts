import { query, type SqlExecutor } from './sql.js';

// Each reads only the live queue rows, through the partial indexes on pending and delivering rows
// (`status IN (...)` would scan every delivery of the retention period).
const WEBHOOKS = query<{ kind: 'workspace' | 'partner' | 'listen'; status: 'pending' | 'delivering'; count: number; oldest: number | null }>(`
  SELECT CASE WHEN s.listen_session_id IS NOT NULL THEN 'listen' WHEN s.partner_id IS NOT NULL THEN 'partner' ELSE 'workspace' END AS kind,
         d.status, COUNT(*) AS count, MIN(d.created_at) AS oldest
  FROM (SELECT subscription_id, status, created_at FROM webhook_deliveries WHERE status = 'pending'
        UNION ALL
        SELECT subscription_id, status, created_at FROM webhook_deliveries WHERE status = 'delivering') d
  JOIN webhook_subscriptions s ON s.id = d.subscription_id
  GROUP BY kind, d.status`);
const SENDS = query<{ count: number; oldest: number | null }>(`SELECT COUNT(*) AS count, MIN(created_at) AS oldest FROM jobs WHERE kind = 'send'`);
const OWNER_MAIL = query<{ count: number }>(`SELECT COUNT(*) AS count FROM owner_notifications WHERE mail_status = 'pending'`);
// Pending POSTed deliveries per subscription, for the per-tenant backlog bound. PostgreSQL groups by the
// primary key, so the subscription's other columns may be selected.
const PENDING_BY_SUBSCRIPTION = query<{ id: number; url: string; workspace_id: number | null; partner_id: number | null; count: number; oldest: number }>(`
  SELECT s.id, s.url, s.workspace_id, s.partner_id, COUNT(*) AS count, MIN(d.created_at) AS oldest
  FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
  WHERE d.status = 'pending' AND s.listen_session_id IS NULL GROUP BY s.id`);
const NOTICE = query(`INSERT INTO owner_notifications (workspace_id, partner_id, subscription_id, kind, details, created_at)
  VALUES (@workspaceId, @partnerId, @subscriptionId, 'webhook_backlog', @details, @now)`);


/** Counts behind `GET /metrics` and the backlog check. */
export function createStatsStore(sql: SqlExecutor) {
  return {
    /** Records a backlog notice for the owner (the mailer sends it where SMTP is configured). */
    recordBacklogNotice: async (n: { workspaceId: number | null; partnerId: number | null; subscriptionId: number; details: string; now: number }) =>
      void (await sql.run(NOTICE, { ...n })),
    webhooks: () => sql.all(WEBHOOKS),
    sends: async () => (await sql.get(SENDS)) ?? { count: 0, oldest: null },
    ownerMail: async () => (await sql.get(OWNER_MAIL)) ?? { count: 0 },
    pendingBySubscription: () => sql.all(PENDING_BY_SUBSCRIPTION),
  };
}
