/**
 * What an event's webhook body is built from: for a message event the message, its chat, its account, its
 * file and its reactions; for a chat event the chat and its account. On PostgreSQL one call (migration 17) reads them
 * all, the message and the chat events of a transaction together: inside a group commit every read is a round
 * trip, and a batch of incoming messages builds a body per event (counted under the mixed load: a third of all
 * statements were these reads). The views of an incoming message and of a new chat are known without any read
 * (`knowReceived`, `knowChat`): the transaction wrote those rows and read their chat and account itself. On
 * SQLite, where a read is a function call, the stores' own reads.
 */
import { ACCOUNT_BY_ID, type AccountRow } from './account-store.js';
import { CHAT_BY_ID, type ChatRow } from './chat-store.js';
import { FILE_BY_ID, type FileRow } from './file-store.js';
import type { ReceivedMessage } from './deferred-writes.js';
import { KNOWN_EVENT_VIEWS } from './known-event-views.js';
import { flushReceived, MESSAGE_BY_ID, reactionsOf, receivedMessageRow, type MessageRow } from './message-store.js';
import { postgresOnly, type SqlExecutor } from './sql.js';

export interface MessageEventView {
  message: MessageRow;
  chat: ChatRow;
  account: AccountRow;
  file: FileRow | undefined;
  /** As `messages.reactionsOf` gives them: emoji -> count as a string; null when there are none. */
  reactions: Record<string, string> | null;
}

/** What a chat event's body is built from. */
export interface ChatEventView {
  chat: ChatRow;
  account: AccountRow;
}

export interface EventViews {
  /** By message id; a message whose row, chat or account is gone has none. */
  messages: Map<number, MessageEventView>;
  /** By chat id; a chat gone, or not of the workspace it was asked under, has none. */
  chats: Map<number, ChatEventView>;
}

interface MessageViewRow {
  message: Omit<MessageRow, 'file_uid' | 'reply_to_uid' | 'account_phone' | 'contact_phone'>;
  /** Null when the chat is gone or of another workspace: the message then has no view. */
  chat: ChatRow | null;
  account: AccountRow | null;
  file: FileRow | null;
  reply_to_uid: string | null;
  reactions: Record<string, number> | null;
}

// One call of migration 17's function, whose query runs on a generic plan each connection caches (as a statement
// of its own, PostgreSQL planned it at every call). row_to_json keeps every column under its name, as the
// single-row reads return them (BIGINTs are numbers in both: JSON numbers here, and the pool's INT8 parser there).
const VIEWS = postgresOnly<ViewsRow>(
  'SELECT message_views, chat_views FROM svc_event_views(@messageIds::bigint[], @chatIds::bigint[])',
);

type ViewsRow = { message_views: MessageViewRow[] | null; chat_views: ChatEventView[] | null };

/** The memo key of a read sent ahead (`sendEventViewsAhead`): the ids it asked for and its answer. */
const AHEAD = 'event-views-ahead';
interface Ahead {
  ids: ReadonlySet<number>;
  row: Promise<ViewsRow | undefined>;
}

/**
 * Sends the views of messages `messageIds` now, without waiting for them, inside a PostgreSQL transaction (a no-op
 * elsewhere): for a caller that has just sent the last statement that changes those messages, so the read rides
 * in that statement's round trip instead of one of its own at the end of the transaction. The transaction's next
 * `of` asking for some of them (and no chats) takes its answer; whoever calls this must not change those
 * messages, their chats, accounts, files or reactions after it (the dispatcher's completion does not).
 */
export function sendEventViewsAhead(sql: SqlExecutor, messageIds: readonly number[]): void {
  if (sql.dialect !== 'postgres' || sql.memo === undefined || messageIds.length === 0) return;
  const ids = [...new Set(messageIds)];
  const row = sql.get(VIEWS, { messageIds: ids, chatIds: [] });
  // Awaited by `of`; a failure unread there fails the transaction all the same (its later statements fail).
  row.catch(() => undefined);
  sql.memo.set(AHEAD, { ids: new Set(ids), row } satisfies Ahead);
}

/** What a transaction has just written or read of an incoming message: enough to know its view whole. */
export interface ReceivedView {
  message: ReceivedMessage;
  chat: ChatRow;
  account: AccountRow;
  file: FileRow | undefined;
  replyToUid: string | null;
}

/** The views known so far in the transaction whose memo is `memo` (see known-event-views.ts). */
function knownViews(memo: Map<string, unknown>): EventViews {
  let known = memo.get(KNOWN_EVENT_VIEWS) as EventViews | undefined;
  if (known === undefined) memo.set(KNOWN_EVENT_VIEWS, (known = { messages: new Map(), chats: new Map() }));
  return known;
}

