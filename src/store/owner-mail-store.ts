import { query, type SqlExecutor } from './sql.js';

/** An owner notification leased for e-mailing, with who gets it. */
export interface ClaimedNotification {
  id: number;
  kind: string;
  /** JSON written by whoever recorded the notification (for webhooks: url, event type, streak, last error). */
  details: string | null;
  createdAt: number;
  subscriptionId: number;
  workspaceId: number | null;
  partnerId: number | null;
  /** Workspace or partner name, for the greeting. */
  ownerName: string;
  recipient: string;
  /** Failed mail attempts so far (the backoff grows with them). */
  mailAttempts: number;
}

interface PendingRow {
  id: number;
  kind: string;
  details: string | null;
  created_at: number;
  subscription_id: number | null;
  workspace_id: number | null;
  partner_id: number | null;
  owner_name: string | null;
  recipient: string | null;
  mail_attempts: number;
}

export interface MailClaimOptions {
  now: number;
  owner: string;
  leaseMs: number;
  limit: number;
  /** Notifications older than this are not mailed any more (skipped), e.g. after SMTP was off for weeks. */
  maxAgeMs: number;
}

// Due: not waiting for a retry, and not leased by a live mailer (an expired lease is a crashed one's).
const DUE = `n.mail_status = 'pending' AND (n.mail_next_at IS NULL OR n.mail_next_at <= @now)
  AND (n.mail_lease_until IS NULL OR n.mail_lease_until <= @now)`;

const ANY_DUE = query<{ one: number }>(`SELECT 1 AS one FROM owner_notifications n WHERE ${DUE} LIMIT 1`);
const DUE_ROWS = `
  SELECT n.id, n.kind, n.details, n.created_at, n.subscription_id, n.workspace_id, n.partner_id, n.mail_attempts,
         COALESCE(w.name, p.name) AS owner_name,
         NULLIF(TRIM(COALESCE(w.owner_email, p.email, '')), '') AS recipient
  FROM owner_notifications n
    LEFT JOIN workspaces w ON w.id = n.workspace_id
    LEFT JOIN partners p ON p.id = n.partner_id
  WHERE ${DUE} ORDER BY n.id LIMIT @limit`;
// PostgreSQL: the rows taken are locked until the claim commits, and rows another mailer is taking are
// skipped (only the notification's own row: the outer joins' sides cannot be locked).
const DUE_FOR_CLAIM = query<PendingRow>({ sqlite: DUE_ROWS, postgres: `${DUE_ROWS} FOR UPDATE OF n SKIP LOCKED` });
const LEASE = query(`UPDATE owner_notifications
  SET mail_lease_owner = @owner, mail_lease_until = @leaseUntil WHERE id = @id`);
const SKIP = query(`UPDATE owner_notifications
  SET mail_status = 'skipped', mail_error = @reason, mail_lease_owner = NULL, mail_lease_until = NULL WHERE id = @id`);
const SENT = query(`UPDATE owner_notifications
  SET mail_status = 'sent', emailed_at = @now, mail_error = NULL, mail_lease_owner = NULL, mail_lease_until = NULL
  WHERE id = @id AND mail_status = 'pending' AND mail_lease_owner = @owner`);
const FAILED = query(`UPDATE owner_notifications
  SET mail_attempts = mail_attempts + 1, mail_next_at = @nextAt, mail_error = @error,
      mail_lease_owner = NULL, mail_lease_until = NULL
  WHERE id = @id AND mail_status = 'pending' AND mail_lease_owner = @owner`);
// A retry's time or a lease's end, whichever is later; 0 (due now) when neither is set. Two-argument MAX is
// GREATEST on PostgreSQL.
const NEXT_DUE_TEXT = (larger: string) => `
  SELECT MIN(${larger}(COALESCE(mail_next_at, 0), COALESCE(mail_lease_until, 0))) AS due
  FROM owner_notifications WHERE mail_status = 'pending'`;
const NEXT_DUE = query<{ due: number | null }>({ sqlite: NEXT_DUE_TEXT('MAX'), postgres: NEXT_DUE_TEXT('GREATEST') });

/** The e-mail side of owner_notifications (migration 005): claim with a lease, then mark sent, failed or skipped. */
export function createOwnerMailStore(sql: SqlExecutor) {
  return {
    /** True when some notification is due: a plain read, so a mailer takes the write lock only when there is work. */
    anyDue: async (now: number): Promise<boolean> => (await sql.get(ANY_DUE, { now })) !== undefined,
    /**
     * Leases up to `limit` due notifications. Call inside a write transaction (read committed), so two
     * processes never take the same row. Rows nobody can be mailed about (no address, subscription deleted,
     * too old) are marked skipped there and then, so they are not looked at again.
     */
    async claim(o: MailClaimOptions): Promise<ClaimedNotification[]> {
      const claimed: ClaimedNotification[] = [];
      for (const row of await sql.all(DUE_FOR_CLAIM, { now: o.now, limit: o.limit })) {
        const reason =
          row.recipient === null
            ? 'no owner e-mail address'
            : row.subscription_id === null
              ? 'subscription deleted'
              : row.created_at < o.now - o.maxAgeMs
                ? 'too old to mail'
                : null;
        if (reason !== null || row.recipient === null || row.subscription_id === null) {
          await sql.run(SKIP, { id: row.id, reason });
          continue;
        }
        await sql.run(LEASE, { id: row.id, owner: o.owner, leaseUntil: o.now + o.leaseMs });
        claimed.push({
          id: row.id,
          kind: row.kind,
          details: row.details,
          createdAt: row.created_at,
          subscriptionId: row.subscription_id,
          workspaceId: row.workspace_id,
          partnerId: row.partner_id,
          ownerName: row.owner_name ?? '',
          recipient: row.recipient,
          mailAttempts: row.mail_attempts,
        });
      }
      return claimed;
    },
    /** Records the mail as sent; false when the lease was lost meanwhile (another mailer took the row over). */
    markSent: async (id: number, owner: string, now: number): Promise<boolean> => (await sql.run(SENT, { id, owner, now })) === 1,
    /** Gives the row back for a retry at `nextAt`, keeping the error for whoever inspects the table. */
    markFailed: async (id: number, owner: string, nextAt: number, error: string): Promise<boolean> =>
      (await sql.run(FAILED, { id, owner, nextAt, error })) === 1,
    /** Earliest time a notification may become due, or null when none waits to be mailed. */
    nextDueAt: async (): Promise<number | null> => (await sql.get(NEXT_DUE))?.due ?? null,
  };
}
