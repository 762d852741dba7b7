import type { Db } from './database.js';

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

/**
 * Listen sessions and their subscriptions, statements prepared once. A listener's subscriptions are
 * ordinary webhook_subscriptions rows with `listen_session_id` set, so the outbox, retries and
 * `errors_counter` treat them like any other; the HTTP worker skips them because the listener delivers.
 */
export function createListenStore(db: Db) {
  const insertSession = db.prepare(`INSERT INTO listen_sessions (id, workspace_id, partner_id, events, secret, last_seen_at, created_at)
    VALUES (@id, @workspaceId, @partnerId, @events, @secret, @now, @now)`);
  // Listener subscriptions count down from -1: AUTOINCREMENT only advances on ids above its high-water mark,
  // so listeners never burn the ids `svc webhooks create` hands out (these rows are never shown by id).
  const insertSubscription = db.prepare(`INSERT INTO webhook_subscriptions
    (id, workspace_id, partner_id, event_type, url, enabled, secret, listen_session_id, created_at, updated_at)
    VALUES (MIN(-1, (SELECT COALESCE(MIN(id), 0) FROM webhook_subscriptions) - 1),
            @workspaceId, @partnerId, @eventType, @url, 1, @secret, @sessionId, @now, @now)`);
  const countOpen = db.prepare<Record<string, unknown>, { n: number }>(
    'SELECT COUNT(*) AS n FROM listen_sessions WHERE workspace_id IS @workspaceId AND partner_id IS @partnerId',
  );
  const byId = db.prepare<Record<string, unknown>, ListenSessionRow>(
    'SELECT * FROM listen_sessions WHERE id = @id AND workspace_id IS @workspaceId AND partner_id IS @partnerId',
  );
  const touch = db.prepare('UPDATE listen_sessions SET last_seen_at = @now WHERE id = @id');
  // Deleting the subscriptions cascades to their deliveries and attempt log; done explicitly rather than
  // through the session's ON DELETE CASCADE so it does not depend on the foreign_keys pragma.
  const removeSubscriptions = db.prepare('DELETE FROM webhook_subscriptions WHERE listen_session_id = ?');
  const removeDeliveries = db.prepare(`DELETE FROM webhook_deliveries WHERE subscription_id IN
    (SELECT id FROM webhook_subscriptions WHERE listen_session_id = ?)`);
  const removeSession = db.prepare('DELETE FROM listen_sessions WHERE id = ?');
  const stale = db.prepare<[number], { id: string }>('SELECT id FROM listen_sessions WHERE last_seen_at < ?');
  // A cheap read before taking the write lock to claim: streams poll often and are usually idle.
  const anyDue = db.prepare<Record<string, unknown>, { one: number }>(`SELECT 1 AS one
    FROM webhook_subscriptions s JOIN webhook_deliveries d ON d.subscription_id = s.id
    WHERE s.listen_session_id = @id AND s.enabled = 1
      AND ((d.status = 'pending' AND d.next_attempt_at <= @now) OR (d.status = 'delivering' AND d.lease_until <= @now))
    LIMIT 1`);
  const inFlight = db.prepare<Record<string, unknown>, { n: number }>(`SELECT COUNT(*) AS n FROM webhook_deliveries
    WHERE status = 'delivering' AND lease_owner = @owner AND lease_until > @now`);
  const release = db.prepare(`UPDATE webhook_deliveries SET lease_until = @now
    WHERE status = 'delivering' AND lease_owner = @owner AND lease_until > @now`);

  const remove = (id: string): void => {
    removeDeliveries.run(id);
    removeSubscriptions.run(id);
    removeSession.run(id);
  };

  return {
    insertSession: (s: { id: string; scope: ListenScope; events: readonly string[]; secret: string; now: number }): void =>
      void insertSession.run({ id: s.id, ...s.scope, events: JSON.stringify(s.events), secret: s.secret, now: s.now }),
    insertSubscription: (s: { sessionId: string; scope: ListenScope; eventType: string; url: string; secret: string; now: number }): number =>
      Number(insertSubscription.run({ sessionId: s.sessionId, ...s.scope, eventType: s.eventType, url: s.url, secret: s.secret, now: s.now }).lastInsertRowid),
    byId: (id: string, scope: ListenScope): ListenSessionRow | undefined => byId.get({ id, ...scope }),
    countOpen: (scope: ListenScope): number => countOpen.get({ ...scope })?.n ?? 0,
    touch: (id: string, now: number): void => void touch.run({ id, now }),
    /** Removes a session with its subscriptions and their deliveries. Call inside a write transaction. */
    remove,
    /** Removes every session not seen since `before`; returns their ids. Call inside a write transaction. */
    removeStale(before: number): string[] {
      const ids = stale.all(before).map((row) => row.id);
      for (const id of ids) remove(id);
      return ids;
    },
    hasDue: (id: string, now: number): boolean => anyDue.get({ id, now }) !== undefined,
    /** Deliveries this owner holds an unexpired lease on (handed out, not yet reported). */
    inFlight: (owner: string, now: number): number => inFlight.get({ owner, now })?.n ?? 0,
    /** Ends this owner's leases now, so what it held is claimed again at once (a new stream took over). */
    releaseLeases: (owner: string, now: number): number => release.run({ owner, now }).changes,
  };
}

export type ListenStore = ReturnType<typeof createListenStore>;
