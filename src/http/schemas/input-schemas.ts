/**
 * Request body schemas. Policy: unknown fields are dropped (forward compatibility: a newer client may send
 * fields this server does not know) while known fields are type-checked without coercion. Whether a value
 * makes sense (a valid phone number, an existing template) is the engine's business, not the schema's.
 */
import type { JsonSchema } from './common-schemas.js';

const str = { type: 'string' } as const;

const body = (properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema => ({
  type: 'object',
  required,
  properties,
});

/** docs/api-behaviour.md: fields shared by every send endpoint. */
const sendFields = {
  text: { type: 'string', description: 'Plain-text body; line breaks are \\n' },
  file_uid: { type: 'string', description: 'Uid of an uploaded file to attach' },
  label: { type: 'string', description: 'Label for the chat; created when missing' },
  attachment_template_id: { type: 'integer', description: 'Id of an attachment template of the workspace' },
  reply_to: { type: ['string', 'null'], description: 'Uid of the message replied to; null or "" is ignored' },
} as const;

export const sendToPhoneBody = body(
  {
    phone: { type: 'string', description: 'Recipient, international format (+14155550123)' },
    messenger_account_phone: { type: 'string', description: 'Sending account; default: most recently connected' },
    chat_name: str,
    ...sendFields,
  },
  ['phone'],
);

export const sendToChatNameBody = body(
  { chat_name: { type: 'string', description: 'Exact name of the chat' }, ...sendFields },
  ['chat_name'],
);

export const sendToChatBody = body({ ...sendFields });

export const chatUpdateBody = body({
  name: str,
  responsible: { type: 'string', description: 'E-mail of the team member; "" unassigns' },
});

export const templateCreateBody = body({ name: str, file_uid: str }, ['name', 'file_uid']);

export const simConnectBody = body({ phone: str, full_name: str, email: str }, ['phone']);

export const simReceiveBody = body(
  { from: str, to: str, text: str, file_uid: str, reply_to: str, contact_name: str },
  ['from', 'to'],
);

export const simReactBody = body({ message_uid: str, emoji: str, from: str }, ['message_uid', 'emoji']);

export const simUnreachableBody = body({ unreachable: { type: 'boolean' } }, ['unreachable']);

export const phoneParams = {
  type: 'object',
  required: ['phone'],
  properties: { phone: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

export interface PhoneParams {
  phone: string;
}
