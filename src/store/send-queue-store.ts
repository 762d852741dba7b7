/**
 * The send dispatcher's claims and completions, a batch at a time: the heads of every due account's queue
 * (one message per account: an account's messages go out in order, one after the other) are claimed, leased
 * and finished with a few statements per batch rather than several per message. Inside a transaction on
 * PostgreSQL every statement is a round trip, and an account's next message waits for the round before it
 * (claim, network, completion), so the round's length sets each account's rate. SQLite runs the same steps as
 * single-row statements, which cost it nothing.
 */
import { ACCOUNT_BY_ID, type AccountRow } from './account-store.js';
import { LEASE_JOB, SEND_QUEUE_HEADS, type JobRow } from './job-store.js';
import { sendEventViewsAhead } from './message-event-view.js';
import { flushReceived, MESSAGE_ADDED_COLUMNS, MESSAGE_BY_ID, SELECT_MESSAGE, type MessageRow } from './message-store.js';
import { postgresOnly, query, writeUnanswered, type SqlExecutor } from './sql.js';
import { subscribedEventsSql } from './webhooks/subscription-store.js';

/** A claimed head: its job, and its message, account and workspace interval as they are (missing: gone). */
export interface ClaimedHead {
  job: JobRow;
  message: MessageRow | undefined;
  account: AccountRow | undefined;
  sendIntervalMs: number | null;
}

/** What a claim writes for one head: the lease, the account's next slot, and the message's move to Sending. */
export interface HeadClaim {
  jobId: number;
  accountId: number;
  nextSendAt: number;
  messageId: number;
}

// A head is due when its own time has come, nobody holds a live lease on it and the account's spacing slot is open.
const DUE = `j.run_at <= @now AND (j.lease_until IS NULL OR j.lease_until <= @now) AND a.next_send_at <= @now`;

// SQLite has one writer: the plain reads are exact, and the rows are read one by one after them.
const DUE_JOBS = query<JobRow>(`SELECT j.* ${SEND_QUEUE_HEADS} AND ${DUE} ORDER BY j.id LIMIT @limit`);
const FOLLOWING_JOBS = query<JobRow>(`SELECT * FROM jobs WHERE kind = 'send' AND queue_key = @accountId AND id > @headId ORDER BY id LIMIT @count`);
const INTERVAL = query<{ send_interval_ms: number | null }>('SELECT send_interval_ms FROM workspaces WHERE id = @id');
/**
 * Most messages of one unspaced account (interval 0) a claim takes, handed to the network in queue order: its
 * rate is then not one message per claim, commit and completion.
 */
export const UNSPACED_RUN = 8;
// PostgreSQL: the first jobs of each account's queue (`position` 1 is the head; more than one only where the
// workspace sends unspaced), those due, with their message, account and interval. Read committed: it locks each
// job and its account (NO KEY UPDATE: new chats and messages of the account, whose foreign key checks take KEY
// SHARE, are not held up), so a replica racing for the same account skips it and takes other accounts', and a
// row changed by a claim that committed meanwhile (the lease, the account's next slot) is checked again in its
// new version before it is taken. The rows come as JSON, read as the single-row reads would (these tables hold
// no binary columns, and every number fits a double). The run's length is written in, not a parameter: the
// planner then knows each account gives at most that many rows. Given a limit it could not read (a parameter, or
// 1 or 8 by the workspace), it took a tenth of the queue, and once the statistics showed a backlog its generic
// plan walked the whole queue in id order to meet them: 48 ms a claim behind 5,000 queued sends, 0.7 ms now.
const CLAIM_HEADS = postgresOnly<{ job: JobRow; message: MessageRow | null; account: AccountRow; send_interval_ms: number | null; position: number }>(
  `SELECT to_jsonb(j) AS job, to_jsonb(a) AS account, w.send_interval_ms, q.position,
     (SELECT to_jsonb(m) FROM (${SELECT_MESSAGE} WHERE m.id = j.ref_id) m) AS message
   FROM messenger_accounts a
   JOIN workspaces w ON w.id = a.workspace_id
   CROSS JOIN LATERAL (SELECT h.id, row_number() OVER (ORDER BY h.id) AS position FROM jobs h
     WHERE h.kind = 'send' AND h.queue_key = a.id ORDER BY h.id LIMIT ${UNSPACED_RUN}) q
   JOIN jobs j ON j.id = q.id
   WHERE a.status <> 'suspended' AND (q.position = 1 OR w.send_interval_ms = 0) AND ${DUE}
   ORDER BY j.id LIMIT @limit
   FOR NO KEY UPDATE OF j, a SKIP LOCKED`,
);

