/** The served OpenAPI documents: valid for independent tools, and saying what the server really does. */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_EXAMPLES } from '../../src/http/openapi/openapi-examples.js';
import { startSandbox, type Sandbox } from '../../src/testing/index.js';
import { DocumentChecker } from '../support/document-checker.js';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let sandbox: Sandbox;
let api: Doc;
let partner: Doc;
beforeAll(async () => {
  sandbox = await startSandbox();
  api = (await (await fetch(`${sandbox.apiUrl}/openapi.json`)).json()) as Doc;
  partner = (await (await fetch(`${sandbox.partnerUrl}/openapi.json`)).json()) as Doc;
});
afterAll(async () => sandbox.stop());

const operations = (doc: Doc): Array<[string, string, Doc]> => [
  ...Object.entries<Doc>(doc.paths).flatMap(([path, methods]) => Object.entries<Doc>(methods).map(([method, op]) => [path, method, op] as [string, string, Doc])),
  ...Object.entries<Doc>(doc.webhooks ?? {}).flatMap(([event, methods]) => Object.entries<Doc>(methods).map(([method, op]) => [event, method, op] as [string, string, Doc])),
];

describe('OpenAPI documents', () => {
  it('both are valid OpenAPI 3.1 for an independent validator', async () => {
    for (const doc of [api, partner]) {
      const result = await new Validator().validate(doc);
      expect(result.errors ?? [], doc.info.title).toEqual([]);
      expect(result.valid).toBe(true);
      expect(doc.openapi).toBe('3.1.0');
    }
  });

  it('operationIds are unique across both documents, webhooks included', () => {
    const ids = [...operations(api), ...operations(partner)].map(([, , op]) => op.operationId as string);
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    expect(ids.length).toBeGreaterThan(60);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('the Partner API needs both credentials together: one security requirement holding both', () => {
    expect(partner.security).toEqual([{ partnerJwt: [], partnerId: [] }]);
  });

  it('every operation lists its error statuses, each with the error codes it carries and its headers', () => {
    for (const doc of [api, partner]) {
      for (const [path, method, op] of operations(doc).filter(([path]) => path.startsWith('/'))) {
        expect(Object.keys(op.responses), `${method} ${path}`).toEqual(expect.arrayContaining(['401', '429', '500', '503']));
        expect(Object.keys(op.responses).some((s) => /X$/.test(s)), `${method} ${path}`).toBe(false);
      }
    }
    // 401: no body on /api (docs/api-behaviour.md), a body naming the failed rule on /partner.
    expect(api.paths['/chats'].get.responses['401'].content).toBeUndefined();
    expect(partner.paths['/webhooks/listen/{id}/stream'].get.responses['401'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/PartnerAuthError' });
    // 409 only where the engine can answer it: no default sender to fall back on applies to /messages alone.
    expect(api.paths['/chats/{id}/messages'].post.responses).not.toHaveProperty('409');
    expect(partner.paths['/workspaces/{id}/users/{user_id}/qr'].post.responses).not.toHaveProperty('409');
    expect(api.components.responses.Unavailable.headers['Retry-After'].required).toBe(true);
    expect(api.components.responses.TooManyRequests.headers).toHaveProperty('Retry-After');
    expect(api.components.responses.TooManyRequests.headers).toHaveProperty('X-RateLimit-Remaining');
    const codesOf = (name: string) => api.components.responses[name].content['application/json'].schema.allOf[1].properties.error_code.enum;
    expect(codesOf('Conflict')).toEqual(['conflict', 'seats_full']);
    expect(codesOf('PayloadTooLarge')).toEqual(['payload_too_large', 'storage_quota_exceeded']);
    expect(Object.keys(api.paths['/messages'].post.responses)).toEqual(expect.arrayContaining(['400', '403', '404', '409', '413']));
  });

  it('the listen stream is documented: 200 text/event-stream, 401, 404', () => {
    const stream = api.paths['/webhooks/listen/{id}/stream'].get;
    expect(Object.keys(stream.responses['200'].content)).toEqual(['text/event-stream']);
    expect(stream.responses).toHaveProperty('401');
    expect(stream.responses).toHaveProperty('404');
  });

  it('named schemas with examples, and each example matches its schema', () => {
    for (const name of ['Chat', 'Message', 'Webhook', 'SendResult', 'Error', 'MessengerAccount', 'Workspace', 'File', 'MessageEvent', 'ChatEvent', 'AccountEvent']) {
      expect(api.components.schemas[name], name).toBeDefined();
    }
    expect(api.paths['/messages'].post.responses['200'].content['application/json'].schema.properties.data).toEqual({ $ref: '#/components/schemas/SendResult' });
    const checkers = { public: new DocumentChecker(api, 'public-examples'), partner: new DocumentChecker(partner, 'partner-examples') };
    let checked = 0;
    for (const [name, example] of Object.entries(SCHEMA_EXAMPLES)) {
      const [doc, checker] = api.components.schemas[name] !== undefined ? [api, checkers.public] : [partner, checkers.partner];
      expect(doc.components.schemas[name].examples, name).toEqual([example]);
      expect(checker.matches(`/components/schemas/${name}`, example), name).toEqual([]);
      checked += 1;
    }
    expect(checked).toBeGreaterThanOrEqual(20);
  });

  it('webhooks section: all 12 workspace and 6 partner events, signature headers, and real deliveries match it', async () => {
    expect(Object.keys(api.webhooks)).toHaveLength(12);
    expect(Object.keys(partner.webhooks)).toHaveLength(6);
    expect(api.webhooks['message:new'].post.parameters.map((p: { name: string }) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    expect(partner.webhooks['api-token:rotated'].post.parameters.map((p: { name: string }) => p.name)).toEqual([
      'webhook-id', 'webhook-timestamp', 'webhook-signature', 'X-SVC-Partner-Id', 'X-SVC-Signature',
    ]);
    // Fields a chat or message may lack are plain strings that are not required (absent, never null).
    for (const [schema, field] of [['WebhookChat', 'responsible_email'], ['WebhookChat', 'responsible_name'], ['WebhookMessage', 'reply_to_uid'], ['WebhookMessage', 'reactions']]) {
      expect(api.components.schemas[schema!].required, `${schema}.${field}`).not.toContain(field);
      expect(api.components.schemas[schema!].properties[field!].type, `${schema}.${field}`).not.toContain('null');
    }
    for (const [schema, field] of [['Chat', 'responsible_email'], ['Chat', 'responsible_name'], ['Message', 'reply_to_uid']]) {
      expect(api.components.schemas[schema!].required, `${schema}.${field}`).not.toContain(field);
      expect(api.components.schemas[schema!].properties[field!].type, `${schema}.${field}`).toBe('string');
    }

    const checker = new DocumentChecker(api, 'public-webhooks');
    const events = ['message:received:new', 'chat:received:created', 'messenger:account:connected'] as const;
    const arrivals = events.map((event) => sandbox.nextDelivery({ event }));
    await sandbox.connectAccount('+15550003002');
    await sandbox.receiveMessage({ from: '+4915112340001', to: '+15550003002', text: 'Hello' });
    for (const [i, arrival] of arrivals.entries()) {
      const { payload } = await arrival;
      expect(checker.matches(`/webhooks/${events[i]}/post/requestBody/content/application~1json/schema`, payload), events[i]).toEqual([]);
    }
  });
});
