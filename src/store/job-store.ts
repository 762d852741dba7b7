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
// (kind, queue_key, id) index so the cost grows with the number of accounts, not of queued messages (SQLite's
// plan; PostgreSQL's reads of the heads are written with LATERAL, see NEXT_SEND_TIME and CLAIM_HEADS).
export const SEND_QUEUE_HEADS = `FROM messenger_accounts a
  JOIN jobs j ON j.id = (SELECT MIN(h.id) FROM jobs h WHERE h.kind = 'send' AND h.queue_key = a.id)
  WHERE a.status <> 'suspended'`;
export const LEASE_JOB = query('UPDATE jobs SET lease_owner = @owner, lease_until = @until, attempts = attempts + 1 WHERE id = @id');
const REMOVE = query('DELETE FROM jobs WHERE id = @id');
// PostgreSQL takes the head of each account's queue through a LATERAL subquery: given SEND_QUEUE_HEADS' join, it
// hashed the whole jobs table to find the heads (15,000 queued sends: a sequential scan, 17 ms at every poll of
// the dispatcher; 0.4 ms this way). SQLite looks each head up through the index either way.
const NEXT_SEND_TIME = query<{ t: number | null }>({
  sqlite: `SELECT MIN(MAX(j.run_at, a.next_send_at, COALESCE(j.lease_until, 0))) AS t ${SEND_QUEUE_HEADS}`,
  postgres: `SELECT MIN(GREATEST(j.run_at, a.next_send_at, COALESCE(j.lease_until, 0))) AS t
    FROM messenger_accounts a
    CROSS JOIN LATERAL (SELECT h.run_at, h.lease_until FROM jobs h WHERE h.kind = 'send' AND h.queue_key = a.id ORDER BY h.id LIMIT 1) j
    WHERE a.status <> 'suspended'`,
});
const LIVE_OWNERS = query<{ owner: string }>(
  'SELECT DISTINCT lease_owner AS owner FROM jobs WHERE lease_until > @now AND lease_owner IS NOT NULL',
);
const EXPIRE_OWNER = query('UPDATE jobs SET lease_until = @now WHERE lease_owner = @owner AND lease_until > @now');
const COUNT = query<{ n: number }>('SELECT COUNT(*) AS n FROM jobs WHERE kind = @kind');

/**
 * The durable job table (a send job is inserted with its message, by the message store; the dispatcher claims
 * and finishes them through send-queue-store.ts).
 */
export function createJobStore(sql: SqlExecutor) {
  return {
    lease: async (id: number, owner: string, until: number): Promise<void> => void (await sql.run(LEASE_JOB, { id, owner, until })),
    remove: async (id: number): Promise<void> => void (await sql.run(REMOVE, { id })),
    /** Earliest time any send job could become due, or null when the queue is empty. */
    nextSendTime: async (): Promise<number | null> => (await sql.get(NEXT_SEND_TIME))?.t ?? null,
    /** Owners holding a lease that has not run out (see workers/lease-owners.ts). */
    liveOwners: async (now: number): Promise<string[]> => (await sql.all(LIVE_OWNERS, { now })).map((row) => row.owner),
    expireOwner: async (owner: string, now: number): Promise<void> => void (await sql.run(EXPIRE_OWNER, { owner, now })),
    count: async (kind: string): Promise<number> => (await sql.get(COUNT, { kind }))?.n ?? 0,
  };
}
