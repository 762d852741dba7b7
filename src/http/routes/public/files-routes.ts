/** Public API: files (upload, list, get with a pre-signed link, delete). */
import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { type SvcError, invalid, isSvcError } from '../../../wire/errors.js';
import { type RouteGroup, ok, workspaceApi } from '../../server/route-context.js';
import { pageOf, pageQuery, responses, uidParams } from '../../schemas/common-schemas.js';
import { DeletedFileDto, FileDto } from '../../../wire/types.js';

const tags = ['files'];

/** Upload size limit when the server is built without one. */
export const DEFAULT_FILE_LIMIT_BYTES = 25 * 1024 * 1024;

const UPLOAD_HINT = 'send multipart/form-data with the file in a field named "file"';

/** POST /files_upload (multipart), GET /files, GET /files/:uid, DELETE /files/:uid. */
export const publicFilesRoutes: RouteGroup = async (app, ctx) => {
  const fileLimitBytes = ctx.fileLimitBytes ?? DEFAULT_FILE_LIMIT_BYTES;
  // Registered here, not server-wide: only this group accepts multipart bodies. preservePath hands the name to
  // the engine as sent, so "a/b.txt" is refused as it is by the local client, not silently stored as "b.txt".
  await app.register(multipart, { preservePath: true, limits: { fileSize: fileLimitBytes, files: 1, fields: 20, parts: 25 } });

  app.post(
    '/files_upload',
    {
      schema: {
        tags,
        operationId: 'uploadFile',
        summary: 'Upload a file (multipart/form-data, field "file"); returns its uid',
        consumes: ['multipart/form-data'],
        response: responses(FileDto),
      },
      // The multipart body is read by the handler, not validated by Ajv; document it for OpenAPI only.
      config: { swaggerTransform: ({ schema, url }) => ({ schema: { ...schema, body: uploadDoc }, url }) },
    },
    async (request) => {
      const upload = await readUpload(request);
      return ok(await workspaceApi(ctx, request).uploadFile(upload));
    },
  );

  app.get(
    '/files',
    {
      schema: {
        tags,
        operationId: 'listFiles',
        summary: 'List files, 50 a page',
        querystring: pageQuery,
        response: responses(pageOf(FileDto)),
      },
    },
    async (request) => ok(await workspaceApi(ctx, request).listFiles(request.query.page)),
  );

  app.get(
    '/files/:uid',
    {
      schema: {
        tags,
        operationId: 'getFile',
        summary: 'Get a file with a temporary_download_url valid 15 minutes',
        params: uidParams,
        response: responses(FileDto),
      },
    },
    async (request) => ok(await workspaceApi(ctx, request).getFile(request.params.uid)),
  );

  app.delete(
    '/files/:uid',
    {
      schema: {
        tags,
        operationId: 'deleteFile',
        summary: 'Delete a file',
        params: uidParams,
        response: responses(DeletedFileDto),
      },
    },
    async (request) => ok(await workspaceApi(ctx, request).deleteFile(request.params.uid)),
  );
};

const uploadDoc = {
  type: 'object',
  required: ['file'],
  properties: { file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'The file' } },
};

const readUpload = async (request: FastifyRequest) => {
  if (!request.isMultipart()) throw invalid('Request is not multipart/form-data', UPLOAD_HINT);
  try {
    return await readFilePart(request);
  } catch (error) {
    throw malformedMultipart(error) ?? error;
  }
};

// busboy reports a missing boundary or a body cut off mid-part as plain Errors; they are the sender's fault.
const malformedMultipart = (error: unknown): SvcError | null => {
  if (isSvcError(error) || !(error instanceof Error)) return null;
  if ((error as { statusCode?: number }).statusCode !== undefined) return null; // Fastify's own (413...) map already
  const cutOff = (error as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE' || /unexpected end/i.test(error.message);
  if (!cutOff && !/^Multipart:/.test(error.message)) return null;
  return invalid(cutOff ? 'The multipart body ends in the middle of a part' : 'The multipart body has no valid boundary', UPLOAD_HINT);
};

const readFilePart = async (request: FastifyRequest) => {
  const sawClosingDelimiter = watchClosingDelimiter(request);
  const part = await request.file();
  if (part === undefined) throw invalid('multipart field "file" is required', UPLOAD_HINT);
  if (part.fieldname !== 'file') {
    part.file.resume(); // drain it, so the connection stays usable
    throw invalid(`multipart field "file" is required (got "${part.fieldname}")`, UPLOAD_HINT);
  }
  // toBuffer throws a 413 once the stream passes the size limit.
  const content = await part.toBuffer();
  await bodyConsumed(request);
  if (!sawClosingDelimiter()) throw invalid('The multipart body ends in the middle of a part', UPLOAD_HINT);
  return { filename: decodeFormFilename(part.filename), mimetype: part.mimetype, content };
};

/** Resolves once the whole request body has been read (draining what the parser left, e.g. a trailing field). */
async function bodyConsumed(request: FastifyRequest): Promise<void> {
  const raw = request.raw;
  if (raw.readableEnded || raw.destroyed) return;
  await new Promise<void>((resolve) => {
    raw.once('end', resolve);
    raw.once('close', resolve);
    raw.resume();
  });
}

/**
 * @fastify/multipart treats a body that stops before its closing "--boundary--" as finished, and busboy may end
 * a cut-off file's stream without an error, so a half-received file would be stored as if whole. This watches
 * the raw bytes for the closing delimiter. Called right before the parser is piped, in the same tick.
 */
function watchClosingDelimiter(request: FastifyRequest): () => boolean {
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(request.headers['content-type'] ?? '');
  const closing = Buffer.from(`--${match?.[1] ?? match?.[2] ?? ''}--`);
  let tail = Buffer.alloc(0);
  let seen = false;
  request.raw.on('data', (chunk: Buffer) => {
    if (seen) return;
    const window = Buffer.concat([tail, chunk]);
    seen = window.includes(closing);
    tail = window.subarray(Math.max(0, window.length - closing.length));
  });
  return () => seen;
}

/** FormData senders (browsers, undici) escape `"`, CR and LF in a multipart filename (WHATWG HTML); undo it. */
const decodeFormFilename = (filename: string): string =>
  filename.replace(/%22|%0D|%0A/gi, (escape) => ({ '%22': '"', '%0D': '\r', '%0A': '\n' })[escape.toUpperCase()] ?? escape);
