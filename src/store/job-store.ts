import { query, type SqlExecutor } from './sql.js';

export interface JobRow {
  id: number;
  kind: string;
  ref_id: number;
  queue_key: number;
  run_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  attempts: number;
}

// The head of each account's queue (jobs of one account go out in acceptance order), found through the
// (kind, queue_key, id) index so the cost grows with the number of accounts, not of queued messages.
const HEADS = `FROM messenger_accounts a
  JOIN jobs j ON j.id = (SELECT MIN(h.id) FROM jobs h WHERE h.kind = 'send' AND h.queue_key = a.id)
  WHERE a.status <> 'suspended'`;
// A head is due when its own time has come, nobody holds a live lease on it and the account's spacing
// slot is open.
const DUE_SEND_TEXT = `SELECT j.* ${HEADS} AND j.run_at <= @now AND (j.lease_until IS NULL OR j.lease_until <= @now)
    AND a.next_send_at <= @now
  ORDER BY j.id LIMIT 1`;
// The claim's read, inside the claim transaction (the read before it is `nextSendTime`, due now exactly when
// this finds a head). SQLite has one writer, so the plain read is exact. On
// PostgreSQL (read committed) it locks the job and its account (NO KEY UPDATE: new chats and messages of the
// account, whose foreign key checks take KEY SHARE, are not held up): a replica racing for the same head skips it
// and takes another account's, and a row changed by a claim that committed meanwhile (the lease, the
// account's next slot) is checked again in its new version before it is taken.
const CLAIM_SEND = query<JobRow>({ sqlite: DUE_SEND_TEXT, postgres: `${DUE_SEND_TEXT} FOR NO KEY UPDATE OF j, a SKIP LOCKED` });
const LEASE = query('UPDATE jobs SET lease_owner = @owner, lease_until = @until, attempts = attempts + 1 WHERE id = @id');
const REMOVE = query('DELETE FROM jobs WHERE id = @id');
const REMOVE_BY_REF = query('DELETE FROM jobs WHERE kind = @kind AND ref_id = @refId');
const NEXT_SEND_TIME = query<{ t: number | null }>({
  sqlite: `SELECT MIN(MAX(j.run_at, a.next_send_at, COALESCE(j.lease_until, 0))) AS t ${HEADS}`,
  postgres: `SELECT MIN(GREATEST(j.run_at, a.next_send_at, COALESCE(j.lease_until, 0))) AS t ${HEADS}`,
});
const LIVE_OWNERS = query<{ owner: string }>(
  'SELECT DISTINCT lease_owner AS owner FROM jobs WHERE lease_until > @now AND lease_owner IS NOT NULL',
);
const EXPIRE_OWNER = query('UPDATE jobs SET lease_until = @now WHERE lease_owner = @owner AND lease_until > @now');
const COUNT = query<{ n: number }>('SELECT COUNT(*) AS n FROM jobs WHERE kind = @kind');

/** The durable job table (a send job is inserted with its message, by the message store). Claims happen inside the caller's write transaction. */
export function createJobStore(sql: SqlExecutor) {
  return {
    /** The send job due first, if any: a plain read (the claim reads again with `claimSend`). */
    /** The send job due first, locked for this transaction on PostgreSQL (skipping those other claims hold). */
    claimSend: (now: number): Promise<JobRow | undefined> => sql.get(CLAIM_SEND, { now }),
    lease: async (id: number, owner: string, until: number): Promise<void> => void (await sql.run(LEASE, { id, owner, until })),
    remove: async (id: number): Promise<void> => void (await sql.run(REMOVE, { id })),
    removeByRef: async (kind: string, refId: number): Promise<void> => void (await sql.run(REMOVE_BY_REF, { kind, refId })),
    /** Earliest time any send job could become due, or null when the queue is empty. */
    nextSendTime: async (): Promise<number | null> => (await sql.get(NEXT_SEND_TIME))?.t ?? null,
    /** Owners holding a lease that has not run out (see workers/lease-owners.ts). */
    liveOwners: async (now: number): Promise<string[]> => (await sql.all(LIVE_OWNERS, { now })).map((row) => row.owner),
    expireOwner: async (owner: string, now: number): Promise<void> => void (await sql.run(EXPIRE_OWNER, { owner, now })),
    count: async (kind: string): Promise<number> => (await sql.get(COUNT, { kind }))?.n ?? 0,
  };
}