/** Each account's rows from its head on, as long as they follow one another; `position` counts from 1. */
function queuePrefixes<Row extends { accountId: number; position: number }>(rows: readonly Row[]): Row[] {
  const next = new Map<number, number>();
  return rows.filter((row) => {
    const expected = next.get(row.accountId) ?? 1;
    if (row.position !== expected) return false;
    next.set(row.accountId, expected + 1);
    return true;
  });
}

const RESERVE_SLOT = query('UPDATE messenger_accounts SET next_send_at = @nextSendAt WHERE id = @id');
const TO_SENDING = query(`UPDATE messages SET status = 'Sending' WHERE id = @id AND status = 'Pending'`);
// Every row by its key whatever the estimates (the claim runs on generic plans): an account's next slot by its
// place in the list, the same for each of its claims. Joined to an unnest of the claims instead, the generic plan
// guessed its size and hashed a scan of the whole jobs table (0.40 against 0.24 ms a call under the mixed load).
const APPLY_CLAIMS = postgresOnly(
  `WITH leased AS (UPDATE jobs SET lease_owner = @owner, lease_until = @until, attempts = attempts + 1
       WHERE id = ANY(@jobIds::bigint[])),
     slots AS (UPDATE messenger_accounts a
       SET next_send_at = (CAST(@nextSendAts AS BIGINT[]))[array_position(CAST(@accountIds AS BIGINT[]), a.id)]
       WHERE a.id = ANY(@accountIds::bigint[]))
   UPDATE messages SET status = 'Sending' WHERE id = ANY(@messageIds::bigint[]) AND status = 'Pending'`,
);

const REMOVE_JOB = query(`DELETE FROM jobs WHERE kind = 'send' AND ref_id = @refId`);
const FINAL = "('Sent', 'Failed')";
// One statement: the jobs removed, the messages the network took marked Sent (unless already final), and the
// messages read as they were before (the statement's snapshot), each with the event types its workspace
// subscribes to, so the completion's events need no probe. It runs on its generic plan (the dispatcher's
// completion transaction is on generic plans, `WriteOptions.genericPlans`): PostgreSQL planned it at
// every call (0.4-0.5 ms of planning against 0.15-0.17 of execution under the mixed load). So every row is reached
// by its key whatever the estimates: the sent messages by `id = ANY`, each one's network id by its place in the
// list (not joined to an unnest, whose size a generic plan guesses), and the message's added columns by
// MESSAGE_ADDED_COLUMNS' sub-selects.
const FINISH_JOBS = postgresOnly<MessageRow & { subscribed_events: string[] }>(
  `WITH removed AS (DELETE FROM jobs WHERE kind = 'send' AND ref_id = ANY(@ids::bigint[])),
   marked AS (UPDATE messages m SET status = 'Sent', sent_at = @now,
       network_message_id = (CAST(@networkMessageIds AS TEXT[]))[array_position(CAST(@sentIds AS BIGINT[]), m.id)]
     WHERE m.id = ANY(@sentIds::bigint[]) AND m.status NOT IN ${FINAL})
   SELECT m.*, ${MESSAGE_ADDED_COLUMNS}, ${subscribedEventsSql('m.workspace_id')} AS subscribed_events
   FROM messages m WHERE m.id = ANY(@ids::bigint[])`,
);
const MARK_SENT = query(`UPDATE messages SET status = 'Sent', network_message_id = @networkMessageId, sent_at = @now WHERE id = @id AND status NOT IN ${FINAL}`);

/** What `finishJobsOf` answers. */
export interface FinishedJobs {
  messages: Map<number, MessageRow>;
  /** By workspace: the event types some enabled subscription names; read only where a read is a round trip. */
  subscribedEvents: Map<number, string[]> | undefined;
}

