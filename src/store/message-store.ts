import { postgresOnly, query, type SqlExecutor } from './sql.js';

export interface MessageRow {
  id: number;
  uid: string;
  workspace_id: number;
  chat_id: number;
  messenger_account_id: number;
  direction: 'sent' | 'received';
  status: 'Pending' | 'Sending' | 'Sent' | 'Failed';
  failure_reason: string | null;
  text: string | null;
  file_id: number | null;
  template_id: number | null;
  reply_to_id: number | null;
  credits: number;
  network_message_id: string | null;
  created_at: number;
  sent_at: number | null;
  file_uid: string | null;
  reply_to_uid: string | null;
  account_phone: string;
  contact_phone: string;
}

export interface NewMessage {
  uid: string;
  workspaceId: number;
  chatId: number;
  accountId: number;
  direction: 'sent' | 'received';
  status: MessageRow['status'];
  text: string | null;
  fileId: number | null;
  templateId: number | null;
  replyToId: number | null;
  credits: number;
  now: number;
}

const SELECT_MESSAGE = `SELECT m.*, f.uid AS file_uid, r.uid AS reply_to_uid, a.phone AS account_phone,
    c.contact_phone AS contact_phone
  FROM messages m
  JOIN chats c ON c.id = m.chat_id
  JOIN messenger_accounts a ON a.id = m.messenger_account_id
  LEFT JOIN files f ON f.id = m.file_id
  LEFT JOIN messages r ON r.id = m.reply_to_id`;

const INSERT = query<{ id: number }>(
  `INSERT INTO messages (uid, workspace_id, chat_id, messenger_account_id, direction, status, text, file_id,
     template_id, reply_to_id, credits, created_at)
   VALUES (@uid, @workspaceId, @chatId, @accountId, @direction, @status, @text, @fileId, @templateId, @replyToId,
     @credits, @now)
   RETURNING id`,
);
// An incoming message arrives delivered: Sent, with its time, in one statement.
const INSERT_RECEIVED = query<{ id: number }>(
  `INSERT INTO messages (uid, workspace_id, chat_id, messenger_account_id, direction, status, text, file_id,
     reply_to_id, credits, created_at, sent_at)
   VALUES (@uid, @workspaceId, @chatId, @accountId, 'received', 'Sent', @text, @fileId, @replyToId, 0, @now, @now)
   RETURNING id`,
);
const INSERT_SEND_JOB = query('INSERT INTO jobs (kind, ref_id, queue_key, run_at, created_at) VALUES (\'send\', @id, @accountId, @now, @now)');
// PostgreSQL: a send accepted in one statement, one round trip for the whole send: the conditional debit, and
// only when it found room, the message, its send job and the ledger row. No row back: the quota has no room,
// and nothing was written. SQLite runs the same steps as separate statements (no round trips to save).
const ACCEPT_DEBITED = postgresOnly<{ id: number }>(
  `WITH debited AS (
     UPDATE workspaces SET quota_used = quota_used + @credits WHERE id = @workspaceId AND quota_used + @credits <= quota_total RETURNING id),
   m AS (
     INSERT INTO messages (uid, workspace_id, chat_id, messenger_account_id, direction, status, text, file_id, template_id,
       reply_to_id, credits, created_at)
     SELECT @uid, id, @chatId, @accountId, 'sent', 'Pending', @text, @fileId, @templateId, @replyToId, @credits, @now FROM debited
     RETURNING id),
   j AS (INSERT INTO jobs (kind, ref_id, queue_key, run_at, created_at) SELECT 'send', id, @accountId, @now, @now FROM m)
   INSERT INTO credit_ledger (workspace_id, message_id, delta, reason, created_at)
   SELECT @workspaceId, id, @credits, 'debit', @now FROM m RETURNING message_id AS id`,
);
const DEBIT = query('UPDATE workspaces SET quota_used = quota_used + @credits WHERE id = @workspaceId AND quota_used + @credits <= quota_total');
const LEDGER_DEBIT = query(
  `INSERT INTO credit_ledger (workspace_id, message_id, delta, reason, created_at) VALUES (@workspaceId, @id, @credits, 'debit', @now)`,
);
const BY_UID = query<MessageRow>(`${SELECT_MESSAGE} WHERE m.uid = @uid`);
const BY_ID = query<MessageRow>(`${SELECT_MESSAGE} WHERE m.id = @id`);
const PAGE_OF_CHAT = query<MessageRow>(`${SELECT_MESSAGE} WHERE m.chat_id = @chatId ORDER BY m.id LIMIT @limit OFFSET @offset`);
const SET_STATUS = query(
  `UPDATE messages SET status = @status, failure_reason = @failureReason, network_message_id = @networkMessageId,
     sent_at = @sentAt WHERE id = @id`,
);
const MARK_SENT = query(`UPDATE messages SET status = 'Sent', network_message_id = @networkMessageId, sent_at = @now WHERE id = @id`);
const REACTIONS = query<{ emoji: string; count: number }>('SELECT emoji, count FROM reactions WHERE message_id = @messageId ORDER BY emoji');
const ADD_REACTION = query(
  `INSERT INTO reactions (message_id, emoji, count) VALUES (@messageId, @emoji, 1)
   ON CONFLICT (message_id, emoji) DO UPDATE SET count = reactions.count + 1`,
);

