import type { Db } from './database.js';

/**
 * Counts behind `GET /metrics` and the backlog check; each reads only the live queue rows, through the partial
 * indexes on pending and delivering rows (`status IN (...)` would scan every delivery of the retention period).
 */
export function createStatsStore(db: Db) {
  const webhooks = db.prepare<[], { kind: 'workspace' | 'partner' | 'listen'; status: 'pending' | 'delivering'; count: number; oldest: number | null }>(`
    SELECT CASE WHEN s.listen_session_id IS NOT NULL THEN 'listen' WHEN s.partner_id IS NOT NULL THEN 'partner' ELSE 'workspace' END AS kind,
           d.status, COUNT(*) AS count, MIN(d.created_at) AS oldest
    FROM (SELECT subscription_id, status, created_at FROM webhook_deliveries WHERE status = 'pending'
          UNION ALL
          SELECT subscription_id, status, created_at FROM webhook_deliveries WHERE status = 'delivering') d
    JOIN webhook_subscriptions s ON s.id = d.subscription_id
    GROUP BY kind, d.status`);
  const sends = db.prepare<[], { count: number; oldest: number | null }>(
    `SELECT COUNT(*) AS count, MIN(created_at) AS oldest FROM jobs WHERE kind = 'send'`,
  );
  const ownerMail = db.prepare<[], { count: number }>(`SELECT COUNT(*) AS count FROM owner_notifications WHERE mail_status = 'pending'`);
  // Pending POSTed deliveries per subscription, for the per-tenant backlog bound.
  const pendingBySubscription = db.prepare<[], { id: number; url: string; workspace_id: number | null; partner_id: number | null; count: number; oldest: number }>(`
    SELECT s.id, s.url, s.workspace_id, s.partner_id, COUNT(*) AS count, MIN(d.created_at) AS oldest
    FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
    WHERE d.status = 'pending' AND s.listen_session_id IS NULL GROUP BY s.id`);
  const notice = db.prepare(`INSERT INTO owner_notifications (workspace_id, partner_id, subscription_id, kind, details, created_at)
    VALUES (@workspaceId, @partnerId, @subscriptionId, 'webhook_backlog', @details, @now)`);
  return {
    /** Records a backlog notice for the owner (the mailer sends it where SMTP is configured). */
    recordBacklogNotice: (n: { workspaceId: number | null; partnerId: number | null; subscriptionId: number; details: string; now: number }) =>
      void notice.run(n),
    webhooks: () => webhooks.all(),
    sends: () => sends.get() ?? { count: 0, oldest: null },
    ownerMail: () => ownerMail.get() ?? { count: 0 },
    pendingBySubscription: () => pendingBySubscription.all(),
  };
}
