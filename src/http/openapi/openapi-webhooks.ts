/**
 * The OpenAPI 3.1 `webhooks` section: one entry per event a subscription of the area can name, with the
 * body svc POSTs and the headers that sign it. Every delivery is signed as Standard Webhooks with the
 * subscription's secret (webhooks/signature.ts); partner deliveries also carry the Partner ID and a JWT signed
 * with the Partner Secret (partner/partner-jwt-sign.ts, added by workers/webhook-runner.ts).
 */
import { PARTNER_EVENTS } from '../../engine/events.js';
import {
  AccountEventSchema,
  CHAT_EVENT_TYPES,
  ChatEventSchema,
  EVENT_TYPES,
  MESSAGE_EVENT_TYPES,
  MessageEventSchema,
  PARTNER_EVENT_DATA,
  PartnerEventSchema,
  type PartnerEventType,
} from '../../wire/webhook-events.js';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The schema of a workspace event type's body: the one of its kind (src/wire/webhook-events.ts). */
function workspaceEventSchema(eventType: string): Doc {
  if ((MESSAGE_EVENT_TYPES as readonly string[]).includes(eventType)) return MessageEventSchema;
  if ((CHAT_EVENT_TYPES as readonly string[]).includes(eventType)) return ChatEventSchema;
  return AccountEventSchema;
}

/** The body of one partner event: its `event_type`, and its `data` unless it is a sample (`test: true`). */
const partnerEventSchemaOf = (event: PartnerEventType): Doc => ({
  allOf: [PartnerEventSchema, { properties: { event_type: { enum: [event] } } }],
  anyOf: [{ properties: { data: PARTNER_EVENT_DATA[event] } }, { required: ['test'] }],
});

const upperFirst = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
// Prefixed so they never collide with a path operation's id (operationIds are unique across both documents).
const eventOperationId = (prefix: string, event: string): string =>
  `${prefix}${event.split(/[^A-Za-z0-9]+/).map(upperFirst).join('')}`;

const header = (name: string, description: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } });

const STANDARD_WEBHOOK_HEADERS = [
  header('webhook-id', 'Id of the delivery (msg_...); a retry or redelivery keeps it, so receivers deduplicate by it'),
  header('webhook-timestamp', 'Unix seconds when the attempt was signed; reject values far from now'),
  header('webhook-signature', 'v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed with the subscription\'s whsec_ secret>'),
];

const PARTNER_HEADERS = [
  header('X-SVC-Partner-Id', 'The Partner ID the event belongs to'),
  header('X-SVC-Signature', 'HS256 JWT signed with the Partner Secret (claims partner_id, aud svc:partner-webhook, body_sha256 = hex SHA-256 of the body, iat, nbf, exp); never accepted by the Partner API'),
];

const deliveryAnswer = {
  '2XX': { description: 'Acknowledged. Anything else, or no answer within 5 s, is a failed attempt; 3 attempts in all' },
};

const entry = (operationId: string, summary: string, parameters: object[], schema: Doc): Doc => ({
  post: {
    operationId,
    summary,
    parameters,
    requestBody: { required: true, content: { 'application/json': { schema } } },
    responses: deliveryAnswer,
  },
});

/** The `webhooks` section of the document of `area`. */
export function webhooksSection(area: 'public' | 'partner'): Doc {
  const section: Doc = {};
  if (area === 'public') {
    for (const event of EVENT_TYPES) {
      const summary = `The ${event} event, POSTed to each subscription of the type (Standard Webhooks signature)`;
      section[event] = entry(eventOperationId('on', event), summary, STANDARD_WEBHOOK_HEADERS, workspaceEventSchema(event));
    }
  } else {
    for (const event of PARTNER_EVENTS) {
      const summary = `The ${event} partner event, POSTed to each partner subscription of the type`;
      const headers = [...STANDARD_WEBHOOK_HEADERS, ...PARTNER_HEADERS];
      section[event] = entry(eventOperationId('onPartner', event), summary, headers, partnerEventSchemaOf(event));
    }
  }
  return section;
}