export function createSendQueueStore(sql: SqlExecutor) {
  const postgres = sql.dialect === 'postgres';
  return {
    /**
     * Up to `limit` due queue heads, oldest first: of each account, its head, and where its workspace sends
     * unspaced (interval 0) up to `UNSPACED_RUN` of its messages in queue order (the next ones due as well). On
     * PostgreSQL they are locked for this transaction. `more`: the claim may have left due messages behind (it
     * reached `limit`, or an account's run its length); otherwise it took every one due that it could lock.
     */
    async claimDueHeads(now: number, limit: number): Promise<{ heads: ClaimedHead[]; more: boolean }> {
      await flushReceived(sql);
      if (postgres) {
        // On its generic plan, as the dispatcher's claim transaction runs (`WriteOptions.genericPlans`): PostgreSQL
        // planned it at most calls (mixed load, one run: 60 plans in 133 calls, 1.0 ms of planning a call against
        // 0.87 of execution; generic: 0.79, 10 plans in 147).
        const rows = (await sql.all(CLAIM_HEADS, { now, limit })).map((row) => ({ ...row, accountId: row.account.id, position: Number(row.position) }));
        const prefixes = queuePrefixes(rows);
        return {
          heads: prefixes.map((row) => ({ job: row.job, message: row.message ?? undefined, account: row.account, sendIntervalMs: row.send_interval_ms })),
          more: rows.length >= limit || prefixes.some((row) => row.position === UNSPACED_RUN),
        };
      }
      const heads: ClaimedHead[] = [];
      const due = await sql.all(DUE_JOBS, { now, limit });
      let more = due.length >= limit;
      for (const head of due) {
        const account = await sql.get(ACCOUNT_BY_ID, { id: head.queue_key });
        const sendIntervalMs = account === undefined ? null : ((await sql.get(INTERVAL, { id: account.workspace_id }))?.send_interval_ms ?? null);
        const run = [head];
        const following = sendIntervalMs === 0 ? await sql.all(FOLLOWING_JOBS, { accountId: head.queue_key, headId: head.id, count: UNSPACED_RUN - 1 }) : [];
        // The following jobs as far as they are due in turn (the account's slot is open: its head is due).
        for (const job of following) {
          if (job.run_at > now || (job.lease_until !== null && job.lease_until > now)) break;
          run.push(job);
        }
        if (run.length === UNSPACED_RUN) more = true;
        for (const job of run) heads.push({ job, message: await sql.get(MESSAGE_BY_ID, { id: job.ref_id }), account, sendIntervalMs });
      }
      return { heads: heads.slice(0, limit), more: more || heads.length > limit };
    },

    /** Leases the claimed jobs to `owner` until `until`, reserves each account's next slot, moves Pending messages to Sending. */
    async applyClaims(claims: readonly HeadClaim[], owner: string, until: number): Promise<void> {
      if (claims.length === 0) return;
      if (postgres) {
        const params = {
          jobIds: claims.map((c) => c.jobId), accountIds: claims.map((c) => c.accountId), nextSendAts: claims.map((c) => c.nextSendAt),
          messageIds: claims.map((c) => c.messageId), owner, until,
        };
        // The claim's last write: its COMMIT need not wait for its answer.
        await writeUnanswered(sql, APPLY_CLAIMS, params);
        return;
      }
      for (const claim of claims) {
        await sql.run(RESERVE_SLOT, { id: claim.accountId, nextSendAt: claim.nextSendAt });
        await sql.run(LEASE_JOB, { id: claim.jobId, owner, until });
        await sql.run(TO_SENDING, { id: claim.messageId });
      }
    },

    /**
     * Removes the send jobs of the messages `ids`, marks Sent those of `sent` (the network took them) that are
     * not Sent or Failed already, and returns the messages as they were before that, by id (a deleted one has
     * none), with, on PostgreSQL, which events their workspaces subscribe to. By message and not job id: SQLite
     * reuses a deleted job's rowid, so a late finisher could hit a newer job.
     */
    async finishJobsOf(
      ids: readonly number[],
      sent: ReadonlyArray<{ id: number; networkMessageId: string | null }>,
      now: number,
      /** Sent messages whose events' bodies to read right behind (`sendEventViewsAhead`): PostgreSQL, same round trip. */
      viewsAhead: readonly number[] = [],
    ): Promise<FinishedJobs> {
      const finished: FinishedJobs = { messages: new Map(), subscribedEvents: undefined };
      if (ids.length === 0) return finished;
      await flushReceived(sql);
      if (postgres) {
        finished.subscribedEvents = new Map();
        const params = { ids, sentIds: sent.map((m) => m.id), networkMessageIds: sent.map((m) => m.networkMessageId), now };
        const rows = sql.all(FINISH_JOBS, params);
        sendEventViewsAhead(sql, viewsAhead);
        for (const { subscribed_events: subscribed, ...message } of await rows) {
          finished.messages.set(message.id, message);
          finished.subscribedEvents.set(message.workspace_id, subscribed);
        }
        return finished;
      }
      for (const id of ids) {
        const row = await sql.get(MESSAGE_BY_ID, { id });
        if (row !== undefined) finished.messages.set(id, row);
        await sql.run(REMOVE_JOB, { refId: id });
      }
      for (const message of sent) await sql.run(MARK_SENT, { ...message, now });
      return finished;
    },
  };
}
