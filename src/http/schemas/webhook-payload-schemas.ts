/**
 * The bodies svc POSTs to webhook receivers, as JSON Schema for the OpenAPI 3.1 `webhooks` section. They
 * mirror src/webhooks/payload.ts (docs/api-behaviour.md) and the partner events (docs/api-behaviour.md); a test validates real
 * deliveries against them.
 */
import { ACCOUNT_EVENT_TYPES, CHAT_EVENT_TYPES, MESSAGE_EVENT_TYPES } from '../../wire/webhook-events.js';
import type { JsonSchema } from './common-schemas.js';

const str = { type: 'string' } as const;
const nullableStr = { type: ['string', 'null'] } as const;
const object = (title: string, properties: Record<string, JsonSchema>, optional: string[] = []): JsonSchema => ({
  type: 'object',
  title,
  required: Object.keys(properties).filter((key) => !optional.includes(key)),
  properties,
});

// docs/api-behaviour.md's timestamp form, used by every workspace event.
const payloadTime = { type: 'string', description: 'YYYY-MM-DD HH:MM:SS +ZZZZ', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} [+-]\\d{4}$' } as const;

const party = object('WebhookParty', { full_name: nullableStr, phone: str });

export const webhookChatSchema = object(
  'WebhookChat',
  {
    full_name: str,
    chat_url: str,
    chat_id: { type: 'integer' },
    is_group: { type: 'boolean' },
    phone: str,
    responsible_name: { type: 'string', description: 'Present only while the chat is assigned' },
    responsible_email: { type: 'string', description: 'Present only while the chat is assigned' },
  },
  ['responsible_name', 'responsible_email'],
);

const accountSchema = object('WebhookAccount', { full_name: str, email: str, phone: str });

const messageSchema = object(
  'WebhookMessage',
  {
    text: { type: 'string', description: 'Empty when the message is only an attachment' },
    direction: { type: 'string', enum: ['sent', 'received'] },
    origin: { type: 'string', description: 'Name of the messaging network' },
    timestamp: payloadTime,
    message_uid: str,
    reply_to_uid: { type: 'string', description: 'Present only when the message replies to another one' },
    sender: party,
    recipient: party,
    attachments: {
      type: 'array',
      items: object('WebhookAttachment', {
        temporary_download_url: { type: 'string', description: 'Pre-signed, valid 15 minutes from delivery' },
        filename: str,
        size: { type: 'integer' },
        mimetype: str,
      }),
    },
    reactions: { type: 'object', additionalProperties: { type: 'string' }, description: 'Emoji -> count; present only when the message has reactions' },
  },
  ['reply_to_uid', 'reactions'],
);

// `test: true` marks a sample from `svc webhooks test` or `svc trigger`; real events do not carry it.
const testFlag = { test: { type: 'boolean', enum: [true], description: 'Present (true) only on test and triggered sample events' } };

export const messageEventSchema = object(
  'MessageEvent',
  { event_type: { type: 'string', enum: [...MESSAGE_EVENT_TYPES] }, chat: webhookChatSchema, messenger_account: accountSchema, message: messageSchema, ...testFlag },
  ['test'],
);

export const chatEventSchema = object(
  'ChatEvent',
  { event_type: { type: 'string', enum: [...CHAT_EVENT_TYPES] }, chat: webhookChatSchema, messenger_account: accountSchema, ...testFlag },
  ['test'],
);

export const accountEventSchema = object(
  'AccountEvent',
  {
    event_type: { type: 'string', enum: [...ACCOUNT_EVENT_TYPES] },
    messenger_account: {
      ...accountSchema,
      title: 'WebhookAccountWithStatus',
      required: ['full_name', 'email', 'phone', 'status'],
      properties: { ...(accountSchema.properties as object), status: { type: 'string', enum: ['connected', 'disconnected', 'suspended'] } },
    },
    occurred_at: payloadTime,
    ...testFlag,
  },
  ['test'],
);

/** Partner events: type, time and the event's data (always with `workspace_id`, except on samples). */
export const partnerEventSchema = object(
  'PartnerEvent',
  {
    event_type: str,
    occurred_at: { type: 'string', format: 'date-time' },
    data: { type: 'object', description: 'The event\'s facts, always with workspace_id; `{}` on samples (`test: true`)', additionalProperties: true },
    ...testFlag,
  },
  ['test'],
);

const int = { type: 'integer' } as const;
const isoTime = { type: 'string', format: 'date-time' } as const;
// engine/accounts.ts: an account connected without a partner user (e.g. by the sim) has no user_id.
const userId = { type: ['integer', 'null'], description: 'The partner user of the account; null when it was connected without one' } as const;
const quotaData = object('PartnerQuotaData', { workspace_id: int, quota_total: int, quota_used: int, period_start: isoTime });

/** The `data` of each partner event, as engine/accounts.ts, partners.ts and partner-alerts.ts emit it. */
export const PARTNER_EVENT_DATA: Record<string, JsonSchema> = {
  'messenger_account:connected': object('PartnerAccountConnectedData', { workspace_id: int, user_id: userId, phone: str, connected_at: isoTime }),
  'messenger_account:disconnected': object('PartnerAccountDisconnectedData', { workspace_id: int, user_id: userId, phone: str, disconnected_at: isoTime }),
  'api-token:rotated': object('PartnerTokenRotatedData', { workspace_id: int, rotated_at: isoTime }),
  'workspace:quota_near_full': quotaData,
  'workspace:quota_full': quotaData,
  'workspace:seats_full': object('PartnerSeatsFullData', { workspace_id: int, seats_purchased: int, seats_used: int }),
};

/** The body of one partner event: its `event_type`, and its `data` unless it is a sample (`test: true`). */
export const partnerEventSchemaOf = (event: string): JsonSchema => ({
  allOf: [partnerEventSchema, { properties: { event_type: { enum: [event] } } }],
  anyOf: [{ properties: { data: PARTNER_EVENT_DATA[event] } }, { required: ['test'] }],
});

/** The schema of an event type's body. */
export function workspaceEventSchema(eventType: string): JsonSchema {
  if ((MESSAGE_EVENT_TYPES as readonly string[]).includes(eventType)) return messageEventSchema;
  if ((CHAT_EVENT_TYPES as readonly string[]).includes(eventType)) return chatEventSchema;
  return accountEventSchema;
}
