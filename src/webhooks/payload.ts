/**
 * Builds the JSON bodies delivered for workspace events. Shape rule: every documented key is always present,
 * except the ones a message or chat may lack, which are left out rather than null (a client generated from the
 * plain types accepts that): `reactions` (present when the message has reactions), `reply_to_uid` (when it
 * replies to one), and `responsible_name` / `responsible_email` (while the chat is assigned).
 */
import {
  EVENT_TYPES,
  type AccountEventPayload,
  type AccountEventType,
  type AccountPayload,
  type ChatEventPayload,
  type ChatEventType,
  type ChatPayload,
  type EventType,
  type MessageEventPayload,
  type MessageEventType,
  type MessagePayload,
} from '../wire/webhook-events.js';

// The names and body shapes are wire types (src/wire/webhook-events.ts, exported by the package); this module
// builds the bodies.

/** True when `value` is one of the event identifiers a subscription may use. */
export const isEventType = (value: unknown): value is EventType =>
  typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);

/**
 * docs/api-behaviour.md timestamp: `YYYY-MM-DD HH:MM:SS +ZZZZ`. `offsetMinutes` east of UTC (0 gives `+0000`);
 * the wall-clock part is shifted by the offset so the string names the same instant.
 */
export function formatPayloadTimestamp(ms: number, offsetMinutes = 0): string {
  const local = new Date(ms + offsetMinutes * 60_000);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const date = `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`;
  const time = `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}`;
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${date} ${time} ${sign}${pad(Math.floor(abs / 60))}${pad(abs % 60)}`;
}

/** What the engine knows about a chat, in its own terms. */
export interface ChatInput {
  id: number;
  name: string;
  /** Link to the chat in the service (the engine builds it from its public URL). */
  url: string;
  isGroup: boolean;
  contactPhone: string;
  responsibleName: string | null;
  responsibleEmail: string | null;
}

export interface AccountInput {
  fullName: string;
  email: string;
  phone: string;
}

export interface PartyInput {
  fullName: string | null;
  phone: string;
}

export interface AttachmentInput {
  /** Pre-signed, valid 15 minutes from delivery (docs/api-behaviour.md); the engine signs it. */
  temporaryDownloadUrl: string;
  filename: string;
  size: number;
  mimetype: string;
}

export interface MessageInput {
  uid: string;
  text: string | null;
  direction: 'sent' | 'received';
  /** Name of the originating network (the driver's `name`). */
  origin: string;
  createdAt: number;
  replyToUid: string | null;
  sender: PartyInput;
  recipient: PartyInput;
  attachments: AttachmentInput[];
  /** Emoji to count; omitted from the payload when empty. */
  reactions: Record<string, number | string>;
}

export type WebhookPayload = MessageEventPayload | ChatEventPayload | AccountEventPayload;

/** The docs/api-behaviour.md `chat` object from the engine's chat. */
export const chatPayload = (chat: ChatInput): ChatPayload => ({
  full_name: chat.name,
  chat_url: chat.url,
  chat_id: chat.id,
  is_group: chat.isGroup,
  phone: chat.contactPhone,
  ...(chat.responsibleName === null ? {} : { responsible_name: chat.responsibleName }),
  ...(chat.responsibleEmail === null ? {} : { responsible_email: chat.responsibleEmail }),
});

/** The docs/api-behaviour.md `messenger_account` object. */
export const accountPayload = (account: AccountInput): AccountPayload => ({
  full_name: account.fullName,
  email: account.email,
  phone: account.phone,
});

/** The docs/api-behaviour.md `message` object. */
export function messagePayload(message: MessageInput): MessagePayload {
  const payload: MessagePayload = {
    text: message.text ?? '',
    direction: message.direction,
    origin: message.origin,
    timestamp: formatPayloadTimestamp(message.createdAt),
    message_uid: message.uid,
    ...(message.replyToUid === null || message.replyToUid === '' ? {} : { reply_to_uid: message.replyToUid }),
    sender: { full_name: message.sender.fullName, phone: message.sender.phone },
    recipient: { full_name: message.recipient.fullName, phone: message.recipient.phone },
    attachments: message.attachments.map((a) => ({
      temporary_download_url: a.temporaryDownloadUrl,
      filename: a.filename,
      size: a.size,
      mimetype: a.mimetype,
    })),
  };
  const reactions = Object.entries(message.reactions);
  // docs/api-behaviour.md: counts are strings.
  if (reactions.length > 0) payload.reactions = Object.fromEntries(reactions.map(([emoji, n]) => [emoji, String(n)]));
  return payload;
}

/** Builds the body of a message event. */
export const buildMessageEvent = (
  eventType: MessageEventType,
  input: { chat: ChatInput; account: AccountInput; message: MessageInput },
): MessageEventPayload => ({
  event_type: eventType,
  chat: chatPayload(input.chat),
  messenger_account: accountPayload(input.account),
  message: messagePayload(input.message),
});

/** Builds the body of a chat event. */
export const buildChatEvent = (
  eventType: ChatEventType,
  input: { chat: ChatInput; account: AccountInput },
): ChatEventPayload => ({
  event_type: eventType,
  chat: chatPayload(input.chat),
  messenger_account: accountPayload(input.account),
});

const ACCOUNT_STATUS: Record<AccountEventType, AccountEventPayload['messenger_account']['status']> = {
  'messenger:account:connected': 'connected',
  'messenger:account:disconnected': 'disconnected',
  'messenger:account:suspended': 'suspended',
  'messenger:account:resumed': 'connected',
};

/** Builds the body of an account event; `status` follows from the event. */
export const buildAccountEvent = (
  eventType: AccountEventType,
  input: { account: AccountInput; occurredAt: number },
): AccountEventPayload => ({
  event_type: eventType,
  messenger_account: { ...accountPayload(input.account), status: ACCOUNT_STATUS[eventType] },
  occurred_at: formatPayloadTimestamp(input.occurredAt),
});
