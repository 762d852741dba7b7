import type { Db } from './database.js';

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

/** The durable job table. Claims happen inside the caller's write transaction. */
export function createJobStore(db: Db) {
  const insert = db.prepare(
    `INSERT INTO jobs (kind, ref_id, queue_key, run_at, created_at) VALUES (@kind, @refId, @queueKey, @runAt, @now)`,
  );
  // The head of each account's queue (jobs of one account go out in acceptance order), found through the
  // (kind, queue_key, id) index so the cost grows with the number of accounts, not of queued messages.
  const HEADS = `FROM messenger_accounts a
    JOIN jobs j ON j.id = (SELECT MIN(h.id) FROM jobs h WHERE h.kind = 'send' AND h.queue_key = a.id)
    WHERE a.status <> 'suspended'`;
  // A head is due when its own time has come, nobody holds a live lease on it and the account's spacing
  // slot is open.
  const dueSend = db.prepare<{ now: number }, JobRow>(
    `SELECT j.* ${HEADS} AND j.run_at <= @now AND (j.lease_until IS NULL OR j.lease_until <= @now)
       AND a.next_send_at <= @now
     ORDER BY j.id LIMIT 1`,
  );
  const lease = db.prepare('UPDATE jobs SET lease_owner = ?, lease_until = ?, attempts = attempts + 1 WHERE id = ?');
  const remove = db.prepare('DELETE FROM jobs WHERE id = ?');
  const removeByRef = db.prepare('DELETE FROM jobs WHERE kind = ? AND ref_id = ?');
  const nextSendTime = db.prepare<[], { t: number | null }>(
    `SELECT MIN(MAX(j.run_at, a.next_send_at, COALESCE(j.lease_until, 0))) AS t ${HEADS}`,
  );
  const liveOwners = db.prepare<{ now: number }, { owner: string }>(
    'SELECT DISTINCT lease_owner AS owner FROM jobs WHERE lease_until > @now AND lease_owner IS NOT NULL',
  );
  const expireOwner = db.prepare('UPDATE jobs SET lease_until = @now WHERE lease_owner = @owner AND lease_until > @now');
  const count = db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM jobs WHERE kind = ?');

  return {
    insert: (j: { kind: string; refId: number; queueKey: number; runAt: number; now: number }) =>
      void insert.run(j),
    dueSend: (now: number) => dueSend.get({ now }),
    lease: (id: number, owner: string, until: number) => void lease.run(owner, until, id),
    remove: (id: number) => void remove.run(id),
    removeByRef: (kind: string, refId: number) => void removeByRef.run(kind, refId),
    /** Earliest time any send job could become due, or null when the queue is empty. */
    nextSendTime: (): number | null => nextSendTime.get()?.t ?? null,
    /** Owners holding a lease that has not run out (see workers/lease-owners.ts). */
    liveOwners: (now: number): string[] => liveOwners.all({ now }).map((row) => row.owner),
    expireOwner: (owner: string, now: number) => void expireOwner.run({ owner, now }),
    count: (kind: string): number => count.get(kind)?.n ?? 0,
  };
}

export type JobStore = ReturnType<typeof createJobStore>;
