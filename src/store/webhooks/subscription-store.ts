import { postgresOnly, query, type SqlExecutor } from '../sql.js';

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

// Null-safe matching, so one statement serves both scopes: SQLite's `IS`, PostgreSQL's `IS NOT DISTINCT FROM`
// (typed, since either parameter may be null). Listener subscriptions (`svc webhooks listen`) belong to their
// session: they are not listed, counted or edited here.
const IN_SCOPE = {
  sqlite: 'workspace_id IS @workspaceId AND partner_id IS @partnerId AND listen_session_id IS NULL',
  postgres:
    'workspace_id IS NOT DISTINCT FROM CAST(@workspaceId AS BIGINT) AND partner_id IS NOT DISTINCT FROM CAST(@partnerId AS BIGINT)' +
    ' AND listen_session_id IS NULL',
};
const inScope = <Row>(text: (scope: string) => string) => query<Row>({ sqlite: text(IN_SCOPE.sqlite), postgres: text(IN_SCOPE.postgres) });

const INSERT = query<{ id: number }>(`INSERT INTO webhook_subscriptions
  (workspace_id, partner_id, event_type, url, enabled, secret, created_at, updated_at)
  VALUES (@workspaceId, @partnerId, @eventType, @url, @enabled, @secret, @now, @now)
  RETURNING id`);
const BY_ID = inScope<WebhookRow>((scope) => `SELECT * FROM webhook_subscriptions WHERE id = @id AND ${scope}`);
const PAGE = inScope<WebhookRow>((scope) => `SELECT * FROM webhook_subscriptions WHERE ${scope} ORDER BY id LIMIT @limit OFFSET @offset`);
const COUNT = inScope<{ n: number }>((scope) => `SELECT COUNT(*) AS n FROM webhook_subscriptions WHERE ${scope}`);
const UPDATE = query(`UPDATE webhook_subscriptions
  SET event_type = @eventType, url = @url, enabled = @enabled, updated_at = @now WHERE id = @id`);
const REMOVE = query('DELETE FROM webhook_subscriptions WHERE id = @id');
// The hot path of every send and receive: one indexed probe before any payload is built.
const ANY_WORKSPACE = query<{ one: number }>(
  'SELECT 1 AS one FROM webhook_subscriptions WHERE workspace_id = @workspaceId AND event_type = @eventType AND enabled = 1 LIMIT 1',
);
/**
 * SQL for the event types some enabled subscription of workspace `id` (an SQL expression) names, as an array: a
 * statement that reads a transaction's rows reads it with them, and the events the transaction emits then need
 * no probe of their own before their deliveries are written (src/engine/webhooks/event-sink.ts).
 */
export const subscribedEventsSql = (id: string): string =>
  `ARRAY(SELECT DISTINCT s.event_type FROM webhook_subscriptions s WHERE s.workspace_id = ${id} AND s.enabled = 1)`;

// Which of many (workspace, event) pairs some enabled subscription names, in one statement.
const WORKSPACES_WANTING = postgresOnly<{ workspace_id: number; event_type: string }>(
  `SELECT DISTINCT s.workspace_id, s.event_type FROM webhook_subscriptions s
   JOIN unnest(@workspaceIds::bigint[], @eventTypes::text[]) AS p(workspace_id, event_type)
     ON s.workspace_id = p.workspace_id AND s.event_type = p.event_type
   WHERE s.enabled = 1`,
);
const ANY_PARTNER = query<{ one: number }>(
  'SELECT 1 AS one FROM webhook_subscriptions WHERE partner_id = @partnerId AND event_type = @eventType AND enabled = 1 LIMIT 1',
);
const PARTNER_CREDENTIALS = query<{ public_id: string; secret: string }>('SELECT public_id, secret FROM partners WHERE id = @partnerId');
const SUBSCRIPTION_PARTNER = query<{ partner_id: number | null }>('SELECT partner_id FROM webhook_subscriptions WHERE id = @id');

/** Webhook subscriptions (migration 002); their deliveries are the outbox's (delivery-store.ts). */
export function createSubscriptionStore(sql: SqlExecutor) {
  return {
    insert: async (s: WebhookScope & { eventType: string; url: string; enabled: boolean; secret: string; now: number }): Promise<number> =>
      (await sql.get(INSERT, {
        workspaceId: s.workspaceId,
        partnerId: s.partnerId,
        eventType: s.eventType,
        url: s.url,
        enabled: s.enabled ? 1 : 0,
        secret: s.secret,
        now: s.now,
      }))!.id,
    byId: (scope: WebhookScope, id: number): Promise<WebhookRow | undefined> =>
      sql.get(BY_ID, { workspaceId: scope.workspaceId, partnerId: scope.partnerId, id }),
    page: (scope: WebhookScope, limit: number, offset: number): Promise<WebhookRow[]> =>
      sql.all(PAGE, { workspaceId: scope.workspaceId, partnerId: scope.partnerId, limit, offset }),
    count: async (scope: WebhookScope): Promise<number> =>
      (await sql.get(COUNT, { workspaceId: scope.workspaceId, partnerId: scope.partnerId }))?.n ?? 0,
    update: async (s: { id: number; eventType: string; url: string; enabled: boolean; now: number }): Promise<void> =>
      void (await sql.run(UPDATE, { id: s.id, eventType: s.eventType, url: s.url, enabled: s.enabled ? 1 : 0, now: s.now })),
    remove: async (id: number): Promise<void> => void (await sql.run(REMOVE, { id })),
    /** The (workspace, event) pairs among `pairs` that some enabled subscription of the workspace names. */
    async workspacesWanting(pairs: ReadonlyArray<{ workspaceId: number; eventType: string }>): Promise<Array<{ workspaceId: number; eventType: string }>> {
      if (sql.dialect !== 'postgres') {
        const wanted = [];
        for (const pair of pairs) if ((await sql.get(ANY_WORKSPACE, { ...pair })) !== undefined) wanted.push(pair);
        return wanted;
      }
      if (pairs.length === 0) return [];
      const rows = await sql.all(WORKSPACES_WANTING, { workspaceIds: pairs.map((p) => p.workspaceId), eventTypes: pairs.map((p) => p.eventType) });
      return rows.map((row) => ({ workspaceId: row.workspace_id, eventType: row.event_type }));
    },
    /** True when some enabled subscription of the partner names this event. */
    partnerWants: async (partnerId: number, eventType: string): Promise<boolean> =>
      (await sql.get(ANY_PARTNER, { partnerId, eventType })) !== undefined,
    /** Partner ID and secret behind a partner subscription, for the X-SVC-* headers; null for a workspace's. */
    async partnerOfSubscription(subscriptionId: number): Promise<{ public_id: string; secret: string } | null> {
      const partnerId = (await sql.get(SUBSCRIPTION_PARTNER, { id: subscriptionId }))?.partner_id;
      return partnerId === null || partnerId === undefined ? null : ((await sql.get(PARTNER_CREDENTIALS, { partnerId })) ?? null);
    },
  };
}

export type SubscriptionStore = ReturnType<typeof createSubscriptionStore>;
