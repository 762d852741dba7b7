import type { AcceptedSend, ReceivedMessage } from './deferred-writes.js';
import type { ClaimedSend, MessageRow } from './rows.js';
import { removeUnusedChats } from './chat-store.js';
import { postgresOnly, query, writeUnanswered, type Params, type SqlExecutor } from './sql.js';
import { forgetKnownViews } from './known-event-views.js';

export type { MessageRow };

/** A message row to insert: an accepted send's fields with its direction and status. */
export interface NewMessage extends AcceptedSend {
  direction: 'sent' | 'received';
  status: MessageRow['status'];
}

export const SELECT_MESSAGE = `SELECT m.*, f.uid AS file_uid, r.uid AS reply_to_uid, a.phone AS account_phone,
    c.contact_phone AS contact_phone
  FROM messages m
  JOIN chats c ON c.id = m.chat_id
  JOIN messenger_accounts a ON a.id = m.messenger_account_id
  LEFT JOIN files f ON f.id = m.file_id
  LEFT JOIN messages r ON r.id = m.reply_to_id`;
/**
 * The columns SELECT_MESSAGE adds to a message `m`, each read by a sub-select of its own rather than a join: a
 * statement on its generic plan then reaches each by its key whatever the estimates (joined, a generic plan
 * hashed a scan of the whole files table). A message's chat and account always exist, so nothing is lost.
 */
export const MESSAGE_ADDED_COLUMNS = `(SELECT f.uid FROM files f WHERE f.id = m.file_id) AS file_uid,
  (SELECT r.uid FROM messages r WHERE r.id = m.reply_to_id) AS reply_to_uid,
  (SELECT a.phone FROM messenger_accounts a WHERE a.id = m.messenger_account_id) AS account_phone,
  (SELECT c.contact_phone FROM chats c WHERE c.id = m.chat_id) AS contact_phone`;

const INSERT = query<{ id: number }>(
  `INSERT INTO messages (uid, workspace_id, chat_id, messenger_account_id, direction, status, text, file_id,
     template_id, reply_to_id, credits, created_at)
   VALUES (@uid, @workspaceId, @chatId, @accountId, @direction, @status, @text, @fileId, @templateId, @replyToId,
     @credits, @now)
   RETURNING id`,
);
/**
 * The row an incoming message's insert leaves (INSERT_RECEIVED and FLUSH_RECEIVED below write these values), as
 * SELECT_MESSAGE reads it back: for a caller that knows the row whole without reading it (message-event-view.ts).
 */
export function receivedMessageRow(
  m: ReceivedMessage,
  added: { fileUid: string | null; replyToUid: string | null; accountPhone: string; contactPhone: string },
): MessageRow {
  return {
    id: m.id, uid: m.uid, workspace_id: m.workspaceId, chat_id: m.chatId, messenger_account_id: m.accountId,
    direction: 'received', status: 'Sent', failure_reason: null, text: m.text, file_id: m.fileId, template_id: null,
    reply_to_id: m.replyToId, credits: 0, network_message_id: null, created_at: m.now, sent_at: m.now,
    file_uid: added.fileUid, reply_to_uid: added.replyToUid, account_phone: added.accountPhone, contact_phone: added.contactPhone,
  };
}

