/**
 * The preludes of the group commits of sends and incoming messages (`BatchPrelude`, src/store/sql-database.ts):
 * before the writes of a batch run, the rows each of them would read with a round trip of its own are read for
 * the whole batch in one statement and left in the transaction's memo under the names the writes read
 * (`memo-keys.ts`). A batch then costs the same few statements for 8 workspaces as for one. PostgreSQL runs
 * them. A chat they do not find is noted as such, and its write goes straight to the insert, which finds a
 * chat created since (findOrCreateChat).
 */
import type { SqlExecutor } from '../store/sql.js';
import { createBatchReadStore } from '../store/batch-read-store.js';
import { hasNul } from '../wire/nul-text.js';
import { memoKeys, noteSubscribedEvents } from './memo-keys.js';

/**
 * A send's share: its workspace, and the contact when the workspace's default sender sends it, with the chat
 * name it asks for (already checked: `chatNameOf`) should the chat be new.
 */
export interface SendPreludeArg {
  workspaceId: number;
  contactPhone?: string;
  chatName?: string | undefined;
  /** When the send was asked for: the time a chat made for it is created at. */
  now: number;
}

/**
 * An incoming message's share: the account it arrived at, the contact it came from and the name a new chat
 * with it takes (null: none is made ahead, the name given is refused), and when it arrived.
 */
export interface IncomingPreludeArg {
  accountPhone: string;
  contactPhone: string;
  chatName: string | null;
  now: number;
}

// A value the store would refuse (NUL) or that is no text at all is left to its own write, which is refused
// alone; in a prelude it would fail the statement, and with it the whole batch.
const usable = (text: unknown): text is string => typeof text === 'string' && !hasNul(text);

/**
 * Locks the batch's workspaces (ascending id) and reads which events they subscribe to, their default senders
 * and the chats the sends go to, and creates those that do not exist yet in the same statement: the first send
 * to take one (findOrCreateChat) tells its events, and one no send takes (its send failed) is removed before
 * the COMMIT (`DeferredWrites`).
 */
export async function prepareSends(tx: SqlExecutor, args: SendPreludeArg[]): Promise<void> {
  const memo = tx.memo;
  if (memo === undefined) return;
  const workspaceIds = [...new Set(args.map((arg) => arg.workspaceId))];
  const pairs = args.flatMap((arg) =>
    usable(arg.contactPhone) && (arg.chatName === undefined || usable(arg.chatName))
      ? [{ workspaceId: arg.workspaceId, contactPhone: arg.contactPhone, chatName: arg.chatName ?? null }]
      : [],
  );
  const created: number[] = [];
  const now = Math.max(...args.map((arg) => arg.now));
  for (const row of await createBatchReadStore(tx).prepareSends(workspaceIds, pairs, now)) {
    memo.set(memoKeys.workspaceLock(row.workspace.id), row.workspace);
    noteSubscribedEvents(memo, row.workspace.id, row.subscribed_events);
    if (row.sender === null) continue;
    memo.set(memoKeys.defaultSender(row.sender.workspace_id), row.sender);
    const chat = row.chat ?? (row.created === null ? null : { ...row.created, account_phone: row.sender.phone });
    if (chat !== null) memo.set(memoKeys.chat(row.sender.id, chat.contact_phone), chat);
    if (row.created !== null) created.push(row.created.id);
  }
  tx.deferred?.offerChats(created);
}

/**
 * Reads the batch's accounts, the chats of their contacts (creating those that do not exist yet, as for sends)
 * and which events their workspaces subscribe to.
 */
export async function prepareIncoming(tx: SqlExecutor, args: IncomingPreludeArg[]): Promise<void> {
  const memo = tx.memo;
  if (memo === undefined) return;
  const pairs = args
    .filter((arg) => usable(arg.accountPhone) && usable(arg.contactPhone))
    .map((arg) => ({ ...arg, chatName: arg.chatName !== null && usable(arg.chatName) ? arg.chatName : null }));
  if (pairs.length === 0) return;
  const now = Math.max(...args.map((arg) => arg.now));
  const { rows, messageIds } = await createBatchReadStore(tx).prepareIncoming(pairs, args.length, now);
  // Ids for the batch's messages, so they are written in one statement at the COMMIT (`DeferredWrites`).
  tx.deferred?.provideMessageIds(messageIds);
  const created: number[] = [];
  for (const { account, contact_phone: contactPhone, chat: found, created: made, subscribed_events: subscribed } of rows) {
    memo.set(memoKeys.accountByPhone(account.phone), account);
    const chat = found ?? (made === null ? null : { ...made, account_phone: account.phone });
    if (chat !== null) memo.set(memoKeys.chat(account.id, contactPhone), chat);
    else memo.set(memoKeys.noChat(account.id, contactPhone), true);
    if (made !== null) created.push(made.id);
    noteSubscribedEvents(memo, account.workspace_id, subscribed);
  }
  tx.deferred?.offerChats(created);
}