/** Messages and reactions. */
export function createMessageStore(sql: SqlExecutor) {
  return {
    insert: async (m: NewMessage): Promise<number> => (await sql.get(INSERT, { ...m }))!.id,
    /** A message received from a contact: stored as Sent at `now`. */
    insertReceived: async (m: Pick<NewMessage, 'uid' | 'workspaceId' | 'chatId' | 'accountId' | 'text' | 'fileId' | 'replyToId' | 'now'>): Promise<number> =>
      (await sql.get(INSERT_RECEIVED, { ...m }))!.id,
    /**
     * An outgoing message accepted against the workspace's quota: the debit, the message as Pending, its send
     * job and its ledger row, all or nothing. Undefined (nothing written) when the quota has no room. Call
     * inside a write transaction with the period already rolled (`rollQuotaPeriod`).
     */
    async acceptDebited(m: Omit<NewMessage, 'direction' | 'status'>): Promise<number | undefined> {
      if (sql.dialect === 'postgres') return (await sql.get(ACCEPT_DEBITED, { ...m }))?.id;
      if ((await sql.run(DEBIT, { workspaceId: m.workspaceId, credits: m.credits })) === 0) return undefined;
      const id = (await sql.get(INSERT, { ...m, direction: 'sent', status: 'Pending' }))!.id;
      await sql.run(INSERT_SEND_JOB, { id, accountId: m.accountId, now: m.now });
      await sql.run(LEDGER_DEBIT, { workspaceId: m.workspaceId, id, credits: m.credits, now: m.now });
      return id;
    },
    byUid: (uid: string) => sql.get(BY_UID, { uid }),
    byId: (id: number) => sql.get(BY_ID, { id }),
    pageOfChat: (chatId: number, limit: number, offset: number) => sql.all(PAGE_OF_CHAT, { chatId, limit, offset }),
    setStatus: async (s: { id: number; status: MessageRow['status']; failureReason: string | null; networkMessageId: string | null; sentAt: number | null }) =>
      void (await sql.run(SET_STATUS, s)),
    markSent: async (id: number, networkMessageId: string | null, now: number) => void (await sql.run(MARK_SENT, { id, networkMessageId, now })),
    /** Reactions as SPEC.md 2.5 shows them: emoji -> count as a string; null when there are none. */
    async reactionsOf(messageId: number): Promise<Record<string, string> | null> {
      const rows = await sql.all(REACTIONS, { messageId });
      return rows.length === 0 ? null : Object.fromEntries(rows.map((r) => [r.emoji, String(r.count)]));
    },
    addReaction: async (messageId: number, emoji: string) => void (await sql.run(ADD_REACTION, { messageId, emoji })),
  };
}

export type MessageStore = ReturnType<typeof createMessageStore>;
