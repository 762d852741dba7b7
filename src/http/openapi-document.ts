/**
 * Finishes the OpenAPI document @fastify/swagger generates from the route schemas, so generated clients and
 * validators can use it: named component schemas with examples, every operation's real error statuses with
 * their `error_code` values and headers, operationIds unique across both documents, the Partner API's two
 * credentials as one requirement, the listen stream, the request rules the engine enforces, and the
 * OpenAPI 3.1 `webhooks` section. The route schemas stay what the server validates with.
 */
import { ERROR_CATALOGUE, type ErrorCode } from '../wire/errors.js';
import { PARTNER_EVENTS } from '../engine/events.js';
import { EVENT_TYPES } from '../webhooks/payload.js';
import { SCHEMA_EXAMPLES } from './openapi-examples.js';
import { errorBodySchema, type JsonSchema } from './schemas/common-schemas.js';
import { partnerEventSchema, workspaceEventSchema } from './schemas/webhook-payload-schemas.js';

export type ApiArea = 'public' | 'partner';
type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Error statuses an operation may answer beyond the ones its shape implies (see `errorStatuses`). */
const EXTRA_STATUSES: Record<string, number[]> = {
  sendToPhone: [403, 404, 409],
  sendToChatName: [403, 404, 409],
  sendToChat: [403, 409],
  createAttachmentTemplate: [404],
  updateChat: [409],
  createWebhook: [409],
  testWebhook: [409],
  openListenSession: [409],
  reportListenResult: [409],
  createUsers: [409],
  updateWorkspace: [409],
  createQrLink: [409],
};

/** Operations whose body may be left out. */
const OPTIONAL_BODY = new Set(['createQrLink', 'openListenSession']);

const RESPONSE_NAMES: Record<number, string> = {
  400: 'BadRequest', 403: 'Forbidden', 404: 'NotFound', 405: 'MethodNotAllowed', 409: 'Conflict', 413: 'PayloadTooLarge',
  429: 'TooManyRequests', 500: 'InternalError', 503: 'Unavailable', 507: 'InsufficientStorage',
};

const codesWithStatus = (status: number): ErrorCode[] =>
  (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).filter((code) => ERROR_CATALOGUE[code].status === status);

const retryAfter = { description: 'Seconds to wait before retrying', schema: { type: 'integer' } };
const rateLimitHeaders = {
  'Retry-After': retryAfter,
  'X-RateLimit-Limit': { description: 'Requests allowed a minute for this token', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current minute', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Seconds until the limit resets', schema: { type: 'integer' } },
};

/** `components.responses`: one per error status, its body naming exactly the codes that status carries. */
function errorResponses(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [status, name] of Object.entries(RESPONSE_NAMES)) {
    const codes = codesWithStatus(Number(status));
    out[name] = {
      description: codes.map((code) => `${code}: ${ERROR_CATALOGUE[code].title}`).join('; '),
      ...(status === '429' ? { headers: rateLimitHeaders } : status === '503' || status === '507' ? { headers: { 'Retry-After': retryAfter } } : {}),
      content: {
        'application/json': {
          schema: { allOf: [{ $ref: '#/components/schemas/Error' }, { properties: { error_code: { enum: codes } } }] },
        },
      },
    };
  }
  return out;
}

/** The error statuses of one operation: from its shape (parameters, body, method), plus its extras. */
function errorStatuses(operationId: string, method: string, operation: Doc): number[] {
  const params: Array<{ in: string }> = operation.parameters ?? [];
  const statuses = new Set([429, 500, 503, ...(EXTRA_STATUSES[operationId] ?? [])]);
  if (params.length > 0 || operation.requestBody !== undefined) statuses.add(400);
  if (params.some((p) => p.in === 'path')) statuses.add(404);
  if (operation.requestBody !== undefined) statuses.add(413);
  if (method !== 'get') statuses.add(507);
  return [...statuses].sort((a, b) => a - b);
}

const upperFirst = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
const eventOperationId = (prefix: string, event: string): string =>
  `${prefix}${event.split(/[^A-Za-z0-9]+/).map(upperFirst).join('')}`;

/** Request rules the engine enforces that the route schemas leave to it, stated in the document. */
function stateRequestRules(operationId: string, body: Doc | undefined): void {
  const schema = body?.content?.['application/json']?.schema;
  if (schema?.properties === undefined) return;
  const props = schema.properties;
  if (props.phone !== undefined && operationId.startsWith('send')) {
    props.phone.pattern = '^\\s*\\+?[0-9][0-9 ().-]{2,30}\\s*$';
    props.phone.description = `${props.phone.description ?? ''}; a value of this shape that is no valid number fails later with failure_reason invalid_number`;
  }
  if (props.text !== undefined && operationId.startsWith('send')) props.text.maxLength = 10_000;
  if (operationId.startsWith('send')) {
    // One of text, file_uid or attachment_template_id, the last two never together. Each variant is a whole
    // object type inside allOf, so generators (openapi-typescript) make it `fields & (A | B | C)`.
    const content = body!.content['application/json'];
    content.schema = {
      allOf: [
        schema,
        {
          anyOf: [
            { type: 'object', required: ['text'], properties: { text: { type: 'string', minLength: 1 } } },
            { type: 'object', required: ['file_uid'], properties: { file_uid: { type: 'string' } } },
            { type: 'object', required: ['attachment_template_id'], properties: { attachment_template_id: { type: 'integer' } } },
          ],
        },
      ],
      not: { type: 'object', required: ['file_uid', 'attachment_template_id'] },
    };
  }
  if (props.url !== undefined && /Webhook$/.test(operationId)) {
    props.url.pattern = '^https?://[^\\s@]+$';
    props.url.description = 'Endpoint that receives the POSTs: an absolute https URL without credentials (http and private addresses only on a server started with --dev)';
  }
}

