import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { AttachmentTemplateDto, FileDto, FileUploadInput, Page, TemplateCreateInput } from '../wire/types.js';
import type { FileRow, TemplateRow } from '../store/file-store.js';
import type { DownloadedFile } from '../wire/types.js';
import { isoTime } from '../wire/clock.js';
import { inWriteTransaction, type EngineContext } from './context.js';
import { invalid, notFound, SvcError } from '../wire/errors.js';
import { assertUid } from './ids.js';
import { pageOf } from './paging.js';

const MAX_FILENAME = 255;

export async function uploadFile(ctx: EngineContext, workspaceId: number, input: FileUploadInput): Promise<FileDto> {
  const filename = input.filename?.trim() ?? '';
  if (filename.length === 0 || filename.length > MAX_FILENAME || /[\\/\0]/.test(filename)) {
    throw invalid(`filename must be 1 to ${MAX_FILENAME} characters without slashes`);
  }
  if (input.content.byteLength > ctx.config.maxFileBytes) {
    throw new SvcError('payload_too_large', `Files may be at most ${ctx.config.maxFileBytes} bytes`);
  }
  // Type and subtype only, lower case: what a multipart upload over HTTP yields too (its parser drops parameters).
  const mimetype = input.mimetype?.split(';')[0]?.trim().toLowerCase() || 'application/octet-stream';
  const now = ctx.clock.now();
  const uid = randomUUID();
  const size = input.content.byteLength;
  // The storage check and the write share one transaction: concurrent uploads cannot both fit in the last bytes.
  return inWriteTransaction(ctx, async (tx) => {
    const workspace = await tx.stores.workspaces.byId(workspaceId);
    if (workspace === undefined) throw notFound(`workspace ${workspaceId}`);
    const limit = workspace.storage_limit_bytes ?? tx.config.defaultStorageBytes;
    if (workspace.storage_used_bytes + size > limit) {
      throw new SvcError('storage_quota_exceeded', `This upload would take the workspace past its storage quota of ${mebibytes(limit)} MiB (${mebibytes(workspace.storage_used_bytes)} MiB in use)`, {
        hint: `delete files you no longer need (\`svc files delete UID --yes\`), or ask the operator to raise it (\`svc admin workspace update ${workspaceId} --storage-mb N\`)`,
      });
    }
    await tx.stores.files.insert({ uid, workspaceId, filename, mimetype, size, content: input.content, now });
    await tx.stores.workspaces.addStorage(workspaceId, size);
    return fileDto((await tx.stores.files.byUid(workspaceId, uid)) as FileRow);
  });
}

const mebibytes = (bytes: number): string => (bytes / 1024 / 1024).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1);

/** A file of this workspace, or not_found. */
export async function fileOfWorkspace(ctx: EngineContext, workspaceId: number, uid: string): Promise<FileRow> {
  assertUid('file uid', uid);
  const file = await ctx.stores.files.byUid(workspaceId, uid);
  if (file === undefined) throw notFound(`file ${uid}`, 'upload it first with `svc files upload PATH`');
  return file;
}

export function listFiles(ctx: EngineContext, workspaceId: number, page: number): Promise<Page<FileDto>> {
  return pageOf(page, (limit, offset) => ctx.stores.files.page(workspaceId, limit, offset), fileDto);
}

/** The file's record with a pre-signed download URL valid for 15 minutes. */
export async function getFile(ctx: EngineContext, workspaceId: number, uid: string, linkBase: string): Promise<FileDto> {
  const file = await fileOfWorkspace(ctx, workspaceId, uid);
  return { ...fileDto(file), ...(await presign(ctx, file.uid, linkBase)) };
}

export async function deleteFile(ctx: EngineContext, workspaceId: number, uid: string): Promise<{ deleted: true; uid: string }> {
  await inWriteTransaction(ctx, async (tx) => {
    const file = await fileOfWorkspace(tx, workspaceId, uid);
    await tx.stores.files.remove(file.id, tx.clock.now());
    await tx.stores.workspaces.addStorage(workspaceId, -file.size);
  });
  return { deleted: true, uid };
}

/** A pre-signed link: HMAC of uid and expiry under a key kept in the database, shared by all processes. */
export async function presign(ctx: EngineContext, uid: string, linkBase: string): Promise<{ temporary_download_url: string; expires_at: string }> {
  const expiresMs = ctx.clock.now() + ctx.config.downloadUrlTtlMs;
  const expires = Math.floor(expiresMs / 1000);
  const signature = await signDownload(ctx, uid, expires);
  const base = linkBase.replace(/\/+$/, '');
  return {
    temporary_download_url: `${base}/files/${encodeURIComponent(uid)}?expires=${expires}&signature=${signature}`,
    expires_at: isoTime(expires * 1000),
  };
}

/** Serves a pre-signed download; a wrong or expired signature is not_found, revealing nothing. */
export async function download(ctx: EngineContext, uid: string, expires: number, signature: string): Promise<DownloadedFile> {
  const expected = Buffer.from(await signDownload(ctx, uid, expires));
  const given = Buffer.from(String(signature));
  const valid = given.length === expected.length && timingSafeEqual(given, expected) && expires * 1000 > ctx.clock.now();
  const file = valid ? await ctx.stores.files.anyByUid(uid) : undefined;
  const content = file === undefined ? undefined : await ctx.stores.files.content(file.id);
  if (file === undefined || content === undefined) {
    throw notFound('download link', 'links last 15 minutes; ask for a new one with `svc files get UID`');
  }
  return { filename: file.filename, mimetype: file.mimetype, content };
}

async function signDownload(ctx: EngineContext, uid: string, expires: number): Promise<string> {
  return createHmac('sha256', await downloadKey(ctx)).update(`${uid}.${expires}`).digest('base64url');
}

async function downloadKey(ctx: EngineContext): Promise<string> {
  const key = await ctx.stores.workspaces.getSetting('download_signing_key');
  if (key !== undefined) return key;
  // First writer wins (an insert that ignores a conflict), so every process reads back the same key.
  await ctx.stores.workspaces.putSettingOnce('download_signing_key', randomBytes(32).toString('base64url'));
  return (await ctx.stores.workspaces.getSetting('download_signing_key')) as string;
}

export const fileDto = (row: FileRow): FileDto => ({
  uid: row.uid,
  filename: row.filename,
  mimetype: row.mimetype,
  size: row.size,
  created_at: isoTime(row.created_at),
});

export async function createTemplate(ctx: EngineContext, workspaceId: number, input: TemplateCreateInput): Promise<AttachmentTemplateDto> {
  const name = input.name?.trim() ?? '';
  if (name.length === 0 || name.length > 200) throw invalid('name must be 1 to 200 characters');
  // The file is checked and referenced in one transaction, so a delete in between cannot leave a dangling template.
  return inWriteTransaction(ctx, async (tx) => {
    const file = await fileOfWorkspace(tx, workspaceId, input.file_uid);
    const id = await tx.stores.files.insertTemplate(workspaceId, name, file.id, tx.clock.now());
    return templateDto((await tx.stores.files.templateById(workspaceId, id)) as TemplateRow);
  });
}

export function listTemplates(ctx: EngineContext, workspaceId: number, page: number): Promise<Page<AttachmentTemplateDto>> {
  return pageOf(page, (limit, offset) => ctx.stores.files.templatePage(workspaceId, limit, offset), templateDto);
}

export const templateDto = (row: TemplateRow): AttachmentTemplateDto => ({
  id: row.id,
  name: row.name,
  file_uid: row.file_uid,
  created_at: isoTime(row.created_at),
});
