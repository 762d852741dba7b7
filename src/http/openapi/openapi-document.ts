/**
 * Finishes the OpenAPI document @fastify/swagger generates from the route schemas, so generated clients and
 * validators can use it: named component schemas with examples, every operation's real error statuses with
 * their `error_code` values and headers, operationIds unique across both documents, the Partner API's two
 * credentials as one requirement, the listen stream, the request rules the engine enforces, and the
 * OpenAPI 3.1 `webhooks` section. The route schemas stay what the server validates with.
 */
import { ERROR_CATALOGUE, type ErrorCode } from '../../wire/errors.js';
import { SCHEMA_EXAMPLES } from './openapi-examples.js';
import { type RequestRuleOptions, stateRequestRules } from './openapi-request-rules.js';
import { webhooksSection } from './openapi-webhooks.js';
import { errorBodySchema, type JsonSchema } from '../schemas/common-schemas.js';
import { partnerAuthErrorSchema } from '../schemas/partner-schemas.js';

export type ApiArea = 'public' | 'partner';
type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Error statuses an operation may answer beyond the ones its shape implies (see `errorStatuses`), from the
 * engine's throws: 403 quota_exceeded (credits.ts), 404 for what a body names, 409 for the conflict() and
 * seats_full of its engine call, 507 for a GET that writes (the listen secret is made on first read, a stream
 * takes its session over).
 */
const EXTRA_STATUSES: Record<string, number[]> = {
  sendToPhone: [403, 404, 409],
  sendToChatName: [403, 404],
  sendToChat: [403],
  createAttachmentTemplate: [404],
  updateChat: [409],
  createWebhook: [409],
  testWebhook: [409],
  getListenSecret: [507],
  openListenSession: [409],
  streamListenSession: [507],
  reportListenResult: [409],
  createUsers: [409],
  updateWorkspace: [409],
};

/** Operations whose body may be left out. */
const OPTIONAL_BODY = new Set(['createQrLink', 'openListenSession']);

const RESPONSE_NAMES: Record<number, string> = {
  400: 'BadRequest', 403: 'Forbidden', 404: 'NotFound', 405: 'MethodNotAllowed', 409: 'Conflict', 413: 'PayloadTooLarge',
  429: 'TooManyRequests', 500: 'InternalError', 503: 'Unavailable', 507: 'InsufficientStorage',
};

const codesWithStatus = (status: number): ErrorCode[] =>
  (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).filter((code) => ERROR_CATALOGUE[code].status === status);

// Every 429, 503 and 507 carries Retry-After (http/server/errors.ts, the rate limiter, http/server/stream-limits.ts); only the
// rate limiter's 429 carries the X-RateLimit-* headers (an open-stream cap does not), so they are optional.
const retryAfter = { description: 'Seconds to wait before retrying', required: true, schema: { type: 'integer' } };
const rateLimitHeaders = {
  'Retry-After': retryAfter,
  'X-RateLimit-Limit': { description: 'Requests allowed in any 60 s for this token (a sliding window)', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the window now', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Seconds until the oldest counted request leaves the window', schema: { type: 'integer' } },
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
  // Every route can be rate limited (429), hit a bug (500), or find the database busy or read-only (503).
  const params: Array<{ in: string }> = operation.parameters ?? [];
  const statuses = new Set([429, 500, 503, ...(EXTRA_STATUSES[operationId] ?? [])]);
  if (params.length > 0 || operation.requestBody !== undefined) statuses.add(400);
  if (params.some((p) => p.in === 'path')) statuses.add(404);
  if (operation.requestBody !== undefined) statuses.add(413);
  if (method !== 'get') statuses.add(507);
  return [...statuses].sort((a, b) => a - b);
}

const upperFirst = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

// docs/api-behaviour.md: a Public API 401 has no body, only the challenge header (http/routes/public/token-auth.ts, http/server/errors.ts).
const publicUnauthorized = {
  description: 'Token missing or invalid; no body',
  headers: { 'WWW-Authenticate': { description: 'Bearer', schema: { type: 'string' } } },
};
// The Partner API answers 401 with a body naming the rule that failed (http/routes/partner/partner-auth.ts).
const partnerUnauthorized = {
  description: 'JWT or X-SVC-Partner-Id missing or invalid; `rule` names the check that failed',
  headers: { 'WWW-Authenticate': { description: 'Bearer error="invalid_token"', schema: { type: 'string' } } },
  content: { 'application/json': { schema: partnerAuthErrorSchema } },
};

function finishOperations(doc: Doc, area: ApiArea, options: RequestRuleOptions): void {
  for (const methods of Object.values<Doc>(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries<Doc>(methods)) {
      const base: string = operation.operationId;
      if (base === undefined) continue;
      if (area === 'partner') operation.operationId = `partner${upperFirst(base)}`;
      if (OPTIONAL_BODY.has(base) && operation.requestBody !== undefined) operation.requestBody.required = false;
      stateRequestRules(base, operation.requestBody, options);
      const responses: Doc = operation.responses ?? {};
      for (const key of Object.keys(responses)) if (/^[45]XX$/i.test(key)) delete responses[key];
      if (base === 'streamListenSession') {
        responses['200'] = {
          description:
            'Server-Sent Events (webhooks/listen-feed.ts), each `event: <type>` with one JSON `data:` line: `ready` ' +
            '{session_id, heartbeat_ms}; `delivery` {id, webhook_id, event_type, attempt, max_attempts, payload, headers} ' +
            '(the signed body and its Standard Webhooks headers; post the local answer to /webhooks/listen/{id}/results ' +
            'under `id`); `heartbeat` {}; `closed` {reason}',
          content: { 'text/event-stream': { schema: { type: 'string' } } },
        };
      }
      responses['401'] = area === 'public' ? publicUnauthorized : partnerUnauthorized;
      for (const status of errorStatuses(base, method, operation)) {
        responses[String(status)] = { $ref: `#/components/responses/${RESPONSE_NAMES[status]}` };
      }
      operation.responses = responses;
    }
  }
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
export function finishDocument(generated: Doc, area: ApiArea, options: RequestRuleOptions): Doc {
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
  finishOperations(doc, area, options);
  doc.webhooks = webhooksSection(area);
  nameSchemas(doc);
  return doc;
}
