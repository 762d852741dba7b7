/**
 * Response schemas of the wire DTOs in src/wire/types.ts. They document the API and drive serialisation,
 * so each must list every field of its type; nullable fields say so, or fast-json-stringify would coerce null.
 */
import { MESSAGE_STATUSES } from '../../wire/types.js';
import type { JsonSchema } from './common-schemas.js';

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const bool = { type: 'boolean' } as const;
const nullable = (type: 'string' | 'integer') => ({ type: [type, 'null'] }) as const;
const time = { type: 'string', format: 'date-time' } as const;
const nullableTime = { type: ['string', 'null'], format: 'date-time' } as const;

const object = (title: string, properties: Record<string, JsonSchema>, optional: string[] = []): JsonSchema => ({
  type: 'object',
  title,
  required: Object.keys(properties).filter((key) => !optional.includes(key)),
  properties,
});

const messageStatus = { type: 'string', enum: [...MESSAGE_STATUSES] } as const;
const accountStatus = { type: 'string', enum: ['connected', 'disconnected', 'suspended'] } as const;

export const sendResultSchema = object('SendResult', {
  message_uid: str,
  status: messageStatus,
  chat_id: int,
  credits: int,
});

export const messageSchema = object('Message', {
  uid: str,
  chat_id: int,
  direction: { type: 'string', enum: ['sent', 'received'] },
  status: messageStatus,
  failure_reason: nullable('string'),
  text: nullable('string'),
  file_uid: nullable('string'),
  attachment_template_id: nullable('integer'),
  reply_to_uid: { type: 'string', description: 'Present only when the message replies to another one' },
  messenger_account_phone: str,
  contact_phone: str,
  credits: int,
  reactions: {
    type: ['object', 'null'],
    description: 'Emoji -> count as a string',
    additionalProperties: str,
  },
  created_at: time,
  sent_at: nullableTime,
}, ['reply_to_uid']);

export const chatSchema = object('Chat', {
  id: int,
  name: str,
  phone: str,
  is_group: bool,
  messenger_account_phone: str,
  responsible_email: { type: 'string', description: 'Present only while the chat is assigned' },
  responsible_name: { type: 'string', description: 'Present only while the chat is assigned' },
  labels: { type: 'array', items: str },
  created_at: time,
}, ['responsible_email', 'responsible_name']);

export const accountSchema = object('MessengerAccount', {
  id: int,
  phone: str,
  full_name: str,
  email: str,
  status: accountStatus,
  connected_at: nullableTime,
  is_default_sender: bool,
});

export const workspaceSchema = object('Workspace', {
  id: int,
  name: str,
  plan: { type: 'string', enum: ['standard', 'business'] },
  seats_purchased: int,
  seats_used: int,
  send_interval_ms: nullable('integer'),
  messaging_quota: object('MessagingQuota', {
    total: int,
    used: int,
    remaining: int,
    period: { type: 'string', enum: ['month'] },
    period_start: time,
    period_end: time,
  }),
  storage: object('StorageQuota', { limit_bytes: int, used_bytes: int }),
  created_at: time,
});

export const fileSchema = object(
  'File',
  {
    uid: str,
    filename: str,
    mimetype: str,
    size: int,
    created_at: time,
    temporary_download_url: { type: 'string', format: 'uri', description: 'Pre-signed, valid 15 minutes' },
    expires_at: time,
  },
  ['temporary_download_url', 'expires_at'],
);

export const deletedFileSchema = object('DeletedFile', { deleted: { type: 'boolean', enum: [true] }, uid: str });

export const templateSchema = object('AttachmentTemplate', { id: int, name: str, file_uid: str, created_at: time });

export const simAccountSchema = object('SimAccount', { phone: str, status: accountStatus });
export const simReceiveSchema = object('SimReceived', { message_uid: str, chat_id: int });
export const simReactSchema = object('SimReaction', {
  message_uid: str,
  reactions: { type: 'object', additionalProperties: str },
});
export const simUnreachableSchema = object('SimUnreachable', { phone: str, unreachable: bool });
