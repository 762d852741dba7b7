/** `/files/:uid?expires=..&signature=..`: pre-signed attachment downloads, no token (docs/api-behaviour.md). */
import type { FastifyPluginAsync } from 'fastify';
import type { RouteContext } from '../../server/route-context.js';
import { errorBodySchema } from '../../schemas/common-schemas.js';

interface DownloadQuery {
  expires: number;
  signature: string;
}

/** Mounted at `/files`. The signature is the credential, so the engine checks it before anything is read. */
export const downloadRoutes: FastifyPluginAsync<RouteContext> = async (app, ctx) => {
  app.get<{ Params: { uid: string }; Querystring: DownloadQuery }>(
    '/:uid',
    {
      schema: {
        params: {
          type: 'object',
          required: ['uid'],
          properties: { uid: { type: 'string', minLength: 1, maxLength: 200 } },
        },
        querystring: {
          type: 'object',
          required: ['expires', 'signature'],
          properties: {
            expires: { type: 'integer', minimum: 0 },
            signature: { type: 'string', minLength: 1, maxLength: 512 },
          },
        },
        response: { '4xx': errorBodySchema, '5xx': errorBodySchema },
      },
    },
    async (request, reply) => {
      const { uid } = request.params;
      const file = await ctx.engine.download(uid, request.query.expires, request.query.signature);
      return reply
        .header('content-type', file.mimetype)
        .header('content-disposition', contentDisposition(file.filename))
        // Uploaded bytes are untrusted: never let a browser render them as a page of this origin.
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('cache-control', 'private, no-store')
        .send(file.content);
    },
  );
};

/** `attachment` with an ASCII fallback name and the exact UTF-8 name (RFC 6266 / RFC 8187). */
export const contentDisposition = (filename: string): string => {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, '_') || 'download';
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
};
