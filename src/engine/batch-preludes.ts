/**
 * The preludes of the group commits of sends and incoming messages (`BatchPrelude`, src/store/sql-database.ts):
 * before the writes of a batch run, the rows each of them would read with a round trip of its own are read for
 * the whole batch, one statement each, and left in the transaction's memo under the names the writes read
 * (`memo-keys.ts`). A batch then costs the same few statements for 8 workspaces as for one. PostgreSQL runs
 * them; rows they do not find (a new chat) the writes read for themselves, as without a prelude.
 */
import type { SqlExecutor } from '../store/sql.js';
import { createBatchReadStore } from '../store/batch-read-store.js';
import { hasNul } from '../wire/nul-text.js';
import { EVENT_TYPES } from '../wire/webhook-events.js';
import { memoKeys } from './memo-keys.js';

/** A send's share: its workspace, and the contact when the workspace's default sender sends it. */
export interface SendPreludeArg {
  workspaceId: number;
  contactPhone?: string;
}

/** An incoming message's share: the account it arrived at and the contact it came from. */
export interface IncomingPreludeArg {
  accountPhone: string;
  contactPhone: string;
}

// A value the store would refuse (NUL) or that is no text at all is left to its own write, which is refused
// alone; in a prelude it would fail the statement, and with it the whole batch.
const usable = (text: unknown): text is string => typeof text === 'string' && !hasNul(text);
const distinct = <T>(values: Iterable<T>): T[] => [...new Set(values)];

/** Locks the batch's workspaces (ascending id), reads their default senders and the chats the sends go to. */
export async function prepareSends(tx: SqlExecutor, args: SendPreludeArg[]): Promise<void> {
  const memo = tx.memo;
  if (memo === undefined) return;
  const reads = createBatchReadStore(tx);
  const workspaceIds = distinct(args.map((arg) => arg.workspaceId));
  for (const row of await reads.lockWorkspaces(workspaceIds)) memo.set(memoKeys.workspaceLock(row.id), row);
  const toContacts = args.filter((arg) => usable(arg.contactPhone));
  if (toContacts.length === 0) return;
  const senders = await reads.defaultSenders(distinct(toContacts.map((arg) => arg.workspaceId)));
  const senderOf = new Map(senders.map((account) => [account.workspace_id, account]));
  for (const account of senders) memo.set(memoKeys.defaultSender(account.workspace_id), account);
  const pairs = toContacts.flatMap((arg) => {
    const sender = senderOf.get(arg.workspaceId);
    return sender === undefined ? [] : [{ accountId: sender.id, contactPhone: arg.contactPhone! }];
  });
  await rememberChats(tx, pairs);
}

/** Reads the batch's accounts, the chats of their contacts and which events their workspaces subscribe to. */
export async function prepareIncoming(tx: SqlExecutor, args: IncomingPreludeArg[]): Promise<void> {
  const memo = tx.memo;
  if (memo === undefined) return;
  const reads = createBatchReadStore(tx);
  const accounts = await reads.accountsByPhone(distinct(args.map((arg) => arg.accountPhone).filter(usable)));
  const accountOf = new Map(accounts.map((account) => [account.phone, account]));
  for (const account of accounts) memo.set(memoKeys.accountByPhone(account.phone), account);
  const pairs = args.flatMap((arg) => {
    const account = accountOf.get(arg.accountPhone);
    return account === undefined || !usable(arg.contactPhone) ? [] : [{ accountId: account.id, contactPhone: arg.contactPhone }];
  });
  await rememberChats(tx, pairs);
  const workspaceIds = distinct(accounts.map((account) => account.workspace_id));
  if (workspaceIds.length === 0) return;
  const subscribed = new Set((await reads.subscribedEvents(workspaceIds)).map((row) => `${row.workspace_id} ${row.event_type}`));
  for (const workspaceId of workspaceIds) {
    for (const type of EVENT_TYPES) memo.set(memoKeys.wants(workspaceId, type), { yes: subscribed.has(`${workspaceId} ${type}`) });
  }
}

async function rememberChats(tx: SqlExecutor, pairs: Array<{ accountId: number; contactPhone: string }>): Promise<void> {
  if (pairs.length === 0) return;
  const unique = [...new Map(pairs.map((pair) => [memoKeys.chat(pair.accountId, pair.contactPhone), pair])).values()];
  for (const chat of await createBatchReadStore(tx).chatsByPair(unique)) {
    tx.memo!.set(memoKeys.chat(chat.messenger_account_id, chat.contact_phone), chat);
  }
}
