/**
 * The reads of a group commit's preludes (`BatchPrelude` in sql-database.ts): what every send or incoming
 * message of a batch would read with a statement of its own, read for the whole batch in one statement each.
 * PostgreSQL only (arrays as parameters): on SQLite those reads are answered from memory and need no batching.
 * Each statement returns what the single-row read it stands for would (same columns, same order of choice).
 */
import { postgresOnly, type SqlExecutor } from './sql.js';
import type { AccountRow } from './account-store.js';
import type { ChatRow } from './chat-store.js';
import type { WorkspaceRow } from './workspace-store.js';

// ORDER BY before the lock: the rows are locked in ascending id, as batches of sends lock them one by one.
const LOCK_WORKSPACES = postgresOnly<WorkspaceRow>('SELECT * FROM workspaces WHERE id = ANY(@ids::bigint[]) ORDER BY id FOR UPDATE');
// The default sender of each workspace: account-store's DEFAULT_SENDER, per workspace.
const DEFAULT_SENDERS = postgresOnly<AccountRow>(
  `SELECT DISTINCT ON (workspace_id) * FROM messenger_accounts WHERE workspace_id = ANY(@ids::bigint[]) AND status = 'connected'
   ORDER BY workspace_id, connected_at DESC NULLS LAST, id DESC`,
);
const ACCOUNTS_BY_PHONE = postgresOnly<AccountRow>('SELECT * FROM messenger_accounts WHERE phone = ANY(@phones::text[])');
const CHATS_BY_PAIR = postgresOnly<ChatRow>(
  `SELECT c.*, a.phone AS account_phone FROM unnest(@accountIds::bigint[], @contactPhones::text[]) AS p(account_id, contact_phone)
   JOIN chats c ON c.messenger_account_id = p.account_id AND c.contact_phone = p.contact_phone
   JOIN messenger_accounts a ON a.id = c.messenger_account_id`,
);
const SUBSCRIBED_EVENTS = postgresOnly<{ workspace_id: number; event_type: string }>(
  'SELECT DISTINCT workspace_id, event_type FROM webhook_subscriptions WHERE workspace_id = ANY(@ids::bigint[]) AND enabled = 1',
);

export function createBatchReadStore(sql: SqlExecutor) {
  return {
    /** Locks these workspaces' rows (`FOR UPDATE`), in ascending id, and returns them. */
    lockWorkspaces: (ids: readonly number[]) => sql.all(LOCK_WORKSPACES, { ids }),
    /** The default sender (newest connected account) of each of these workspaces that has one. */
    defaultSenders: (workspaceIds: readonly number[]) => sql.all(DEFAULT_SENDERS, { ids: workspaceIds }),
    accountsByPhone: (phones: readonly string[]) => sql.all(ACCOUNTS_BY_PHONE, { phones }),
    /** The chats of these (account, contact phone) pairs that exist (pairs may repeat). */
    chatsByPair: (pairs: ReadonlyArray<{ accountId: number; contactPhone: string }>) =>
      sql.all(CHATS_BY_PAIR, { accountIds: pairs.map((p) => p.accountId), contactPhones: pairs.map((p) => p.contactPhone) }),
    /** The event types some enabled subscription of each of these workspaces names. */
    subscribedEvents: (workspaceIds: readonly number[]) => sql.all(SUBSCRIBED_EVENTS, { ids: workspaceIds }),
  };
}
