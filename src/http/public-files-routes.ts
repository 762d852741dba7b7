/** Public API: files (upload, list, get with a pre-signed link, delete). */
import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { invalid } from '../engine/errors.js';
import { type RouteGroup, ok, workspaceApi } from './route-context.js';
import { type PageQuery, type UidParams, pageOf, pageQuery, responses, uidParams } from './schemas/common-schemas.js';
import { deletedFileSchema, fileSchema } from './schemas/dto-schemas.js';

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
        response: responses(fileSchema),
      },
      // The multipart body is read by the handler, not validated by Ajv; document it for OpenAPI only.
      config: { swaggerTransform: ({ schema, url }) => ({ schema: { ...schema, body: uploadDoc }, url }) },
    },
    async (request) => {
      const upload = await readUpload(request);
      return ok(workspaceApi(ctx, request).uploadFile(upload));
    },
  );

  app.get<{ Querystring: PageQuery }>(
    '/files',
    {
      schema: {
        tags,
        operationId: 'listFiles',
        summary: 'List files, 50 a page',
        querystring: pageQuery,
        response: responses(pageOf(fileSchema)),
      },
    },
    async (request) => ok(workspaceApi(ctx, request).listFiles(request.query.page)),
  );

  app.get<{ Params: UidParams }>(
    '/files/:uid',
    {
      schema: {
        tags,
        operationId: 'getFile',
        summary: 'Get a file with a temporary_download_url valid 15 minutes',
        params: uidParams,
        response: responses(fileSchema),
      },
    },
    async (request) => ok(workspaceApi(ctx, request).getFile(request.params.uid)),
  );

  app.delete<{ Params: UidParams }>(
    '/files/:uid',
    {
      schema: {
        tags,
        operationId: 'deleteFile',
        summary: 'Delete a file',
        params: uidParams,
        response: responses(deletedFileSchema),
      },
    },
    async (request) => ok(workspaceApi(ctx, request).deleteFile(request.params.uid)),
  );
};

const uploadDoc = {
  type: 'object',
  required: ['file'],
  properties: { file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'The file' } },
};

const readUpload = async (request: FastifyRequest) => {
  if (!request.isMultipart()) throw invalid('Request is not multipart/form-data', UPLOAD_HINT);
  const part = await request.file();
  if (part === undefined) throw invalid('multipart field "file" is required', UPLOAD_HINT);
  if (part.fieldname !== 'file') {
    part.file.resume(); // drain it, so the connection stays usable
    throw invalid(`multipart field "file" is required (got "${part.fieldname}")`, UPLOAD_HINT);
  }
  // toBuffer throws a 413 once the stream passes the size limit.
  const content = await part.toBuffer();
  return { filename: decodeFormFilename(part.filename), mimetype: part.mimetype, content };
};

/** FormData senders (browsers, undici) escape `"`, CR and LF in a multipart filename (WHATWG HTML); undo it. */
const decodeFormFilename = (filename: string): string =>
  filename.replace(/%22|%0D|%0A/gi, (escape) => ({ '%22': '"', '%0D': '\r', '%0A': '\n' })[escape.toUpperCase()] ?? escape);
