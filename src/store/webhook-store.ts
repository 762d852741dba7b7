import type { Db } from './database.js';

/** A row of webhook_subscriptions. */
export interface WebhookRow {
  id: number;
  workspace_id: number | null;
  partner_id: number | null;
  event_type: string;
  url: string;
  enabled: number;
  secret: string;
  errors_counter: number;
  listen_session_id: string | null;
  created_at: number;
  updated_at: number;
}

/** Exactly one of the two is set: a workspace's (Public API) or a partner's (Partner API) subscriptions. */
export interface WebhookScope {
  workspaceId: number | null;
  partnerId: number | null;
}

// `IS` matches NULL too, so one statement serves both scopes. Listener subscriptions (`svc webhooks listen`)
// belong to their session: they are not listed, counted or edited here.
const IN_SCOPE = 'workspace_id IS @workspaceId AND partner_id IS @partnerId AND listen_session_id IS NULL';

/** Webhook subscriptions (migration 002), statements prepared once. The outbox has its own queue. */
export function createWebhookStore(db: Db) {
  const insert = db.prepare(`INSERT INTO webhook_subscriptions
    (workspace_id, partner_id, event_type, url, enabled, secret, created_at, updated_at)
    VALUES (@workspaceId, @partnerId, @eventType, @url, @enabled, @secret, @now, @now)`);
  const byId = db.prepare<Record<string, unknown>, WebhookRow>(`SELECT * FROM webhook_subscriptions WHERE id = @id AND ${IN_SCOPE}`);
  const page = db.prepare<Record<string, unknown>, WebhookRow>(
    `SELECT * FROM webhook_subscriptions WHERE ${IN_SCOPE} ORDER BY id LIMIT @limit OFFSET @offset`,
  );
  const count = db.prepare<Record<string, unknown>, { n: number }>(`SELECT COUNT(*) AS n FROM webhook_subscriptions WHERE ${IN_SCOPE}`);
  const update = db.prepare(`UPDATE webhook_subscriptions
    SET event_type = @eventType, url = @url, enabled = @enabled, updated_at = @now WHERE id = @id`);
  const remove = db.prepare('DELETE FROM webhook_subscriptions WHERE id = ?');
  // The hot path of every send and receive: one indexed probe before any payload is built.
  const anyWorkspace = db.prepare<[number, string], { one: number }>(
    'SELECT 1 AS one FROM webhook_subscriptions WHERE workspace_id = ? AND event_type = ? AND enabled = 1 LIMIT 1',
  );
  const anyPartner = db.prepare<[number, string], { one: number }>(
    'SELECT 1 AS one FROM webhook_subscriptions WHERE partner_id = ? AND event_type = ? AND enabled = 1 LIMIT 1',
  );
  const partnerCredentials = db.prepare<[number], { public_id: string; secret: string }>(
    'SELECT public_id, secret FROM partners WHERE id = ?',
  );
  const subscriptionPartner = db.prepare<[number], { partner_id: number | null }>(
    'SELECT partner_id FROM webhook_subscriptions WHERE id = ?',
  );

  return {
    insert: (s: WebhookScope & { eventType: string; url: string; enabled: boolean; secret: string; now: number }): number =>
      Number(insert.run({ ...s, enabled: s.enabled ? 1 : 0 }).lastInsertRowid),
    byId: (scope: WebhookScope, id: number): WebhookRow | undefined => byId.get({ ...scope, id }),
    page: (scope: WebhookScope, limit: number, offset: number): WebhookRow[] => page.all({ ...scope, limit, offset }),
    count: (scope: WebhookScope): number => count.get({ ...scope })?.n ?? 0,
    update: (s: { id: number; eventType: string; url: string; enabled: boolean; now: number }): void =>
      void update.run({ ...s, enabled: s.enabled ? 1 : 0 }),
    remove: (id: number): void => void remove.run(id),
    /** True when some enabled subscription of the workspace names this event. */
    workspaceWants: (workspaceId: number, eventType: string): boolean => anyWorkspace.get(workspaceId, eventType) !== undefined,
    /** True when some enabled subscription of the partner names this event. */
    partnerWants: (partnerId: number, eventType: string): boolean => anyPartner.get(partnerId, eventType) !== undefined,
    /** Partner ID and secret behind a partner subscription, for the X-SVC-* headers; null for a workspace's. */
    partnerOfSubscription(subscriptionId: number): { public_id: string; secret: string } | null {
      const partnerId = subscriptionPartner.get(subscriptionId)?.partner_id;
      return partnerId === null || partnerId === undefined ? null : (partnerCredentials.get(partnerId) ?? null);
    },
  };
}

export type WebhookStore = ReturnType<typeof createWebhookStore>;
