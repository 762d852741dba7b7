/**
 * The reads of a group commit's preludes (`BatchPrelude` in sql-database.ts): what every send or incoming
 * message of a batch would read with a statement of its own, read for the whole batch in one statement.
 * PostgreSQL only (arrays as parameters): on SQLite those reads are answered from memory and need no batching.
 * Each part returns what the single-row read it stands for would (same columns, same order of choice); rows
 * of several tables come back as JSON (`to_jsonb`), whose numbers and strings read as the row's would (these
 * tables hold no binary columns, and every number fits a double).
 */
import { allOnGenericPlan, postgresOnly, type SqlExecutor } from './sql.js';
import type { AccountRow } from './account-store.js';
import { CHAT_ROW_JSON, type ChatRow } from './chat-store.js';
import type { WorkspaceRow } from './workspace-store.js';
import { subscribedEventsSql } from './webhooks/subscription-store.js';

// The chat of account `a` and contact `contact_phone` as chat-store's SELECT_CHAT reads it, or null.
const CHAT_OF_PAIR = `(SELECT ${CHAT_ROW_JSON} FROM chats c
   WHERE c.messenger_account_id = a.id AND c.contact_phone = p.contact_phone)`;

/**
 * Sends: locks the workspaces (ORDER BY before the lock: ascending id, as batches of sends lock them one by
 * one) with the event types they subscribe to, and for each (workspace, contact) sent to through the default
 * sender, that sender (account-store's DEFAULT_SENDER) and the chat, which it creates when there is none:
 * named as the batch's first send to the contact asks (its chat_name, or the phone), and left out when that
 * name is taken or the chat exists after all (a chat committed while the lock was awaited is not in the
 * statement's snapshot, but the insert's unique check sees it). The lock is taken first: the insert reads
 * from the locked rows.
 */
const PREPARE_SENDS = postgresOnly<{
  workspace: WorkspaceRow; sender: AccountRow | null; contact_phone: string | null; chat: ChatRow | null; created: Omit<ChatRow, 'account_phone'> | null;
  subscribed_events: string[];
}>(
  `WITH locked AS MATERIALIZED (SELECT * FROM workspaces WHERE id = ANY(@ids::bigint[]) ORDER BY id FOR NO KEY UPDATE),
   p AS (SELECT DISTINCT ON (workspace_id, contact_phone) workspace_id, contact_phone, chat_name
     FROM unnest(@workspaceIds::bigint[], @contactPhones::text[], @chatNames::text[]) WITH ORDINALITY AS p(workspace_id, contact_phone, chat_name, n)
     ORDER BY workspace_id, contact_phone, n),
   senders AS (SELECT DISTINCT ON (workspace_id) * FROM messenger_accounts
     WHERE workspace_id IN (SELECT workspace_id FROM p) AND status = 'connected'
     ORDER BY workspace_id, connected_at DESC NULLS LAST, id DESC),
   found AS MATERIALIZED (SELECT l AS workspace, a AS sender, p.contact_phone, p.chat_name, ${CHAT_OF_PAIR} AS chat
     FROM locked l LEFT JOIN p ON p.workspace_id = l.id LEFT JOIN senders a ON a.workspace_id = l.id),
   created AS (INSERT INTO chats (workspace_id, messenger_account_id, contact_phone, name, started_by, created_at)
     SELECT (sender).workspace_id, (sender).id, contact_phone, COALESCE(chat_name, contact_phone), 'workspace', @now FROM found
     WHERE chat IS NULL AND (sender).id IS NOT NULL AND contact_phone IS NOT NULL
     ON CONFLICT DO NOTHING RETURNING *)
   SELECT to_jsonb(f.workspace) AS workspace, CASE WHEN (f.sender).id IS NULL THEN NULL ELSE to_jsonb(f.sender) END AS sender,
     f.contact_phone, f.chat,
     (SELECT to_jsonb(c) FROM created c WHERE c.messenger_account_id = (f.sender).id AND c.contact_phone = f.contact_phone) AS created,
     ${subscribedEventsSql('(f.workspace).id')} AS subscribed_events
   FROM found f ORDER BY (f.workspace).id`,
);

