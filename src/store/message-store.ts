import type { MessageStatus } from '../wire/types.js';
import { postgresOnly, query, type SqlExecutor } from './sql.js';

export interface MessageRow {
  id: number;
  uid: string;
  workspace_id: number;
  chat_id: number;
  messenger_account_id: number;
  direction: 'sent' | 'received';
  status: MessageStatus;
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
const INSERT_SEND_JOB = query('INSERT INTO jobs (kind, ref_id, queue_key, run_at, created_at) VALUES (\'send\', @id, @accountId, @now, @now)');
// PostgreSQL: the message and its send job in one statement, one round trip fewer while a send holds its
// workspace's row lock. SQLite has no writing CTE and no round trips to save: it runs the two statements.
const INSERT_WITH_SEND_JOB = postgresOnly<{ id: number }>(
  `WITH m AS (${INSERT.text.postgres})
   INSERT INTO jobs (kind, ref_id, queue_key, run_at, created_at) SELECT 'send', id, @accountId, @now, @now FROM m RETURNING ref_id AS id`,
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
    /** An outgoing message and the job that sends it (queued behind its account's earlier sends). */
    async insertWithSendJob(m: NewMessage): Promise<number> {
      if (sql.dialect === 'postgres') return (await sql.get(INSERT_WITH_SEND_JOB, { ...m }))!.id;
      const id = (await sql.get(INSERT, { ...m }))!.id;
      await sql.run(INSERT_SEND_JOB, { id, accountId: m.accountId, now: m.now });
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