function finishOperations(doc: Doc, area: ApiArea): void {
  for (const methods of Object.values<Doc>(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries<Doc>(methods)) {
      const base: string = operation.operationId;
      if (base === undefined) continue;
      if (area === 'partner') operation.operationId = `partner${upperFirst(base)}`;
      if (OPTIONAL_BODY.has(base) && operation.requestBody !== undefined) operation.requestBody.required = false;
      stateRequestRules(base, operation.requestBody);
      const responses: Doc = operation.responses ?? {};
      for (const key of Object.keys(responses)) if (/^[45]XX$/i.test(key)) delete responses[key];
      if (base === 'streamListenSession') {
        responses['200'] = {
          description: 'The event stream: `ready`, then `delivery` (signed, as a webhook would be), `heartbeat`, `closed`',
          content: { 'text/event-stream': { schema: { type: 'string' } } },
        };
      }
      if (area === 'public') responses['401'] = { description: 'Token missing or invalid; no body' };
      for (const status of errorStatuses(base, method, operation)) {
        responses[String(status)] = { $ref: `#/components/responses/${RESPONSE_NAMES[status]}` };
      }
      operation.responses = responses;
    }
  }
}

const header = (name: string, description: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } });
const deliveryAnswer = { '2XX': { description: 'Acknowledged. Anything else, or no answer within 5 s, is a failed attempt (3 attempts)' } };

function webhooksSection(area: ApiArea): Doc {
  const section: Doc = {};
  if (area === 'public') {
    for (const event of EVENT_TYPES) {
      section[event] = {
        post: {
          operationId: eventOperationId('on', event),
          summary: `The ${event} event, POSTed to each subscription of the type (Standard Webhooks)`,
          parameters: [
            header('webhook-id', 'Id of the delivery; a retry or redelivery keeps it (use it to deduplicate)'),
            header('webhook-timestamp', 'Unix seconds when the attempt was signed'),
            header('webhook-signature', 'v1,<base64 HMAC-SHA256 of "id.timestamp.body" with the whsec_ secret>'),
          ],
          requestBody: { required: true, content: { 'application/json': { schema: workspaceEventSchema(event) } } },
          responses: deliveryAnswer,
        },
      };
    }
  } else {
    for (const event of PARTNER_EVENTS) {
      section[event] = {
        post: {
          operationId: eventOperationId('onPartner', event),
          summary: `The ${event} partner event, POSTed to each partner subscription of the type`,
          parameters: [
            header('X-SVC-Partner-Id', 'The Partner ID'),
            header('X-SVC-Signature', 'HS256 JWT signed with the Partner Secret (partner_id, aud svc:partner-webhook, nbf, exp); never accepted by the Partner API'),
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { allOf: [partnerEventSchema, { properties: { event_type: { enum: [event] } } }] } } },
          },
          responses: deliveryAnswer,
        },
      };
    }
  }
  return section;
}

/** Moves every titled inline schema into `components.schemas` and refers to it by `$ref`. */
function nameSchemas(doc: Doc): void {
  const named: Record<string, JsonSchema> = doc.components.schemas;
  const hoist = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(hoist);
    if (node === null || typeof node !== 'object') return node;
    const entries = Object.entries(node).map(([key, value]) => [key, hoist(value)] as const);
    const object = Object.fromEntries(entries) as Doc;
    if (typeof object.title !== 'string' || object.type === undefined) return object;
    let name = object.title.replace(/[^A-Za-z0-9_.-]/g, '');
    // Two different shapes with one title (a partner variant, say) keep both, numbered.
    for (let n = 2; named[name] !== undefined && JSON.stringify(named[name]) !== JSON.stringify(object); n++) name = `${object.title}${n}`;
    named[name] = object;
    return { $ref: `#/components/schemas/${name}` };
  };
  doc.paths = hoist(doc.paths);
  doc.webhooks = hoist(doc.webhooks);
  for (const [name, example] of Object.entries(SCHEMA_EXAMPLES)) if (named[name] !== undefined) named[name].examples = [example];
}

/** The document `area` serves, finished; `generated` is left as it was (it may share the route schemas). */
export function finishDocument(generated: Doc, area: ApiArea): Doc {
  const doc: Doc = structuredClone(generated);
  doc.components ??= {};
  doc.components.schemas = {
    // The error body every route answers with; `error_code` names the catalogue (401 has its own answer).
    Error: {
      ...errorBodySchema,
      title: 'Error',
      properties: {
        ...errorBodySchema.properties,
        error_code: { type: 'string', enum: Object.keys(ERROR_CATALOGUE).filter((code) => code !== 'unauthorized') },
      },
    },
    ...doc.components.schemas,
  };
  doc.components.responses = errorResponses();
  if (area === 'partner') doc.security = [Object.fromEntries(Object.keys(doc.components.securitySchemes ?? {}).map((name) => [name, []]))];
  finishOperations(doc, area);
  doc.webhooks = webhooksSection(area);
  nameSchemas(doc);
  return doc;
}
