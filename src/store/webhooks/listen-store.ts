import { query, type SqlExecutor } from '../sql.js';

/** A row of listen_sessions (migration 007): one running `svc webhooks listen` of a workspace or a partner. */
export interface ListenSessionRow {
  id: string;
  workspace_id: number | null;
  partner_id: number | null;
  events: string; // JSON array
  secret: string;
  last_seen_at: number;
  created_at: number;
}

/** Whose session: a workspace's (Public API) or a partner's (Partner API); exactly one is set. */
export interface ListenScope {
  workspaceId: number | null;
  partnerId: number | null;
}

/** Null-safe match of a scope: SQLite's `IS`, PostgreSQL's `IS NOT DISTINCT FROM` (typed, since either may be null). */
const IN_SCOPE = {
  sqlite: 'workspace_id IS @workspaceId AND partner_id IS @partnerId',
  postgres:
    'workspace_id IS NOT DISTINCT FROM CAST(@workspaceId AS BIGINT) AND partner_id IS NOT DISTINCT FROM CAST(@partnerId AS BIGINT)',
};

const INSERT_SESSION = query(`INSERT INTO listen_sessions (id, workspace_id, partner_id, events, secret, last_seen_at, created_at)
  VALUES (@id, @workspaceId, @partnerId, @events, @secret, @now, @now)`);
// Listener subscriptions count down from -1: AUTOINCREMENT only advances on ids above its high-water mark (and
// PostgreSQL's identity ignores ids given explicitly), so listeners never burn the ids `svc webhooks create`
// hands out (these rows are never shown by id). Two-argument MIN is LEAST on PostgreSQL.
const INSERT_SUBSCRIPTION_TEXT = (smaller: string) => `INSERT INTO webhook_subscriptions
  (id, workspace_id, partner_id, event_type, url, enabled, secret, listen_session_id, created_at, updated_at)
  VALUES (${smaller}(-1, (SELECT COALESCE(MIN(id), 0) FROM webhook_subscriptions) - 1),
          @workspaceId, @partnerId, @eventType, @url, 1, @secret, @sessionId, @now, @now)
  RETURNING id`;
const INSERT_SUBSCRIPTION = query<{ id: number }>({ sqlite: INSERT_SUBSCRIPTION_TEXT('MIN'), postgres: INSERT_SUBSCRIPTION_TEXT('LEAST') });
const COUNT_OPEN = query<{ n: number }>({
  sqlite: `SELECT COUNT(*) AS n FROM listen_sessions WHERE ${IN_SCOPE.sqlite}`,
  postgres: `SELECT COUNT(*) AS n FROM listen_sessions WHERE ${IN_SCOPE.postgres}`,
});
const BY_ID = query<ListenSessionRow>({
  sqlite: `SELECT * FROM listen_sessions WHERE id = @id AND ${IN_SCOPE.sqlite}`,
  postgres: `SELECT * FROM listen_sessions WHERE id = @id AND ${IN_SCOPE.postgres}`,
});
// Taken first by a claim: on PostgreSQL the row lock orders two claims of one session (SQLite's write lock does already).
const LOCK_SESSION = query<{ id: string }>({
  sqlite: 'SELECT id FROM listen_sessions WHERE id = @id',
  postgres: 'SELECT id FROM listen_sessions WHERE id = @id FOR UPDATE',
});
const TOUCH = query('UPDATE listen_sessions SET last_seen_at = @now WHERE id = @id');
// Deleting the subscriptions cascades to their deliveries and attempt log; done explicitly rather than
// through the session's ON DELETE CASCADE so it does not depend on the foreign_keys pragma.
const REMOVE_SUBSCRIPTIONS = query('DELETE FROM webhook_subscriptions WHERE listen_session_id = @id');
const REMOVE_DELIVERIES = query(`DELETE FROM webhook_deliveries WHERE subscription_id IN
  (SELECT id FROM webhook_subscriptions WHERE listen_session_id = @id)`);