/**
 * Incoming messages: for each (account phone, contact phone), the account, the chat, and the event types some
 * enabled subscription of the account's workspace names; and, on the first row, `count` new message ids (from
 * the identity sequence) for the batch's messages, written later with them. A missing chat is created, as for
 * sends, under the name given with the pair's first message (none when that is null, or the name is taken);
 * without the workspace's lock, which only the choice of a "name (N)" needs: the unique indexes settle races.
 */
const PREPARE_INCOMING = postgresOnly<{
  account: AccountRow; contact_phone: string; chat: ChatRow | null; created: Omit<ChatRow, 'account_phone'> | null;
  subscribed_events: string[]; message_ids: string[] | null;
}>(
  `WITH p AS (SELECT DISTINCT ON (account_phone, contact_phone) account_phone, contact_phone, chat_name
       FROM unnest(@accountPhones::text[], @contactPhones::text[], @chatNames::text[]) WITH ORDINALITY AS p(account_phone, contact_phone, chat_name, n)
       ORDER BY account_phone, contact_phone, n),
     found AS MATERIALIZED (SELECT a AS account, p.contact_phone, p.chat_name, ${CHAT_OF_PAIR} AS chat
       FROM p JOIN messenger_accounts a ON a.phone = p.account_phone WHERE a.phone = ANY(@accountPhones::text[])),
     created AS (INSERT INTO chats (workspace_id, messenger_account_id, contact_phone, name, started_by, created_at)
       SELECT (account).workspace_id, (account).id, contact_phone, chat_name, 'contact', @now FROM found
       WHERE chat IS NULL AND chat_name IS NOT NULL
       ON CONFLICT DO NOTHING RETURNING *)
   SELECT to_jsonb(f.account) AS account, f.contact_phone, f.chat,
     (SELECT to_jsonb(c) FROM created c WHERE c.messenger_account_id = (f.account).id AND c.contact_phone = f.contact_phone) AS created,
     ${subscribedEventsSql('(f.account).workspace_id')} AS subscribed_events,
     CASE WHEN row_number() OVER () = 1 THEN
       ARRAY(SELECT nextval(pg_get_serial_sequence('messages', 'id')) FROM generate_series(1, @count::int)) END AS message_ids
   FROM found f`,
);

export function createBatchReadStore(sql: SqlExecutor) {
  return {
    /**
     * Locks `workspaceIds`' rows (`FOR NO KEY UPDATE`, ascending id) and returns them, with the default sender and the
     * chat of each (workspace, contact) pair given, found or `created`: one row per pair, or per workspace without one.
     */
    async prepareSends(workspaceIds: readonly number[], pairs: ReadonlyArray<{ workspaceId: number; contactPhone: string; chatName: string | null }>, now: number) {
      // On its generic plan (`allOnGenericPlan`): left to itself PostgreSQL planned it at every call, and planning
      // took 0.46 of its 0.65 ms (pg_stat_statements, wrk -c32, one workspace: 582 plans in 579 calls); the
      // generic plan runs as fast (0.18 ms).
      return allOnGenericPlan(sql, PREPARE_SENDS, {
        ids: workspaceIds, workspaceIds: pairs.map((p) => p.workspaceId), contactPhones: pairs.map((p) => p.contactPhone),
        chatNames: pairs.map((p) => p.chatName), now,
      });
    },
    /** One row per (account, contact) pair whose account exists, its chat found or `created`; `messageIds` holds `count` new message ids. */
    async prepareIncoming(pairs: ReadonlyArray<{ accountPhone: string; contactPhone: string; chatName: string | null }>, count: number, now: number) {
      // On its generic plan, as the sends' prelude: with a message or two a batch (the mixed load) PostgreSQL planned
      // it at most calls (330 plans in 429 calls, 0.43 ms each against 0.53 of execution). The accounts are also
      // asked for by the phones themselves (`= ANY`), so the generic plan reads them by index instead of hashing a
      // scan of the table (2,000 accounts: 0.30 ms a call against 0.55-0.61 planned each time).
      const rows = await allOnGenericPlan(sql, PREPARE_INCOMING, {
        accountPhones: pairs.map((p) => p.accountPhone), contactPhones: pairs.map((p) => p.contactPhone), chatNames: pairs.map((p) => p.chatName),
        count, now,
      });
      // bigint[] arrives as strings (only scalar BIGINTs are read as numbers).
      const messageIds = (rows.find((row) => row.message_ids !== null)?.message_ids ?? []).map(Number);
      return { rows, messageIds };
    },
  };
}