// An incoming message arrives delivered: Sent, with its time, in one statement.
const INSERT_RECEIVED = query<{ id: number }>(
  `INSERT INTO messages (uid, workspace_id, chat_id, messenger_account_id, direction, status, text, file_id,
     reply_to_id, credits, created_at, sent_at)
   VALUES (@uid, @workspaceId, @chatId, @accountId, 'received', 'Sent', @text, @fileId, @replyToId, 0, @now, @now)
   RETURNING id`,
);
const INSERT_RECEIVED_WITH_ID = query(
  `INSERT INTO messages (id, uid, workspace_id, chat_id, messenger_account_id, direction, status, text, file_id,
     reply_to_id, credits, created_at, sent_at)
   VALUES (@id, @uid, @workspaceId, @chatId, @accountId, 'received', 'Sent', @text, @fileId, @replyToId, 0, @now, @now)`,
);
const INSERT_SEND_JOB = query('INSERT INTO jobs (kind, ref_id, queue_key, run_at, created_at) VALUES (\'send\', @id, @accountId, @now, @now)');
// PostgreSQL: every send a transaction accepted, in one statement at its end (`DeferredWrites`): the debit of
// each workspace (conditional, as a last guard: the quota was checked behind the row lock), the messages in
// acceptance order (ids, and so each account's send queue, follow it), their send jobs and ledger rows.
const QUOTA_GUARD = 'accepted sends exceed their quota: the batch is not written';
// The debit is conditional (room left), and every workspace of the batch must be debited (`svc_assert`,
// migration 15): the statement fails otherwise, so the COMMIT can follow it unanswered.
//
// `claiming` (a send of the batch carries `ClaimAhead`: this process's dispatcher takes hand-offs and is not busy
// with its account already): an account whose queue held no send, that is connected and whose send slot is open,
// has its first message (of an unspaced workspace, its first `run`) leased to `@owner` and moved to Sending, and
// its next slot reserved, as the dispatcher's claim would do a moment later. Its queue was empty and only this
// workspace's sends (behind its row lock, held here) queue on it, so no claim elsewhere can hold or take any of
// its messages. `claimed` lists them as the claim reads them; `new_queues` counts the accounts left for a claim.
const flushSendsSql = (claiming: boolean) => `WITH rows AS (
     SELECT * FROM unnest(@uids::text[], @workspaceIds::bigint[], @chatIds::bigint[], @accountIds::bigint[], @texts::text[],
       @fileIds::bigint[], @templateIds::bigint[], @replyToIds::bigint[], @credits::int[], @nows::bigint[]${claiming ? ', @spacings::bigint[], @runs::int[], @places::int[]' : ''})
       WITH ORDINALITY AS r(uid, workspace_id, chat_id, account_id, text, file_id, template_id, reply_to_id, credits, now${claiming ? ', spacing, run, place' : ''}, ord)),
   totals AS (SELECT workspace_id, SUM(credits) AS total FROM rows GROUP BY workspace_id),
   debited AS (
     UPDATE workspaces w SET quota_used = w.quota_used + t.total FROM totals t
     WHERE w.id = t.workspace_id AND w.quota_used + t.total <= w.quota_total RETURNING w.id),
${claiming ? `   -- Accounts whose queue held no send before, with their first send: the probe of the plain statement's
   -- new_queues (written as NOT EXISTS, the planner made it an anti-join over the whole backlog).
   fresh AS (
     SELECT * FROM rows r
     WHERE place = 1 AND (SELECT h.id FROM jobs h WHERE h.kind = 'send' AND h.queue_key = r.account_id LIMIT 1) IS NULL),
   opened AS (
     UPDATE messenger_accounts a SET next_send_at = f.now + f.spacing FROM fresh f
     WHERE a.id = f.account_id AND f.spacing IS NOT NULL AND a.status = 'connected' AND a.next_send_at <= f.now
     RETURNING a.id, f.run, to_jsonb(a) AS account),