const REMOVE_SESSION = query('DELETE FROM listen_sessions WHERE id = @id');
const STALE = query<{ id: string }>('SELECT id FROM listen_sessions WHERE last_seen_at < @before');
// A cheap read before opening a write transaction to claim: streams poll often and are usually idle.
const ANY_DUE = query<{ one: number }>(`SELECT 1 AS one
  FROM webhook_subscriptions s JOIN webhook_deliveries d ON d.subscription_id = s.id
  WHERE s.listen_session_id = @id AND s.enabled = 1
    AND ((d.status = 'pending' AND d.next_attempt_at <= @now) OR (d.status = 'delivering' AND d.lease_until <= @now))
  LIMIT 1`);
const IN_FLIGHT = query<{ n: number }>(`SELECT COUNT(*) AS n FROM webhook_deliveries
  WHERE status = 'delivering' AND lease_owner = @owner AND lease_until > @now`);
const RELEASE = query(`UPDATE webhook_deliveries SET lease_until = @now
  WHERE status = 'delivering' AND lease_owner = @owner AND lease_until > @now`);

/**
 * Listen sessions and their subscriptions. A listener's subscriptions are ordinary webhook_subscriptions rows
 * with `listen_session_id` set, so the outbox, retries and `errors_counter` treat them like any other; the
 * HTTP worker skips them because the listener delivers.
 */
export function createListenStore(sql: SqlExecutor) {
  const remove = async (id: string): Promise<void> => {
    await sql.run(REMOVE_DELIVERIES, { id });
    await sql.run(REMOVE_SUBSCRIPTIONS, { id });
    await sql.run(REMOVE_SESSION, { id });
  };

  return {
    insertSession: async (s: { id: string; scope: ListenScope; events: readonly string[]; secret: string; now: number }): Promise<void> =>
      void (await sql.run(INSERT_SESSION, { id: s.id, ...s.scope, events: JSON.stringify(s.events), secret: s.secret, now: s.now })),
    insertSubscription: async (s: { sessionId: string; scope: ListenScope; eventType: string; url: string; secret: string; now: number }): Promise<number> =>
      (await sql.get(INSERT_SUBSCRIPTION, { sessionId: s.sessionId, ...s.scope, eventType: s.eventType, url: s.url, secret: s.secret, now: s.now }))!.id,
    byId: (id: string, scope: ListenScope): Promise<ListenSessionRow | undefined> => sql.get(BY_ID, { id, ...scope }),
    countOpen: async (scope: ListenScope): Promise<number> => (await sql.get(COUNT_OPEN, { ...scope }))?.n ?? 0,
    /** Locks the session's row until the transaction ends; false when it is gone. Call inside a write transaction. */
    lockSession: async (id: string): Promise<boolean> => (await sql.get(LOCK_SESSION, { id })) !== undefined,
    touch: async (id: string, now: number): Promise<void> => void (await sql.run(TOUCH, { id, now })),
    /** Removes a session with its subscriptions and their deliveries. Call inside a write transaction. */
    remove,
    /** Removes every session not seen since `before`; returns their ids. Call inside a write transaction. */
    async removeStale(before: number): Promise<string[]> {
      const ids = (await sql.all(STALE, { before })).map((row) => row.id);
      for (const id of ids) await remove(id);
      return ids;
    },
    hasDue: async (id: string, now: number): Promise<boolean> => (await sql.get(ANY_DUE, { id, now })) !== undefined,
    /** Deliveries this owner holds an unexpired lease on (handed out, not yet reported). */
    inFlight: async (owner: string, now: number): Promise<number> => (await sql.get(IN_FLIGHT, { owner, now }))?.n ?? 0,
    /** Ends this owner's leases now, so what it held is claimed again at once (a new stream took over). */
    releaseLeases: (owner: string, now: number): Promise<number> => sql.run(RELEASE, { owner, now }),
  };
}
