import type { Db } from './database.js';

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

const SELECT_CHAT = `SELECT c.*, a.phone AS account_phone FROM chats c
  JOIN messenger_accounts a ON a.id = c.messenger_account_id`;

/** Chats and their labels. Names are unique per workspace (enforced by the schema). */
export function createChatStore(db: Db) {
  const byId = db.prepare<[number, number], ChatRow>(`${SELECT_CHAT} WHERE c.id = ? AND c.workspace_id = ?`);
  const byName = db.prepare<[number, string], ChatRow>(`${SELECT_CHAT} WHERE c.workspace_id = ? AND c.name = ?`);
  const byPair = db.prepare<[number, string], ChatRow>(
    `${SELECT_CHAT} WHERE c.messenger_account_id = ? AND c.contact_phone = ?`,
  );
  const nameTaken = db.prepare<[number, string], { one: number }>(
    'SELECT 1 AS one FROM chats WHERE workspace_id = ? AND name = ?',
  );
  // "base (" <= name < "base )" is a range of the (workspace_id, name) index, since ")" sorts right after "(".
  const highestSuffix = db.prepare<{ workspaceId: number; prefix: string; end: string }, { n: number | null }>(
    `SELECT MAX(CAST(substr(name, length(@prefix) + 1, length(name) - length(@prefix) - 1) AS INTEGER)) AS n
       FROM chats WHERE workspace_id = @workspaceId AND name >= @prefix AND name < @end AND name LIKE '%)'`,
  );
  const insert = db.prepare(
    `INSERT INTO chats (workspace_id, messenger_account_id, contact_phone, name, started_by, created_at)
     VALUES (@workspaceId, @accountId, @contactPhone, @name, @startedBy, @now)`,
  );
  const page = db.prepare<[number, number, number], ChatRow>(
    `${SELECT_CHAT} WHERE c.workspace_id = ? ORDER BY c.id LIMIT ? OFFSET ?`,
  );
  const update = db.prepare(
    `UPDATE chats SET name = @name, responsible_email = @responsible_email, responsible_name = @responsible_name
     WHERE id = @id`,
  );
  const labelId = db.prepare<[number, string], { id: number }>(
    'SELECT id FROM labels WHERE workspace_id = ? AND name = ?',
  );
  const insertLabel = db.prepare('INSERT INTO labels (workspace_id, name) VALUES (?, ?)');
  const attachLabel = db.prepare('INSERT OR IGNORE INTO chat_labels (chat_id, label_id) VALUES (?, ?)');
  const labelsOf = db.prepare<[number], { name: string }>(
    'SELECT l.name FROM chat_labels cl JOIN labels l ON l.id = cl.label_id WHERE cl.chat_id = ? ORDER BY l.name',
  );

  return {
    byId: (workspaceId: number, id: number) => byId.get(id, workspaceId),
    byName: (workspaceId: number, name: string) => byName.get(workspaceId, name),
    byPair: (accountId: number, contactPhone: string) => byPair.get(accountId, contactPhone),
    nameTaken: (workspaceId: number, name: string) => nameTaken.get(workspaceId, name) !== undefined,
    /** The largest N among this workspace's chats named "base (N)", or 0. */
    highestNameSuffix: (workspaceId: number, base: string) =>
      highestSuffix.get({ workspaceId, prefix: `${base} (`, end: `${base} )` })?.n ?? 0,
    insert: (c: { workspaceId: number; accountId: number; contactPhone: string; name: string; startedBy: string; now: number }) =>
      Number(insert.run(c).lastInsertRowid),
    page: (workspaceId: number, limit: number, offset: number) => page.all(workspaceId, limit, offset),
    update: (c: { id: number; name: string; responsible_email: string | null; responsible_name: string | null }) =>
      void update.run(c),
    /** Attaches a label to a chat, creating the label when the workspace has none by that name. */
    addLabel(workspaceId: number, chatId: number, name: string): void {
      const id = labelId.get(workspaceId, name)?.id ?? Number(insertLabel.run(workspaceId, name).lastInsertRowid);
      attachLabel.run(chatId, id);
    },
    labelsOf: (chatId: number) => labelsOf.all(chatId).map((row) => row.name),
  };
}

export type ChatStore = ReturnType<typeof createChatStore>;
