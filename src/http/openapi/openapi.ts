/**
 * One OpenAPI 3.1 document per API area. @fastify/swagger collects routes through an onRoute hook, so
 * registering it inside an area's encapsulated scope documents that area only; `/partner` adds its own
 * document the same way, by calling this helper in its own scope.
 */
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { type ApiArea, finishDocument } from './openapi-document.js';
import type { UrlPolicyMode } from '../../webhooks/url-policy.js';

/** What a document says about its area. */
export interface OpenApiDocOptions {
  title: string;
  version: string;
  description?: string;
  /** Path prefix the area is mounted at, e.g. `/api`; becomes the document's server URL. */
  basePath: string;
  /** Security scheme of the area; bearer unless told otherwise. */
  securitySchemes?: Record<string, Record<string, unknown>>;
  /** Which API the document describes; it decides error bodies, operationIds and the webhooks section. */
  area: ApiArea;
  /** The webhook URLs the engine accepts (`dev` allows http); the document states the rule as applied. */
  webhookUrlPolicy: UrlPolicyMode;
}

/**
 * Registers the document generator in `scope` and serves it at `openapi.json` within the scope.
 * Call it (awaited) before the scope's routes are added, or they will not be seen.
 */
export const registerOpenApi = async (scope: FastifyInstance, doc: OpenApiDocOptions): Promise<void> => {
  const securitySchemes = doc.securitySchemes ?? { bearerAuth: { type: 'http', scheme: 'bearer' } };
  await scope.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: doc.title, version: doc.version, ...(doc.description ? { description: doc.description } : {}) },
      servers: [{ url: doc.basePath }],
      components: { securitySchemes: securitySchemes as never },
      security: Object.keys(securitySchemes).map((name) => ({ [name]: [] })),
    },
    transformObject: (document) =>
      'openapiObject' in document ? finishDocument(document.openapiObject, doc.area, { webhookUrlPolicy: doc.webhookUrlPolicy }) : document.swaggerObject,
  });
  // The generated document is cached after the first call, so serving it costs nothing per request.
  scope.get('/openapi.json', { schema: { hide: true }, config: { skipAuth: true } }, async () => scope.swagger());
};
