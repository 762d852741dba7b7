import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { AttachmentTemplateDto, FileDto, FileUploadInput, Page, TemplateCreateInput } from '../wire/types.js';
import type { FileRow, TemplateRow } from '../store/file-store.js';
import type { DownloadedFile } from './engine-api.js';
import { isoTime } from './clock.js';
import { inWriteTransaction, type EngineContext } from './context.js';
import { invalid, notFound, SvcError } from './errors.js';
import { assertUid } from './ids.js';
import { pageOf } from './paging.js';

const MAX_FILENAME = 255;

export function uploadFile(ctx: EngineContext, workspaceId: number, input: FileUploadInput): FileDto {
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
  return inWriteTransaction(ctx.db, () => {
    const workspace = ctx.stores.workspaces.byId(workspaceId);
    if (workspace === undefined) throw notFound(`workspace ${workspaceId}`);
    const limit = workspace.storage_limit_bytes ?? ctx.config.defaultStorageBytes;
    if (workspace.storage_used_bytes + size > limit) {
      throw new SvcError('storage_quota_exceeded', `This upload would take the workspace past its storage quota of ${mebibytes(limit)} MiB (${mebibytes(workspace.storage_used_bytes)} MiB in use)`, {
        hint: 'delete files you no longer need (svc files delete UID --yes), or ask the operator to raise it (svc admin workspace update WS --storage-mb N)',
      });
    }
    ctx.stores.files.insert({ uid, workspaceId, filename, mimetype, size, content: input.content, now });
    ctx.stores.workspaces.addStorage(workspaceId, size);
    return fileDto(ctx.stores.files.byUid(workspaceId, uid) as FileRow);
  });
}

const mebibytes = (bytes: number): string => (bytes / 1024 / 1024).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1);

/** A file of this workspace, or not_found. */
export function fileOfWorkspace(ctx: EngineContext, workspaceId: number, uid: string): FileRow {
  assertUid('file uid', uid);
  const file = ctx.stores.files.byUid(workspaceId, uid);
  if (file === undefined) throw notFound(`file ${uid}`, 'upload it first with `svc files upload PATH`');
  return file;
}

export function listFiles(ctx: EngineContext, workspaceId: number, page: number): Page<FileDto> {
  return pageOf(page, (limit, offset) => ctx.stores.files.page(workspaceId, limit, offset), fileDto);
}

/** The file's record with a pre-signed download URL valid for 15 minutes. */
export function getFile(ctx: EngineContext, workspaceId: number, uid: string, linkBase: string): FileDto {
  const file = fileOfWorkspace(ctx, workspaceId, uid);
  return { ...fileDto(file), ...presign(ctx, file.uid, linkBase) };
}

export function deleteFile(ctx: EngineContext, workspaceId: number, uid: string): { deleted: true; uid: string } {
  inWriteTransaction(ctx.db, () => {
    const file = fileOfWorkspace(ctx, workspaceId, uid);
    ctx.stores.files.remove(file.id, ctx.clock.now());
    ctx.stores.workspaces.addStorage(workspaceId, -file.size);
  });
  return { deleted: true, uid };
}

/** A pre-signed link: HMAC of uid and expiry under a key kept in the database, shared by all processes. */
export function presign(ctx: EngineContext, uid: string, linkBase: string): { temporary_download_url: string; expires_at: string } {
  const expiresMs = ctx.clock.now() + ctx.config.downloadUrlTtlMs;
  const expires = Math.floor(expiresMs / 1000);
  const signature = signDownload(ctx, uid, expires);
  const base = linkBase.replace(/\/+$/, '');
  return {
    temporary_download_url: `${base}/files/${encodeURIComponent(uid)}?expires=${expires}&signature=${signature}`,
    expires_at: isoTime(expires * 1000),
  };
}

/** Serves a pre-signed download; a wrong or expired signature is not_found, revealing nothing. */
export function download(ctx: EngineContext, uid: string, expires: number, signature: string): DownloadedFile {
  const expected = Buffer.from(signDownload(ctx, uid, expires));
  const given = Buffer.from(String(signature));
  const valid = given.length === expected.length && timingSafeEqual(given, expected) && expires * 1000 > ctx.clock.now();
  const file = valid ? ctx.stores.files.anyByUid(uid) : undefined;
  const content = file === undefined ? undefined : ctx.stores.files.content(file.id);
  if (file === undefined || content === undefined) {
    throw notFound('download link', 'links last 15 minutes; ask for a new one with `svc files get UID`');
  }
  return { filename: file.filename, mimetype: file.mimetype, content };
}

function signDownload(ctx: EngineContext, uid: string, expires: number): string {
  return createHmac('sha256', downloadKey(ctx)).update(`${uid}.${expires}`).digest('base64url');
}

function downloadKey(ctx: EngineContext): string {
  const key = ctx.stores.workspaces.getSetting('download_signing_key');
  if (key !== undefined) return key;
  ctx.stores.workspaces.putSettingOnce('download_signing_key', randomBytes(32).toString('base64url'));
  return ctx.stores.workspaces.getSetting('download_signing_key') as string;
}

export const fileDto = (row: FileRow): FileDto => ({
  uid: row.uid,
  filename: row.filename,
  mimetype: row.mimetype,
  size: row.size,
  created_at: isoTime(row.created_at),
});

export function createTemplate(ctx: EngineContext, workspaceId: number, input: TemplateCreateInput): AttachmentTemplateDto {
  const name = input.name?.trim() ?? '';
  if (name.length === 0 || name.length > 200) throw invalid('name must be 1 to 200 characters');
  const file = fileOfWorkspace(ctx, workspaceId, input.file_uid);
  const id = ctx.stores.files.insertTemplate(workspaceId, name, file.id, ctx.clock.now());
  return templateDto(ctx.stores.files.templateById(workspaceId, id) as TemplateRow);
}

export function listTemplates(ctx: EngineContext, workspaceId: number, page: number): Page<AttachmentTemplateDto> {
  return pageOf(page, (limit, offset) => ctx.stores.files.templatePage(workspaceId, limit, offset), templateDto);
}

export const templateDto = (row: TemplateRow): AttachmentTemplateDto => ({
  id: row.id,
  name: row.name,
  file_uid: row.file_uid,
  created_at: isoTime(row.created_at),
});
