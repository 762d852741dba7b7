import type { Db } from '../store/database.js';

/** What picking due deliveries needs from a claim (see `ClaimOptions` of the delivery queue). */
export interface PickOptions {
  now: number;
  limit: number;
  perSubscriptionCap: number;
  /** Most deliveries to one receiver (URL origin) in flight, over all its subscriptions and every process. */
  perEndpointCap?: number;
  listenSessionId?: string | null;
}

interface DueRow {
  id: number;
  due_at: number;
}

// The subscriptions that have pending rows, found by a skip-scan of webhook_deliveries_pending_sub (one
// index seek per subscription), so the cost follows the number of subscriptions with work, not the queue.
const PENDING_SUBSCRIPTIONS = `
  pending(id) AS (
    SELECT (SELECT subscription_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY subscription_id LIMIT 1)
    UNION ALL
    SELECT (SELECT d.subscription_id FROM webhook_deliveries d
            WHERE d.status = 'pending' AND d.subscription_id > pending.id ORDER BY d.subscription_id LIMIT 1)
    FROM pending WHERE pending.id IS NOT NULL
  )`;

const prepareStatements = (db: Db) => ({
  // Plus those holding an expired lease (only a killed or stuck process leaves one); then the eligible ones.
  candidates: db.prepare<{ now: number; session: string | null }, { id: number; url: string }>(`
    WITH RECURSIVE ${PENDING_SUBSCRIPTIONS}, candidates(id) AS (
      SELECT id FROM pending WHERE id IS NOT NULL
      UNION
      SELECT subscription_id FROM webhook_deliveries WHERE status = 'delivering' AND lease_until <= @now
    )
    SELECT s.id, s.url FROM candidates c JOIN webhook_subscriptions s ON s.id = c.id
    WHERE s.enabled = 1 AND s.listen_session_id IS @session ORDER BY s.id`),
  // One subscription's share: its expired leases and due pending rows, oldest first, as many as it has room
  // for (the cap less its live leases, counted over webhook_deliveries_delivering_sub).
  // The LIMITs are CAST because a bare bound parameter there measured several times slower per call.
  dueOf: db.prepare<{ sub: number; now: number; limit: number; cap: number }, DueRow>(`
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
      WHERE subscription_id = @sub AND status = 'delivering' AND lease_until > @now))) AS INTEGER)`),
  // Live leases per receiver URL (a range of webhook_deliveries_leased: only the deliveries in flight).
  liveByUrl: db.prepare<{ now: number }, { url: string; n: number }>(`
    SELECT s.url, COUNT(*) AS n FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
    WHERE d.status = 'delivering' AND d.lease_until > @now GROUP BY s.url`),
  // Per subscription with pending rows, its earliest one (an index seek), and the earliest lease to run out.
  nextDue: db.prepare<[], { due_at: number | null }>(`
    WITH RECURSIVE ${PENDING_SUBSCRIPTIONS}
    SELECT MIN(due_at) AS due_at FROM (
      SELECT (SELECT MIN(d.next_attempt_at) FROM webhook_deliveries d
              WHERE d.subscription_id = s.id AND d.status = 'pending') AS due_at
      FROM pending p JOIN webhook_subscriptions s ON s.id = p.id
      WHERE s.enabled = 1 AND s.listen_session_id IS NULL
      UNION ALL
      SELECT MIN(d.lease_until) FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
      WHERE d.status = 'delivering' AND s.enabled = 1 AND s.listen_session_id IS NULL)`),
});

const byDue = (a: DueRow, b: DueRow): number => a.due_at - b.due_at || a.id - b.id;

/** The receiver a URL points at (scheme, host and port); a URL that does not parse stands for itself. */
function endpointOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/**
 * Picks and times due deliveries for the outbox. Picking reads only indexed ranges: per subscription with
 * work, its live leases (for the cap) and at most its free slots of due rows, so a claim costs the same
 * with 10 or 100 000 deliveries queued. It only reads: the caller leases what it picked, in its transaction.
 */
export class DeliveryPicker {
  private readonly stmt: ReturnType<typeof prepareStatements>;

  constructor(db: Db) {
    this.stmt = prepareStatements(db);
  }

  /**
   * Ids of up to `limit` due deliveries (pending and due, or delivering with an expired lease), oldest due
   * first, at most `perSubscriptionCap` in flight per subscription counting live leases of every process,
   * and at most `perEndpointCap` per receiver: one that hangs cannot take every slot by being subscribed
   * to many event types.
   */
  pick(options: PickOptions): number[] {
    const { now, limit } = options;
    if (limit <= 0) return [];
    const subscriptions = this.stmt.candidates.all({ now, session: options.listenSessionId ?? null });
    const endpointCap = options.perEndpointCap ?? Infinity;
    const busy = new Map<string, number>();
    if (endpointCap !== Infinity) {
      for (const { url, n } of this.stmt.liveByUrl.all({ now })) busy.set(endpointOf(url), (busy.get(endpointOf(url)) ?? 0) + n);
    }
    const picked: DueRow[] = [];
    for (const { id: sub, url } of subscriptions) {
      const endpoint = endpointOf(url);
      const room = Math.min(limit, endpointCap - (busy.get(endpoint) ?? 0));
      if (room <= 0) continue;
      const rows = this.stmt.dueOf.all({ sub, now, limit: room, cap: options.perSubscriptionCap });
      busy.set(endpoint, (busy.get(endpoint) ?? 0) + rows.length);
      picked.push(...rows);
    }
    return picked.sort(byDue).slice(0, limit).map((row) => row.id);
  }

  /** Earliest time a POSTed delivery becomes due (a retry, or a lease running out), or null when none is pending. */
  nextDueAt(): number | null {
    return this.stmt.nextDue.get()?.due_at ?? null;
  }
}
