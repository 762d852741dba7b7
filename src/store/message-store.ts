import type { Db } from './database.js';

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

/** Messages and reactions. */
export function createMessageStore(db: Db) {
  const insert = db.prepare(
    `INSERT INTO messages (uid, workspace_id, chat_id, messenger_account_id, direction, status, text, file_id,
       template_id, reply_to_id, credits, created_at)
     VALUES (@uid, @workspaceId, @chatId, @accountId, @direction, @status, @text, @fileId, @templateId, @replyToId,
       @credits, @now)`,
  );
  const byUid = db.prepare<[string], MessageRow>(`${SELECT_MESSAGE} WHERE m.uid = ?`);
  const byId = db.prepare<[number], MessageRow>(`${SELECT_MESSAGE} WHERE m.id = ?`);
  const pageOfChat = db.prepare<[number, number, number], MessageRow>(
    `${SELECT_MESSAGE} WHERE m.chat_id = ? ORDER BY m.id LIMIT ? OFFSET ?`,
  );
  const setStatus = db.prepare(
    `UPDATE messages SET status = @status, failure_reason = @failureReason, network_message_id = @networkMessageId,
       sent_at = @sentAt WHERE id = @id`,
  );
  const markSent = db.prepare(
    `UPDATE messages SET status = 'Sent', network_message_id = ?, sent_at = ? WHERE id = ?`,
  );
  const reactions = db.prepare<[number], { emoji: string; count: number }>(
    'SELECT emoji, count FROM reactions WHERE message_id = ? ORDER BY emoji',
  );
  const addReaction = db.prepare(
    `INSERT INTO reactions (message_id, emoji, count) VALUES (?, ?, 1)
     ON CONFLICT (message_id, emoji) DO UPDATE SET count = count + 1`,
  );

  return {
    insert: (m: NewMessage): number => Number(insert.run(m).lastInsertRowid),
    byUid: (uid: string) => byUid.get(uid),
    byId: (id: number) => byId.get(id),
    pageOfChat: (chatId: number, limit: number, offset: number) => pageOfChat.all(chatId, limit, offset),
    setStatus: (s: { id: number; status: MessageRow['status']; failureReason: string | null; networkMessageId: string | null; sentAt: number | null }) =>
      void setStatus.run(s),
    markSent: (id: number, networkMessageId: string | null, now: number) => void markSent.run(networkMessageId, now, id),
    /** Reactions as SPEC.md 2.5 shows them: emoji -> count as a string; null when there are none. */
    reactionsOf(messageId: number): Record<string, string> | null {
      const rows = reactions.all(messageId);
      return rows.length === 0 ? null : Object.fromEntries(rows.map((r) => [r.emoji, String(r.count)]));
    },
    addReaction: (messageId: number, emoji: string) => void addReaction.run(messageId, emoji),
  };
}

export type MessageStore = ReturnType<typeof createMessageStore>;
