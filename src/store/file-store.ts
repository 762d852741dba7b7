import { query, type SqlExecutor } from './sql.js';

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

export const FILE_COLUMNS = 'id, uid, workspace_id, filename, mimetype, size, created_at';

const INSERT = query<{ id: number }>(
  `INSERT INTO files (uid, workspace_id, filename, mimetype, size, content, created_at)
   VALUES (@uid, @workspaceId, @filename, @mimetype, @size, @content, @now)
   RETURNING id`,
);
const BY_UID = query<FileRow>(`SELECT ${FILE_COLUMNS} FROM files WHERE uid = @uid AND workspace_id = @workspaceId AND deleted_at IS NULL`);
const ANY_BY_UID = query<FileRow>(`SELECT ${FILE_COLUMNS} FROM files WHERE uid = @uid AND deleted_at IS NULL`);
export const FILE_BY_ID = query<FileRow>(`SELECT ${FILE_COLUMNS} FROM files WHERE id = @id`);
const CONTENT = query<{ content: Buffer }>('SELECT content FROM files WHERE id = @id');
const PAGE = query<FileRow>(
  `SELECT ${FILE_COLUMNS} FROM files WHERE workspace_id = @workspaceId AND deleted_at IS NULL ORDER BY id LIMIT @limit OFFSET @offset`,
);
// Deleted files keep their row (messages refer to them) but lose their bytes. An empty blob is x'' in SQLite;
// in PostgreSQL x'' is a bit string, so the empty BYTEA is spelled as a cast.
const REMOVE = query({
  sqlite: `UPDATE files SET deleted_at = @now, content = x'' WHERE id = @id`,
  postgres: `UPDATE files SET deleted_at = @now, content = CAST('' AS BYTEA) WHERE id = @id`,
});
const INSERT_TEMPLATE = query<{ id: number }>(
  `INSERT INTO attachment_templates (workspace_id, name, file_id, created_at) VALUES (@workspaceId, @name, @fileId, @now)
   RETURNING id`,
);
const SELECT_TEMPLATE = 'SELECT t.*, f.uid AS file_uid FROM attachment_templates t JOIN files f ON f.id = t.file_id';
const TEMPLATE_BY_ID = query<TemplateRow>(`${SELECT_TEMPLATE} WHERE t.id = @id AND t.workspace_id = @workspaceId`);
const TEMPLATE_PAGE = query<TemplateRow>(
  `${SELECT_TEMPLATE} WHERE t.workspace_id = @workspaceId ORDER BY t.id LIMIT @limit OFFSET @offset`,
);

/** Both drivers bind a Buffer as a blob (BLOB / BYTEA); a plain Uint8Array is wrapped without copying. */
const asBuffer = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** Uploaded files (content kept in the database, so uploads share its transactions) and templates. */
export function createFileStore(sql: SqlExecutor) {
  return {
    insert: async (f: { uid: string; workspaceId: number; filename: string; mimetype: string; size: number; content: Uint8Array; now: number }): Promise<number> =>
      (await sql.get(INSERT, { ...f, content: asBuffer(f.content) }))!.id,
    byUid: (workspaceId: number, uid: string) => sql.get(BY_UID, { uid, workspaceId }),
    anyByUid: (uid: string) => sql.get(ANY_BY_UID, { uid }),
    byId: (id: number) => sql.get(FILE_BY_ID, { id }),
    content: async (id: number): Promise<Buffer | undefined> => (await sql.get(CONTENT, { id }))?.content,
    page: (workspaceId: number, limit: number, offset: number) => sql.all(PAGE, { workspaceId, limit, offset }),
    remove: async (id: number, now: number): Promise<void> => void (await sql.run(REMOVE, { id, now })),
    insertTemplate: async (workspaceId: number, name: string, fileId: number, now: number): Promise<number> =>
      (await sql.get(INSERT_TEMPLATE, { workspaceId, name, fileId, now }))!.id,
    templateById: (workspaceId: number, id: number) => sql.get(TEMPLATE_BY_ID, { id, workspaceId }),
    templatePage: (workspaceId: number, limit: number, offset: number) => sql.all(TEMPLATE_PAGE, { workspaceId, limit, offset }),
  };
}
