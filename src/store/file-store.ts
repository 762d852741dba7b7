import type { Db } from './database.js';

export interface FileRow {
  id: number;
  uid: string;
  workspace_id: number;
  filename: string;
  mimetype: string;
  size: number;
  created_at: number;
}

export interface TemplateRow {
  id: number;
  workspace_id: number;
  name: string;
  file_id: number;
  file_uid: string;
  created_at: number;
}

const FILE_COLUMNS = 'id, uid, workspace_id, filename, mimetype, size, created_at';

/** Uploaded files (content kept in the database, so uploads share its transactions) and templates. */
export function createFileStore(db: Db) {
  const insert = db.prepare(
    `INSERT INTO files (uid, workspace_id, filename, mimetype, size, content, created_at)
     VALUES (@uid, @workspaceId, @filename, @mimetype, @size, @content, @now)`,
  );
  const byUid = db.prepare<[string, number], FileRow>(
    `SELECT ${FILE_COLUMNS} FROM files WHERE uid = ? AND workspace_id = ? AND deleted_at IS NULL`,
  );
  const anyByUid = db.prepare<[string], FileRow>(
    `SELECT ${FILE_COLUMNS} FROM files WHERE uid = ? AND deleted_at IS NULL`,
  );
  const byId = db.prepare<[number], FileRow>(`SELECT ${FILE_COLUMNS} FROM files WHERE id = ?`);
  const content = db.prepare<[number], { content: Buffer }>('SELECT content FROM files WHERE id = ?');
  const page = db.prepare<[number, number, number], FileRow>(
    `SELECT ${FILE_COLUMNS} FROM files WHERE workspace_id = ? AND deleted_at IS NULL ORDER BY id LIMIT ? OFFSET ?`,
  );
  // Deleted files keep their row (messages refer to them) but lose their bytes.
  const remove = db.prepare(`UPDATE files SET deleted_at = ?, content = x'' WHERE id = ?`);
  const insertTemplate = db.prepare(
    'INSERT INTO attachment_templates (workspace_id, name, file_id, created_at) VALUES (?, ?, ?, ?)',
  );
  const SELECT_TEMPLATE = `SELECT t.*, f.uid AS file_uid FROM attachment_templates t JOIN files f ON f.id = t.file_id`;
  const templateById = db.prepare<[number, number], TemplateRow>(
    `${SELECT_TEMPLATE} WHERE t.id = ? AND t.workspace_id = ?`,
  );
  const templatePage = db.prepare<[number, number, number], TemplateRow>(
    `${SELECT_TEMPLATE} WHERE t.workspace_id = ? ORDER BY t.id LIMIT ? OFFSET ?`,
  );

  return {
    insert: (f: { uid: string; workspaceId: number; filename: string; mimetype: string; size: number; content: Uint8Array; now: number }) =>
      Number(insert.run(f).lastInsertRowid),
    byUid: (workspaceId: number, uid: string) => byUid.get(uid, workspaceId),
    anyByUid: (uid: string) => anyByUid.get(uid),
    byId: (id: number) => byId.get(id),
    content: (id: number): Buffer | undefined => content.get(id)?.content,
    page: (workspaceId: number, limit: number, offset: number) => page.all(workspaceId, limit, offset),
    remove: (id: number, now: number) => void remove.run(now, id),
    insertTemplate: (workspaceId: number, name: string, fileId: number, now: number) =>
      Number(insertTemplate.run(workspaceId, name, fileId, now).lastInsertRowid),
    templateById: (workspaceId: number, id: number) => templateById.get(id, workspaceId),
    templatePage: (workspaceId: number, limit: number, offset: number) => templatePage.all(workspaceId, limit, offset),
  };
}

export type FileStore = ReturnType<typeof createFileStore>;
