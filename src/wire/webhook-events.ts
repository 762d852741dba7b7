/**
 * The events svc delivers to webhook receivers, and their JSON bodies: `WebhookEvent` is a union keyed by
 * `event_type`, so `switch (event.event_type)` (or `WebhookEventOf<'message:received:new'>`) gives the exact
 * body type. The engine builds the bodies from these types (src/webhooks/payload.ts), so they cannot drift; the
 * types derive from the schemas the OpenAPI document's `webhooks` section shows (`Static`), written once.
 */
import { DateTime, Nullable, type Static, StringEnum, StringMap, TrueFlag, type TSchema, Type } from './schema.js';

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

const assigned = { description: 'Present only while the chat is assigned' };

/** The `chat` object of message and chat events; `responsible_*` present while it is assigned (both or neither). */
export const ChatPayload = Type.Object(
  {
    full_name: Type.String(),
    chat_url: Type.String(),
    chat_id: Type.Integer(),
    is_group: Type.Boolean(),
    phone: Type.String(),
    responsible_name: Type.Optional(Type.String(assigned)),
    responsible_email: Type.Optional(Type.String(assigned)),
  },
  { title: 'WebhookChat' },
);
export type ChatPayload = Static<typeof ChatPayload>;

const accountFields = { full_name: Type.String(), email: Type.String(), phone: Type.String() };

/** The `messenger_account` object: the workspace's own account the event concerns. */
export const AccountPayload = Type.Object(accountFields, { title: 'WebhookAccount' });
export type AccountPayload = Static<typeof AccountPayload>;

export const MessageParty = Type.Object({ full_name: Nullable(Type.String()), phone: Type.String() }, { title: 'WebhookParty' });
export type MessageParty = Static<typeof MessageParty>;

export const MessageAttachment = Type.Object(
  {
    temporary_download_url: Type.String({ description: 'Pre-signed, valid 15 minutes from delivery' }),
    filename: Type.String(),
    size: Type.Integer(),
    mimetype: Type.String(),
  },
  { title: 'WebhookAttachment' },
);
export type MessageAttachment = Static<typeof MessageAttachment>;

// docs/api-behaviour.md's timestamp form, used by every workspace event.
const payloadTime = Type.String({
  description: 'YYYY-MM-DD HH:MM:SS +ZZZZ',
  pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} [+-]\\d{4}$',
});

export const MessagePayload = Type.Object(
  {
    text: Type.String({ description: 'Empty when the message is only an attachment' }),
    direction: StringEnum(['sent', 'received'] as const),
    origin: Type.String({ description: 'Name of the messaging network' }),
    timestamp: payloadTime,
    message_uid: Type.String(),
    reply_to_uid: Type.Optional(Type.String({ description: 'Present only when the message replies to another one' })),
    sender: MessageParty,
    recipient: MessageParty,
    attachments: Type.Array(MessageAttachment),
    reactions: Type.Optional(StringMap({ description: 'Emoji -> count; present only when the message has reactions' })),
  },
  { title: 'WebhookMessage' },
);
export type MessagePayload = Static<typeof MessagePayload>;

// `test: true` marks a sample from `svc webhooks test` or `svc trigger`; real events do not carry it.
const test = Type.Optional(TrueFlag({ description: 'Present (true) only on test and triggered sample events' }));

/** The body of every message event (`event_type` one of MESSAGE_EVENT_TYPES); typed per event below. */
export const MessageEventSchema = Type.Object(
  { event_type: StringEnum(MESSAGE_EVENT_TYPES), chat: ChatPayload, messenger_account: AccountPayload, message: MessagePayload, test },
  { title: 'MessageEvent' },
);

/** The body of every chat event: the message event's body without `message`. */
export const ChatEventSchema = Type.Object(
  { event_type: StringEnum(CHAT_EVENT_TYPES), chat: ChatPayload, messenger_account: AccountPayload, test },
  { title: 'ChatEvent' },
);

/** The body of every account event: the account plus its new status and when it changed. */
export const AccountEventSchema = Type.Object(
  {
    event_type: StringEnum(ACCOUNT_EVENT_TYPES),
    messenger_account: Type.Object(
      { ...accountFields, status: StringEnum(['connected', 'disconnected', 'suspended'] as const) },
      { title: 'WebhookAccountWithStatus' },
    ),
    occurred_at: payloadTime,
    test,
  },
  { title: 'AccountEvent' },
);

/** The body of an event of type `T`, from the schema of its kind. */
type BodyOf<S extends TSchema, T extends string> = Omit<Static<S>, 'event_type'> & { event_type: T };

/** Body of a message event. */
export type MessageEventPayload<T extends MessageEventType = MessageEventType> = BodyOf<typeof MessageEventSchema, T>;
/** Body of a chat event. */
export type ChatEventPayload<T extends ChatEventType = ChatEventType> = BodyOf<typeof ChatEventSchema, T>;
/** Body of an account event. */
export type AccountEventPayload<T extends AccountEventType = AccountEventType> = BodyOf<typeof AccountEventSchema, T>;

/** Partner events: type, time and the event's data (always with `workspace_id`, except on samples). */
export const PartnerEventSchema = Type.Object(
  {
    event_type: Type.String(),
    occurred_at: DateTime(),
    data: Type.Unsafe<Record<string, unknown>>({
      type: 'object',
      description: 'The event\'s facts, always with workspace_id; `{}` on samples (`test: true`)',
      additionalProperties: true,
    }),
    test,
  },
  { title: 'PartnerEvent' },
);

const int = Type.Integer();
// engine/accounts.ts: an account connected without a partner user (e.g. by the sim) has no user_id.
const userId = Nullable(Type.Integer({ description: 'The partner user of the account; null when it was connected without one' }));
/** The quota alerts' data. */
const quotaData = Type.Object(
  { workspace_id: int, quota_total: int, quota_used: int, period_start: DateTime() },
  { title: 'PartnerQuotaData' },
);
export type PartnerQuotaData = Static<typeof quotaData>;

/** The `data` of each partner event, as engine/accounts.ts, partners.ts and partner-alerts.ts emit it. */
export const PARTNER_EVENT_DATA = {
  'messenger_account:connected': Type.Object(
    { workspace_id: int, user_id: userId, phone: Type.String(), connected_at: DateTime() },
    { title: 'PartnerAccountConnectedData' },
  ),
  'messenger_account:disconnected': Type.Object(
    { workspace_id: int, user_id: userId, phone: Type.String(), disconnected_at: DateTime() },
    { title: 'PartnerAccountDisconnectedData' },
  ),
  'api-token:rotated': Type.Object({ workspace_id: int, rotated_at: DateTime() }, { title: 'PartnerTokenRotatedData' }),
  'workspace:quota_near_full': quotaData,
  'workspace:quota_full': quotaData,
  'workspace:seats_full': Type.Object(
    { workspace_id: int, seats_purchased: int, seats_used: int },
    { title: 'PartnerSeatsFullData' },
  ),
} as const satisfies Record<PartnerEventType, TSchema>;

/** The `data` of each partner event. `user_id` is null for an account connected without a partner user. */
export type PartnerEventData = { [K in PartnerEventType]: Static<(typeof PARTNER_EVENT_DATA)[K]> };

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
