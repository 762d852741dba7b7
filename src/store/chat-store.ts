import { postgresOnly, query, type SqlExecutor } from './sql.js';
import { forgetKnownViews } from './known-event-views.js';

export interface ChatRow {
  id: number;
  workspace_id: number;
  messenger_account_id: number;
  contact_phone: string;
  name: string;
  is_group: number;
  started_by: 'workspace' | 'contact';
  responsible_email: string | null;
  responsible_name: string | null;
  created_at: number;
  account_phone: string;
}

export const SELECT_CHAT = `SELECT c.*, a.phone AS account_phone FROM chats c
  JOIN messenger_accounts a ON a.id = c.messenger_account_id`;
/** PostgreSQL: the row SELECT_CHAT reads, as JSON, of a chat `c` and its account `a`. */
export const CHAT_ROW_JSON = `to_jsonb(c) || jsonb_build_object('account_phone', a.phone)`;

export const CHAT_BY_ID = query<ChatRow>(`${SELECT_CHAT} WHERE c.id = @id AND c.workspace_id = @workspaceId`);
const BY_NAME = query<ChatRow>(`${SELECT_CHAT} WHERE c.workspace_id = @workspaceId AND c.name = @name`);
// Read by every send to a phone; a chat, once made, changes only when renamed or reassigned.
const BY_PAIR = query<ChatRow>(`${SELECT_CHAT} WHERE c.messenger_account_id = @accountId AND c.contact_phone = @contactPhone`, {
  cachedUntilWritten: ['chats', 'messenger_accounts'],
});
const NAME_TAKEN = query<{ one: number }>('SELECT 1 AS one FROM chats WHERE workspace_id = @workspaceId AND name = @name');
// "base (" <= name < "base )" is a range of the (workspace_id, name) index, since ")" sorts right after "(".
// PostgreSQL compares in code-point order ("C", as SQLite does) so the range holds whatever the collation,
// and casts only an all-digit suffix (SQLite's CAST reads "12abc" as 12; PostgreSQL's would fail).
const HIGHEST_SUFFIX = query<{ n: number | null }>({
  sqlite: `SELECT MAX(CAST(substr(name, length(@prefix) + 1, length(name) - length(@prefix) - 1) AS INTEGER)) AS n
     FROM chats WHERE workspace_id = @workspaceId AND name >= @prefix AND name < @end AND name LIKE '%)'`,
  postgres: `SELECT MAX(CASE WHEN suffix ~ '^[0-9]{1,18}$' THEN CAST(suffix AS BIGINT) END) AS n
     FROM (SELECT substr(name, length(@prefix) + 1, length(name) - length(@prefix) - 1) AS suffix
       FROM chats WHERE workspace_id = @workspaceId AND name COLLATE "C" >= @prefix AND name COLLATE "C" < @end
         AND name LIKE '%)') AS named`,
});
// A new chat in one statement: nothing when the account has a chat with the contact or the workspace one by that
// name (the caller tells which), the whole row otherwise, so the chat and its events need no read back.
const INSERT_UNLESS_TAKEN = query<Omit<ChatRow, 'account_phone'>>(
  `INSERT INTO chats (workspace_id, messenger_account_id, contact_phone, name, started_by, created_at)
   VALUES (@workspaceId, @accountId, @contactPhone, @name, @startedBy, @now)
   ON CONFLICT DO NOTHING
   RETURNING *`,
);
// A page of chats with each chat's labels in name order, in one statement: on PostgreSQL a second statement
// for the labels was a second round trip for every page read, and could see another moment than the first.
// The dialects differ only in how the labels come: a JSON array (SQLite), an array (PostgreSQL).
const labelNamesOf = (chatId: string): string =>
  `SELECT l.name FROM chat_labels cl JOIN labels l ON l.id = cl.label_id WHERE cl.chat_id = ${chatId} ORDER BY l.name`;
const pageWithLabelsSql = (labels: string): string => `SELECT c.*, a.phone AS account_phone, ${labels} AS labels
  FROM chats c JOIN messenger_accounts a ON a.id = c.messenger_account_id
  WHERE c.workspace_id = @workspaceId ORDER BY c.id LIMIT @limit OFFSET @offset`;
