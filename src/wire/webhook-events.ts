/**
 * The events svc delivers to webhook receivers, and their JSON bodies: `WebhookEvent` is a union keyed by
 * `event_type`, so `switch (event.event_type)` (or `WebhookEventOf<'message:received:new'>`) gives the exact
 * body type. The engine builds the bodies from these types (src/webhooks/payload.ts), so they cannot drift.
 */

/** Message events: a message was sent or received (`message:new` is either). */
export const MESSAGE_EVENT_TYPES = ['message:new', 'message:received:new', 'message:sent:new'] as const;
/** Chat events: a chat was opened (by either side), or its responsible person changed. */
export const CHAT_EVENT_TYPES = [
  'chat:created',
  'chat:received:created',
  'chat:sent:created',
  'chat:assigned',
  'chat:unassigned',
] as const;
/** Account events: the network changed a connected account's status. */
export const ACCOUNT_EVENT_TYPES = [
  'messenger:account:connected',
  'messenger:account:disconnected',
  'messenger:account:suspended',
  'messenger:account:resumed',
] as const;
/** Every event a workspace subscription may name. */
export const EVENT_TYPES = [...MESSAGE_EVENT_TYPES, ...CHAT_EVENT_TYPES, ...ACCOUNT_EVENT_TYPES] as const;

/** Partner events; they go to the partner that owns the workspace. */
export const PARTNER_EVENTS = [
  'messenger_account:connected',
  'messenger_account:disconnected',
  'api-token:rotated',
  'workspace:quota_near_full',
  'workspace:quota_full',
  'workspace:seats_full',
] as const;

export type MessageEventType = (typeof MESSAGE_EVENT_TYPES)[number];
export type ChatEventType = (typeof CHAT_EVENT_TYPES)[number];
export type AccountEventType = (typeof ACCOUNT_EVENT_TYPES)[number];
/** The 12 workspace events. */
export type EventType = (typeof EVENT_TYPES)[number];
/** The 6 partner events. */
export type PartnerEventType = (typeof PARTNER_EVENTS)[number];
/** All 18 event names. */
export type WebhookEventType = EventType | PartnerEventType;

/** The `chat` object of message and chat events. */
export interface ChatPayload {
  full_name: string;
  chat_url: string;
  chat_id: number;
  is_group: boolean;
  phone: string;
  /** Present while the chat is assigned (both or neither). */
  responsible_name?: string;
  responsible_email?: string;
}

/** The `messenger_account` object: the workspace's own account the event concerns. */
export interface AccountPayload {
  full_name: string;
  email: string;
  phone: string;
}

export interface MessageParty {
  full_name: string | null;
  phone: string;
}

export interface MessageAttachment {
  /** Pre-signed, valid 15 minutes from delivery. */
  temporary_download_url: string;
  filename: string;
  size: number;
  mimetype: string;
}

export interface MessagePayload {
  /** Empty when the message is only an attachment. */
  text: string;
  direction: 'sent' | 'received';
  /** Name of the messaging network. */
  origin: string;
  /** `YYYY-MM-DD HH:MM:SS +ZZZZ`. */
  timestamp: string;
  message_uid: string;
  /** Present when the message replies to another one. */
  reply_to_uid?: string;
  sender: MessageParty;
  recipient: MessageParty;
  attachments: MessageAttachment[];
  /** Emoji -> count (a string); present only when the message has reactions. */
  reactions?: Record<string, string>;
}

/** `test: true` marks a sample (`svc webhooks test`, `svc trigger`); real events do not carry it. */
interface Sample {
  test?: true;
}

/** Body of a message event. */
export interface MessageEventPayload<T extends MessageEventType = MessageEventType> extends Sample {
  event_type: T;
  chat: ChatPayload;
  messenger_account: AccountPayload;
  message: MessagePayload;
}

/** Body of a chat event: the message event's body without `message`. */
export interface ChatEventPayload<T extends ChatEventType = ChatEventType> extends Sample {
  event_type: T;
  chat: ChatPayload;
  messenger_account: AccountPayload;
}

/** Body of an account event: the account plus its new status and when it changed. */
export interface AccountEventPayload<T extends AccountEventType = AccountEventType> extends Sample {
  event_type: T;
  messenger_account: AccountPayload & { status: 'connected' | 'disconnected' | 'suspended' };
  /** `YYYY-MM-DD HH:MM:SS +ZZZZ`. */
  occurred_at: string;
}

/** The quota alerts' data. */
export interface PartnerQuotaData {
  workspace_id: number;
  quota_total: number;
  quota_used: number;
  /** ISO 8601. */
  period_start: string;
}

/** The `data` of each partner event. `user_id` is null for an account connected without a partner user. */
export interface PartnerEventData {
  'messenger_account:connected': { workspace_id: number; user_id: number | null; phone: string; connected_at: string };
  'messenger_account:disconnected': { workspace_id: number; user_id: number | null; phone: string; disconnected_at: string };
  'api-token:rotated': { workspace_id: number; rotated_at: string };
  'workspace:quota_near_full': PartnerQuotaData;
  'workspace:quota_full': PartnerQuotaData;
  'workspace:seats_full': { workspace_id: number; seats_purchased: number; seats_used: number };
}

/**
 * Body of a partner event: its type, when it happened (ISO 8601) and its data. A sample (`test: true`, from
 * `svc partner trigger`) carries empty data, so its fields are optional there.
 */
export type PartnerEventPayload<T extends PartnerEventType = PartnerEventType> = {
  [K in T]:
    | { event_type: K; occurred_at: string; data: PartnerEventData[K]; test?: undefined }
    | { event_type: K; occurred_at: string; data: Partial<PartnerEventData[K]>; test: true };
}[T];

/** The body of a workspace event of type `T`. */
export type WorkspaceWebhookEventOf<T extends EventType> = T extends MessageEventType
  ? MessageEventPayload<T>
  : T extends ChatEventType
    ? ChatEventPayload<T>
    : T extends AccountEventType
      ? AccountEventPayload<T>
      : never;

/** The body of any event of type `T`, workspace or partner. */
export type WebhookEventOf<T extends WebhookEventType> = T extends EventType
  ? WorkspaceWebhookEventOf<T>
  : T extends PartnerEventType
    ? PartnerEventPayload<T>
    : never;

/** Any of the 12 workspace events, keyed by `event_type`. */
export type WorkspaceWebhookEvent = WorkspaceWebhookEventOf<EventType>;
/** Any of the 6 partner events, keyed by `event_type`. */
export type PartnerWebhookEvent = PartnerEventPayload;
/** Any event svc delivers, keyed by `event_type`. */
export type WebhookEvent = WebhookEventOf<WebhookEventType>;