const reactionsAsText = (reactions: Record<string, number> | null): Record<string, string> | null =>
  reactions === null ? null : Object.fromEntries(Object.entries(reactions).map(([emoji, n]) => [emoji, String(n)]));

export function createMessageEventViews(sql: SqlExecutor) {
  return {
    /**
     * An incoming message this transaction inserts, with the rows it read for it: on PostgreSQL its view is then
     * known without reading it back (a round trip at the end of every group commit of incoming messages, and
     * the read their events cost most; a no-op elsewhere). A new message has no reactions.
     */
    knowReceived({ message, chat, account, file, replyToUid }: ReceivedView): void {
      if (sql.dialect !== 'postgres' || sql.memo === undefined) return;
      const row = receivedMessageRow(message, { fileUid: file?.uid ?? null, replyToUid, accountPhone: account.phone, contactPhone: chat.contact_phone });
      knownViews(sql.memo).messages.set(message.id, { message: row, chat, account, file, reactions: null });
    },
    /** A chat this transaction created, with its account: on PostgreSQL its view is known as `knowReceived`'s are. */
    knowChat(view: ChatEventView): void {
      if (sql.dialect !== 'postgres' || sql.memo === undefined || view.chat.messenger_account_id !== view.account.id) return;
      knownViews(sql.memo).chats.set(view.chat.id, view);
    },
    /** The views of messages `messageIds` and of chats `chats` (each under the workspace it is asked for). */
    async of(messageIds: readonly number[], chats: ReadonlyArray<{ id: number; workspaceId: number }>): Promise<EventViews> {
      await flushReceived(sql);
      const views: EventViews = { messages: new Map(), chats: new Map() };
      if (messageIds.length === 0 && chats.length === 0) return views;
      const chatWorkspace = new Map(chats.map((c) => [c.id, c.workspaceId]));
      if (sql.dialect === 'postgres') {
        const known = sql.memo?.get(KNOWN_EVENT_VIEWS) as EventViews | undefined;
        const unknownMessages = messageIds.filter((id) => {
          const view = known?.messages.get(id);
          if (view !== undefined) views.messages.set(id, view);
          return view === undefined;
        });
        // A known chat asked for under another workspace is left out, as the read below leaves it out.
        const unknownChats = [...chatWorkspace.keys()].filter((id) => {
          const view = known?.chats.get(id);
          if (view !== undefined && chatWorkspace.get(id) === view.chat.workspace_id) views.chats.set(id, view);
          return view === undefined;
        });
        if (unknownMessages.length === 0 && unknownChats.length === 0) return views;
        // A read sent ahead answers once, and only for messages it asked for.
        const ahead = sql.memo?.get(AHEAD) as Ahead | undefined;
        if (ahead !== undefined) sql.memo!.delete(AHEAD);
        const answered = ahead !== undefined && unknownChats.length === 0 && unknownMessages.every((id) => ahead.ids.has(id));
        const row = (answered ? await ahead.row : await sql.get(VIEWS, { messageIds: [...new Set(unknownMessages)], chatIds: unknownChats }))!;
        for (const { message, chat, account, file, reply_to_uid: replyToUid, reactions } of row.message_views ?? []) {
          if (chat === null || account === null) continue;
          views.messages.set(message.id, {
            // The columns SELECT_MESSAGE adds to the row.
            message: { ...message, file_uid: file?.uid ?? null, reply_to_uid: replyToUid, account_phone: account.phone, contact_phone: chat.contact_phone },
            chat,
            account,
            file: file ?? undefined,
            reactions: reactionsAsText(reactions),
          });
        }
        for (const view of row.chat_views ?? []) {
          if (chatWorkspace.get(view.chat.id) === view.chat.workspace_id) views.chats.set(view.chat.id, view);
        }
        return views;
      }
      for (const id of messageIds) {
        const message = await sql.get(MESSAGE_BY_ID, { id });
        if (message === undefined) continue;
        const chat = await sql.get(CHAT_BY_ID, { id: message.chat_id, workspaceId: message.workspace_id });
        const account = await sql.get(ACCOUNT_BY_ID, { id: message.messenger_account_id });
        if (chat === undefined || account === undefined) continue;
        const file = message.file_id === null ? undefined : await sql.get(FILE_BY_ID, { id: message.file_id });
        views.messages.set(id, { message, chat, account, file, reactions: await reactionsOf(sql, message.id) });
      }
      for (const [id, workspaceId] of chatWorkspace) {
        const chat = await sql.get(CHAT_BY_ID, { id, workspaceId });
        const account = chat && (await sql.get(ACCOUNT_BY_ID, { id: chat.messenger_account_id }));
        if (chat !== undefined && account !== undefined) views.chats.set(id, { chat, account });
      }
      return views;
    },
  };
}