const PAGE_WITH_LABELS = query<ChatRow & { labels: string[] | string }>({
  sqlite: pageWithLabelsSql(`(SELECT json_group_array(name) FROM (${labelNamesOf('c.id')}))`),
  postgres: pageWithLabelsSql(`ARRAY(${labelNamesOf('c.id')})`),
});
const UPDATE = query(
  `UPDATE chats SET name = @name, responsible_email = @responsible_email, responsible_name = @responsible_name
   WHERE id = @id`,
);
const LABEL_ID = query<{ id: number }>('SELECT id FROM labels WHERE workspace_id = @workspaceId AND name = @name');
const INSERT_LABEL = query<{ id: number }>(
  'INSERT INTO labels (workspace_id, name) VALUES (@workspaceId, @name) ON CONFLICT (workspace_id, name) DO NOTHING RETURNING id',
);
const ATTACH_LABEL = query('INSERT INTO chat_labels (chat_id, label_id) VALUES (@chatId, @labelId) ON CONFLICT DO NOTHING');
const LABELS_OF = query<{ name: string }>(labelNamesOf('@chatId'));
// Chats a batch's prelude made for writes that failed: gone unless something refers to them after all.
const REMOVE_UNUSED = postgresOnly(
  `DELETE FROM chats c WHERE c.id = ANY(@ids::bigint[])
     AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.chat_id = c.id) AND NOT EXISTS (SELECT 1 FROM chat_labels l WHERE l.chat_id = c.id)`,
);

/** Removes the chats `ids` that no message or label refers to (PostgreSQL: only its preludes make chats ahead). */
export async function removeUnusedChats(sql: SqlExecutor, ids: readonly number[]): Promise<void> {
  if (ids.length > 0) await sql.run(REMOVE_UNUSED, { ids });
}

/** Chats and their labels. Names are unique per workspace (enforced by the schema). */
export function createChatStore(sql: SqlExecutor) {
  return {
    byId: (workspaceId: number, id: number): Promise<ChatRow | undefined> => sql.get(CHAT_BY_ID, { id, workspaceId }),
    byName: (workspaceId: number, name: string): Promise<ChatRow | undefined> => sql.get(BY_NAME, { workspaceId, name }),
    byPair: (accountId: number, contactPhone: string): Promise<ChatRow | undefined> => sql.get(BY_PAIR, { accountId, contactPhone }),
    nameTaken: async (workspaceId: number, name: string): Promise<boolean> => (await sql.get(NAME_TAKEN, { workspaceId, name })) !== undefined,
    /** The largest N among this workspace's chats named "base (N)", or 0. */
    highestNameSuffix: async (workspaceId: number, base: string): Promise<number> =>
      (await sql.get(HIGHEST_SUFFIX, { workspaceId, prefix: `${base} (`, end: `${base} )` }))?.n ?? 0,
    /**
     * Creates the chat of `account` and `contactPhone` named `name`; undefined when that chat exists already or
     * the workspace has a chat by that name.
     */
    insertUnlessTaken: async (
      c: { account: { id: number; workspace_id: number; phone: string }; contactPhone: string; name: string; startedBy: ChatRow['started_by']; now: number },
    ): Promise<ChatRow | undefined> => {
      const row = await sql.get(INSERT_UNLESS_TAKEN, {
        workspaceId: c.account.workspace_id, accountId: c.account.id, contactPhone: c.contactPhone, name: c.name, startedBy: c.startedBy, now: c.now,
      });
      return row === undefined ? undefined : { ...row, account_phone: c.account.phone };
    },
    /** A page of the workspace's chats (by id), each with its labels in name order. */
    pageWithLabels: async (workspaceId: number, limit: number, offset: number): Promise<Array<ChatRow & { labels: string[] }>> =>
      (await sql.all(PAGE_WITH_LABELS, { workspaceId, limit, offset })).map((row) => ({
        ...row,
        // SQLite answers the labels as a JSON array, PostgreSQL as an array.
        labels: typeof row.labels === 'string' ? (JSON.parse(row.labels) as string[]) : row.labels,
      })),
    update: async (c: { id: number; name: string; responsible_email: string | null; responsible_name: string | null }): Promise<void> =>
      (forgetKnownViews(sql), void (await sql.run(UPDATE, { ...c }))),
    /** Attaches a label to a chat, creating the label when the workspace has none by that name. */
    async addLabel(workspaceId: number, chatId: number, name: string): Promise<void> {
      const labelId =
        (await sql.get(LABEL_ID, { workspaceId, name }))?.id ??
        (await sql.get(INSERT_LABEL, { workspaceId, name }))?.id ??
        // Created by a concurrent writer between the two statements.
        (await sql.get(LABEL_ID, { workspaceId, name }))!.id;
      await sql.run(ATTACH_LABEL, { chatId, labelId });
    },
    labelsOf: async (chatId: number): Promise<string[]> => (await sql.all(LABELS_OF, { chatId })).map((row) => row.name),
  };
}
