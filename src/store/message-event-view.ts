/**
 * What a message event's webhook body is built from: the message, its chat, its account, its file and its
 * reactions. On PostgreSQL one statement reads them all: inside a group commit every read is a round trip,
 * and a batch of incoming messages builds a body per event (counted under the mixed load: a third of all
 * statements were these reads). On SQLite, where a read is a function call, the stores' own reads.
 */
import { ACCOUNT_BY_ID, type AccountRow } from './account-store.js';
import { CHAT_BY_ID, SELECT_CHAT, type ChatRow } from './chat-store.js';
import { FILE_BY_ID, FILE_COLUMNS, type FileRow } from './file-store.js';
import { flushReceived, MESSAGE_BY_ID, reactionsOf, SELECT_MESSAGE, type MessageRow } from './message-store.js';
import { postgresOnly, type SqlExecutor } from './sql.js';

export interface MessageEventView {
  message: MessageRow;
  chat: ChatRow;
  account: AccountRow;
  file: FileRow | undefined;
  /** As `messages.reactionsOf` gives them: emoji -> count as a string; null when there are none. */
  reactions: Record<string, string> | null;
}

// row_to_json keeps every column under its name, as the single-row reads return them (BIGINTs are numbers
// in both: JSON numbers here, and the pool's INT8 parser there).
const VIEWS = postgresOnly<{ message: MessageRow; chat: ChatRow; account: AccountRow; file: FileRow | null; reactions: Record<string, number> | null }>(
  `SELECT row_to_json(m) AS message, row_to_json(c) AS chat, row_to_json(a) AS account, row_to_json(f) AS file,
     (SELECT json_object_agg(r.emoji, r.count ORDER BY r.emoji) FROM reactions r WHERE r.message_id = m.id) AS reactions
   FROM (${SELECT_MESSAGE} WHERE m.id = ANY(@ids::bigint[])) m
   JOIN (${SELECT_CHAT}) c ON c.id = m.chat_id AND c.workspace_id = m.workspace_id
   JOIN messenger_accounts a ON a.id = m.messenger_account_id
   LEFT JOIN (SELECT ${FILE_COLUMNS} FROM files) f ON f.id = m.file_id`,
);

/** What a chat event's body is built from. */
export interface ChatEventView {
  chat: ChatRow;
  account: AccountRow;
}

const CHAT_VIEWS = postgresOnly<{ chat: ChatRow; account: AccountRow }>(
  `SELECT row_to_json(c) AS chat, row_to_json(a) AS account
   FROM (${SELECT_CHAT} WHERE c.id = ANY(@ids::bigint[])) c JOIN messenger_accounts a ON a.id = c.messenger_account_id`,
);

export function createMessageEventViews(sql: SqlExecutor) {
  return {
    /** The views of messages `ids` by id; a message whose row, chat or account is gone has none. */
    async ofMessages(ids: readonly number[]): Promise<Map<number, MessageEventView>> {
      await flushReceived(sql);
      const views = new Map<number, MessageEventView>();
      if (sql.dialect === 'postgres') {
        if (ids.length === 0) return views;
        for (const row of await sql.all(VIEWS, { ids: [...new Set(ids)] })) {
          const reactions = row.reactions === null ? null : Object.fromEntries(Object.entries(row.reactions).map(([emoji, n]) => [emoji, String(n)]));
          views.set(row.message.id, { message: row.message, chat: row.chat, account: row.account, file: row.file ?? undefined, reactions });
        }
        return views;
      }
      for (const id of ids) {
        const message = await sql.get(MESSAGE_BY_ID, { id });
        if (message === undefined) continue;
        const chat = await sql.get(CHAT_BY_ID, { id: message.chat_id, workspaceId: message.workspace_id });
        const account = await sql.get(ACCOUNT_BY_ID, { id: message.messenger_account_id });
        if (chat === undefined || account === undefined) continue;
        const file = message.file_id === null ? undefined : await sql.get(FILE_BY_ID, { id: message.file_id });
        views.set(id, { message, chat, account, file, reactions: await reactionsOf(sql, message.id) });
      }
      return views;
    },
    /** The chats `ids` (of `workspaceId`s as given) with their accounts, by chat id. */
    async ofChats(chats: ReadonlyArray<{ id: number; workspaceId: number }>): Promise<Map<number, ChatEventView>> {
      const views = new Map<number, ChatEventView>();
      if (sql.dialect === 'postgres') {
        if (chats.length === 0) return views;
        const wanted = new Map(chats.map((c) => [c.id, c.workspaceId]));
        for (const row of await sql.all(CHAT_VIEWS, { ids: [...wanted.keys()] })) {
          if (wanted.get(row.chat.id) === row.chat.workspace_id) views.set(row.chat.id, row);
        }
        return views;
      }
      for (const { id, workspaceId } of chats) {
        const chat = await sql.get(CHAT_BY_ID, { id, workspaceId });
        const account = chat && (await sql.get(ACCOUNT_BY_ID, { id: chat.messenger_account_id }));
        if (chat !== undefined && account !== undefined) views.set(id, { chat, account });
      }
      return views;
    },
  };
}