` : ''}   m AS (
     INSERT INTO messages (uid, workspace_id, chat_id, messenger_account_id, direction, status, text, file_id, template_id,
       reply_to_id, credits, created_at)
     SELECT uid, workspace_id, chat_id, account_id, 'sent', ${claiming ? "CASE WHEN place <= o.run THEN 'Sending' ELSE 'Pending' END" : "'Pending'"},
       text, file_id, template_id, reply_to_id, credits, now
     FROM rows${claiming ? ' LEFT JOIN opened o ON o.id = rows.account_id' : ''} ORDER BY ord
     RETURNING ${claiming ? '*' : 'id, workspace_id, messenger_account_id, credits, created_at'}),
   j AS (INSERT INTO jobs (kind, ref_id, queue_key, run_at, created_at${claiming ? ', lease_owner, lease_until, attempts' : ''})
     SELECT 'send', id, messenger_account_id, created_at, created_at${claiming ? `, CASE WHEN status = 'Sending' THEN @owner::text END,
       CASE WHEN status = 'Sending' THEN @leaseUntil::bigint END, CASE WHEN status = 'Sending' THEN 1 ELSE 0 END` : ''}
     FROM m ORDER BY id RETURNING id, ref_id),
   l AS (INSERT INTO credit_ledger (workspace_id, message_id, delta, reason, created_at)
     SELECT workspace_id, id, credits, 'debit', created_at FROM m ORDER BY id)
   SELECT svc_assert((SELECT COUNT(*) FROM debited) = (SELECT COUNT(*) FROM totals), '${QUOTA_GUARD}') AS guarded,
     (SELECT COUNT(*) FROM m) AS messages,
     ${claiming ? '(SELECT COUNT(*) FROM fresh) - (SELECT COUNT(*) FROM opened)' : `-- Accounts whose queue held no send before (the statement's snapshot does not see its own inserts); a
     -- probe of the (kind, queue_key, id) index per account, never a join over the whole queue.
     (SELECT COUNT(*) FROM (SELECT DISTINCT account_id FROM rows) r
      WHERE (SELECT h.id FROM jobs h WHERE h.kind = 'send' AND h.queue_key = r.account_id LIMIT 1) IS NULL)`} AS new_queues${claiming ? `,
     (SELECT jsonb_agg(jsonb_build_object('jobId', c.job_id, 'account', c.account, 'message', to_jsonb(c) - 'job_id' - 'account'))
      FROM (SELECT m.*, ${MESSAGE_ADDED_COLUMNS}, j.id AS job_id, o.account
            FROM m JOIN j ON j.ref_id = m.id JOIN opened o ON o.id = m.messenger_account_id WHERE m.status = 'Sending') c) AS claimed` : ''}`;
type FlushAnswer = { guarded: boolean; messages: number; new_queues: number; claimed?: ClaimedSend[] | null };
const FLUSH_SENDS = postgresOnly<FlushAnswer>(flushSendsSql(false));
const FLUSH_SENDS_CLAIMING = postgresOnly<FlushAnswer>(flushSendsSql(true));
const DEBIT = query('UPDATE workspaces SET quota_used = quota_used + @credits WHERE id = @workspaceId AND quota_used + @credits <= quota_total');
const LEDGER_DEBIT = query(
  `INSERT INTO credit_ledger (workspace_id, message_id, delta, reason, created_at) VALUES (@workspaceId, @id, @credits, 'debit', @now)`,
);

/**
 * Writes the sends `tx` accepted (`DeferredWrites`), before its COMMIT: one statement on PostgreSQL; on SQLite
 * (no round trips to save) the same steps per send. A debit that finds no room (it cannot, after the check
 * behind the lock) fails the whole transaction rather than write a message its quota does not cover. Sends
 * claimed at acceptance (PostgreSQL) are told so by their `claimAhead.onClaimed`, once the statement answers.
 */
export async function flushAcceptedSends(tx: SqlExecutor, sends: readonly AcceptedSend[]): Promise<void> {
  if (sends.length === 0) return;
  if (tx.dialect === 'postgres') {
    const ahead = sends.find((s) => s.claimAhead !== undefined)?.claimAhead;
    const params: Params = {
      uids: sends.map((s) => s.uid), workspaceIds: sends.map((s) => s.workspaceId), chatIds: sends.map((s) => s.chatId),
      accountIds: sends.map((s) => s.accountId), texts: sends.map((s) => s.text), fileIds: sends.map((s) => s.fileId),
      templateIds: sends.map((s) => s.templateId), replyToIds: sends.map((s) => s.replyToId), credits: sends.map((s) => s.credits),
      nows: sends.map((s) => s.now),
    };
    if (ahead !== undefined) {
      // Each send's place among its account's sends of the batch, from 1.
      const counted = new Map<number, number>();
      const places = sends.map((s) => counted.set(s.accountId, (counted.get(s.accountId) ?? 0) + 1).get(s.accountId)!);
      Object.assign(params, {
        spacings: sends.map((s) => s.claimAhead?.spacingMs ?? null), runs: sends.map((s) => s.claimAhead?.run ?? 0), places,
        owner: ahead.owner, leaseUntil: ahead.leaseUntil,
      });
    }
    const deferred = tx.deferred!;
    const answered = ([answer]: FlushAnswer[]): void => {
      deferred.sendsNeedWake = Number(answer!.new_queues) > 0;
      const claimed = answer!.claimed ?? [];
      if (claimed.length === 0) return;
      const byUid = new Map(sends.map((s) => [s.uid, s]));
      for (const claim of claimed) byUid.get(claim.message.uid)?.claimAhead?.onClaimed(claim);
    };
    await writeUnanswered(tx, ahead === undefined ? FLUSH_SENDS : FLUSH_SENDS_CLAIMING, params, answered);
    return;
  }
  for (const s of sends) {
    if ((await tx.run(DEBIT, { workspaceId: s.workspaceId, credits: s.credits })) === 0) throw new Error(QUOTA_GUARD);
    const id = (await tx.get(INSERT, { ...s, direction: 'sent', status: 'Pending' }))!.id;
    await tx.run(INSERT_SEND_JOB, { id, accountId: s.accountId, now: s.now });
    await tx.run(LEDGER_DEBIT, { workspaceId: s.workspaceId, id, credits: s.credits, now: s.now });
  }
}

// Received messages deferred by a group commit, under the ids reserved for them, in one statement.
const FLUSH_RECEIVED = postgresOnly(
  `INSERT INTO messages (id, uid, workspace_id, chat_id, messenger_account_id, direction, status, text, file_id,
     reply_to_id, credits, created_at, sent_at)
   SELECT id, uid, workspace_id, chat_id, account_id, 'received', 'Sent', text, file_id, reply_to_id, 0, now, now
   FROM unnest(@ids::bigint[], @uids::text[], @workspaceIds::bigint[], @chatIds::bigint[], @accountIds::bigint[], @texts::text[],
     @fileIds::bigint[], @replyToIds::bigint[], @nows::bigint[]) AS r(id, uid, workspace_id, chat_id, account_id, text, file_id, reply_to_id, now)
   ORDER BY id`,
);

/**
 * Writes the received messages `tx` deferred so far: before its COMMIT, and before any read of messages in it.
 * `unanswered` (the flush before the COMMIT, past every savepoint): on PostgreSQL the statements after it go
 * without waiting for its answer (`sendBeforeCommit`); they run after it all the same, on the same connection.
 */
export async function flushReceived(tx: SqlExecutor, unanswered = false): Promise<void> {
  if (tx.deferred?.hasReceived() !== true) return;
  const received: ReceivedMessage[] = tx.deferred.takeReceived();
  if (tx.dialect === 'postgres') {
    const params = {
      ids: received.map((r) => r.id), uids: received.map((r) => r.uid), workspaceIds: received.map((r) => r.workspaceId),
      chatIds: received.map((r) => r.chatId), accountIds: received.map((r) => r.accountId), texts: received.map((r) => r.text),
      fileIds: received.map((r) => r.fileId), replyToIds: received.map((r) => r.replyToId), nows: received.map((r) => r.now),
    };
    await (unanswered ? writeUnanswered(tx, FLUSH_RECEIVED, params) : tx.run(FLUSH_RECEIVED, params));
    return;
  }
  for (const r of received) await tx.get(INSERT_RECEIVED_WITH_ID, { ...r });
}

/** Everything `tx` deferred, written just before its COMMIT: the rows first, then the later writes that refer to them. */
export async function flushDeferred(tx: SqlExecutor): Promise<void> {
  await flushReceived(tx, true);
  if (tx.deferred === undefined) return;
  await flushAcceptedSends(tx, tx.deferred.takeSends());
  for (const { run, args } of tx.deferred.takeLater()) await run(args);
  await removeUnusedChats(tx, tx.deferred.untakenChats());
}

const BY_UID = query<MessageRow>(`${SELECT_MESSAGE} WHERE m.uid = @uid`);
export const MESSAGE_BY_ID = query<MessageRow>(`${SELECT_MESSAGE} WHERE m.id = @id`);
const PAGE_OF_CHAT = query<MessageRow>(`${SELECT_MESSAGE} WHERE m.chat_id = @chatId ORDER BY m.id LIMIT @limit OFFSET @offset`);
const SET_STATUS = query(
  `UPDATE messages SET status = @status, failure_reason = @failureReason, network_message_id = @networkMessageId,
     sent_at = @sentAt WHERE id = @id`,
);
const REACTIONS = query<{ emoji: string; count: number }>('SELECT emoji, count FROM reactions WHERE message_id = @messageId ORDER BY emoji');
const ADD_REACTION = query(
  `INSERT INTO reactions (message_id, emoji, count) VALUES (@messageId, @emoji, 1)
   ON CONFLICT (message_id, emoji) DO UPDATE SET count = reactions.count + 1`,
);

/** A message's reactions as docs/api-behaviour.md shows them: emoji -> count as a string; null when there are none. */
export async function reactionsOf(sql: SqlExecutor, messageId: number): Promise<Record<string, string> | null> {
  const rows = await sql.all(REACTIONS, { messageId });
  return rows.length === 0 ? null : Object.fromEntries(rows.map((r) => [r.emoji, String(r.count)]));
}

/** Messages and reactions. */
export function createMessageStore(sql: SqlExecutor) {
  return {
    insert: async (m: NewMessage): Promise<number> => (await sql.get(INSERT, { ...m }))!.id,
    /** A message received from a contact: stored as Sent at `now`. */
    insertReceived: async (m: Omit<ReceivedMessage, 'id'>): Promise<number> =>
      // Deferred to the batch's one statement when the prelude reserved an id for it (PostgreSQL).
      sql.deferred?.deferReceived(m) ?? (await sql.get(INSERT_RECEIVED, { ...m }))!.id,
    /**
     * An outgoing message accepted: its debit, the message as Pending, its send job and ledger row are written
     * at the end of the write transaction, with the other sends of its group commit (`flushAcceptedSends`). The
     * caller has checked the quota behind the workspace's row lock, counting `deferred.creditsOf`.
     */
    acceptSend(send: AcceptedSend): void {
      if (sql.deferred === undefined) throw new Error('acceptSend runs inside a write transaction');
      sql.deferred.addSend(send);
    },
    // Reads of messages see the received messages this transaction deferred: they are written first.
    byUid: async (uid: string) => (await flushReceived(sql), sql.get(BY_UID, { uid })),
    byId: async (id: number) => (await flushReceived(sql), sql.get(MESSAGE_BY_ID, { id })),
    pageOfChat: async (chatId: number, limit: number, offset: number) => (await flushReceived(sql), sql.all(PAGE_OF_CHAT, { chatId, limit, offset })),
    setStatus: async (s: { id: number; status: MessageRow['status']; failureReason: string | null; networkMessageId: string | null; sentAt: number | null }) =>
      (forgetKnownViews(sql), void (await sql.run(SET_STATUS, s))),
    /** Reactions as docs/api-behaviour.md shows them: emoji -> count as a string; null when there are none. */
    reactionsOf: (messageId: number) => reactionsOf(sql, messageId),
    addReaction: async (messageId: number, emoji: string) => (forgetKnownViews(sql), void (await sql.run(ADD_REACTION, { messageId, emoji }))),
  };
}
