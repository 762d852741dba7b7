/**
 * Wire shapes of the Public API: what `data` holds in an `{status:"ok", data}` envelope, and the bodies the
 * routes take. The engine returns exactly these objects, the HTTP layer validates, serialises and documents
 * them with these schemas, and both clients return them, so a command cannot tell the local engine from a
 * remote server. Each shape is one schema; its type is derived from it (`Static`), never written again.
 */
import { DateTime, Nullable, type Static, StringEnum, StringMap, TrueFlag, type TSchema, type TUnsafe, Type } from './schema.js';

/** A message's states, in the order it passes them; the API documents and the store's type derive from this. */
export const MESSAGE_STATUSES = ['Pending', 'Sending', 'Sent', 'Failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
export const DIRECTIONS = ['sent', 'received'] as const;
export type Direction = (typeof DIRECTIONS)[number];
export const ACCOUNT_STATUSES = ['connected', 'disconnected', 'suspended'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];
export const PLANS = ['standard', 'business'] as const;
export type Plan = (typeof PLANS)[number];

/** A page of a list: `?page=N` from 1, 50 items a page (docs/api-behaviour.md: `has_more_pages`). */
export const PageOf = <T extends TSchema>(item: T) =>
  Type.Object({ items: Type.Array(item), page: Type.Integer(), has_more_pages: Type.Boolean() });
export type Page<T> = Static<ReturnType<typeof PageOf<TUnsafe<T>>>>;

/** Fields shared by every send endpoint (docs/api-behaviour.md). */
const sendFields = {
  text: Type.Optional(Type.String({ description: 'Plain-text body; line breaks are \\n' })),
  file_uid: Type.Optional(Type.String({ description: 'Uid of an uploaded file to attach' })),
  label: Type.Optional(Type.String({ description: 'Label for the chat; created when missing' })),
  attachment_template_id: Type.Optional(Type.Integer({ description: 'Id of an attachment template of the workspace' })),
  reply_to: Type.Optional(Nullable(Type.String({ description: 'Uid of the message replied to; null or "" is ignored' }))),
};

/** Fields shared by every send endpoint; `POST /chats/{id}/messages` takes just these. */
export const SendFields = Type.Object(sendFields, { required: [] });
export type SendFields = Static<typeof SendFields>;

/** POST /messages (docs/api-behaviour.md). */
export const SendToPhoneInput = Type.Object({
  phone: Type.String({ description: 'Recipient, international format (+14155550123)' }),
  messenger_account_phone: Type.Optional(Type.String({ description: 'Sending account; default: most recently connected' })),
  chat_name: Type.Optional(Type.String()),
  ...sendFields,
});
export type SendToPhoneInput = Static<typeof SendToPhoneInput>;

/** POST /messages/to_chat_name (docs/api-behaviour.md, deprecated). */
export const SendToChatNameInput = Type.Object({ chat_name: Type.String({ description: 'Exact name of the chat' }), ...sendFields });
export type SendToChatNameInput = Static<typeof SendToChatNameInput>;

/** POST /chats/{id}/messages (docs/api-behaviour.md). */
export const SendToChatInput = SendFields;
export type SendToChatInput = SendFields;

/** `data` of a send response: docs/api-behaviour.md plus what the queue decided. */
export const SendResult = Type.Object(
  { message_uid: Type.String(), status: StringEnum(MESSAGE_STATUSES), chat_id: Type.Integer(), credits: Type.Integer() },
  { title: 'SendResult' },
);
export type SendResult = Static<typeof SendResult>;

export const MessageDto = Type.Object(
  {
    uid: Type.String(),
    chat_id: Type.Integer(),
    direction: StringEnum(DIRECTIONS),
    status: StringEnum(MESSAGE_STATUSES),
    failure_reason: Nullable(Type.String()),
    text: Nullable(Type.String()),
    file_uid: Nullable(Type.String()),
    attachment_template_id: Nullable(Type.Integer()),
    reply_to_uid: Type.Optional(Type.String({ description: 'Present only when the message replies to another one' })),
    messenger_account_phone: Type.String(),
    contact_phone: Type.String(),
    credits: Type.Integer(),
    reactions: Nullable(StringMap({ description: 'Emoji -> count as a string' })),
    created_at: DateTime(),
    sent_at: Nullable(DateTime()),
  },
  { title: 'Message' },
);
export type MessageDto = Static<typeof MessageDto>;

const assigned = { description: 'Present only while the chat is assigned' };
export const ChatDto = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    phone: Type.String(),
    is_group: Type.Boolean(),
    messenger_account_phone: Type.String(),
    /** Present only while the chat is assigned (both, or neither). */
    responsible_email: Type.Optional(Type.String(assigned)),
    responsible_name: Type.Optional(Type.String(assigned)),
    labels: Type.Array(Type.String()),
    created_at: DateTime(),
  },
  { title: 'Chat' },
);
export type ChatDto = Static<typeof ChatDto>;

/** PATCH /chats/{id}: `responsible` "" unassigns. */
export const ChatUpdateInput = Type.Object(
  {
    name: Type.Optional(Type.String()),
    responsible: Type.Optional(Type.String({ description: 'E-mail of the team member; "" unassigns' })),
  },
  { required: [] },
);
export type ChatUpdateInput = Static<typeof ChatUpdateInput>;

export const MessengerAccountDto = Type.Object(
  {
    id: Type.Integer(),
    phone: Type.String(),
    full_name: Type.String(),
    email: Type.String(),
    status: StringEnum(ACCOUNT_STATUSES),
    connected_at: Nullable(DateTime()),
    is_default_sender: Type.Boolean(),
  },
  { title: 'MessengerAccount' },
);
export type MessengerAccountDto = Static<typeof MessengerAccountDto>;

export const MessagingQuotaDto = Type.Object(
  {
    total: Type.Integer(),
    used: Type.Integer(),
    remaining: Type.Integer(),
    period: StringEnum(['month'] as const),
    period_start: DateTime(),
    period_end: DateTime(),
  },
  { title: 'MessagingQuota' },
);
export type MessagingQuotaDto = Static<typeof MessagingQuotaDto>;

export const WorkspaceDto = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    plan: StringEnum(PLANS),
    seats_purchased: Type.Integer(),
    seats_used: Type.Integer(),
    send_interval_ms: Nullable(Type.Integer()),
    messaging_quota: MessagingQuotaDto,
    /** Bytes of live files: the quota (`svc admin workspace update --storage-mb`) and what is in use. */
    storage: Type.Object({ limit_bytes: Type.Integer(), used_bytes: Type.Integer() }, { title: 'StorageQuota' }),
    created_at: DateTime(),
  },
  { title: 'Workspace' },
);
export type WorkspaceDto = Static<typeof WorkspaceDto>;

export const FileDto = Type.Object(
  {
    uid: Type.String(),
    filename: Type.String(),
    mimetype: Type.String(),
    size: Type.Integer(),
    created_at: DateTime(),
    /** Present on GET /files/{uid}: pre-signed, valid 15 minutes. */
    temporary_download_url: Type.Optional(Type.String({ format: 'uri', description: 'Pre-signed, valid 15 minutes' })),
    expires_at: Type.Optional(DateTime()),
  },
  { title: 'File' },
);
export type FileDto = Static<typeof FileDto>;

/** `DELETE /files/{uid}`. */
export const DeletedFileDto = Type.Object({ deleted: TrueFlag(), uid: Type.String() }, { title: 'DeletedFile' });
export type DeletedFileDto = Static<typeof DeletedFileDto>;

export interface FileUploadInput {
  filename: string;
  mimetype: string;
  content: Uint8Array;
}

export const AttachmentTemplateDto = Type.Object(
  { id: Type.Integer(), name: Type.String(), file_uid: Type.String(), created_at: DateTime() },
  { title: 'AttachmentTemplate' },
);
export type AttachmentTemplateDto = Static<typeof AttachmentTemplateDto>;

export const TemplateCreateInput = Type.Object({ name: Type.String(), file_uid: Type.String() });
export type TemplateCreateInput = Static<typeof TemplateCreateInput>;

/** Simulated network controls (`/sim`, `svc sim ...`). */
export const SimReceiveInput = Type.Object({
  from: Type.String(),
  to: Type.String(),
  text: Type.Optional(Type.String()),
  file_uid: Type.Optional(Type.String()),
  reply_to: Type.Optional(Type.String()),
  contact_name: Type.Optional(Type.String()),
});
export type SimReceiveInput = Static<typeof SimReceiveInput>;

export const SimReactInput = Type.Object({ message_uid: Type.String(), emoji: Type.String(), from: Type.Optional(Type.String()) });
export type SimReactInput = Static<typeof SimReactInput>;

export const SimConnectInput = Type.Object({
  phone: Type.String(),
  full_name: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
});
export type SimConnectInput = Static<typeof SimConnectInput>;

/** `PUT /sim/numbers/{phone}/unreachable`. */
export const SimUnreachableInput = Type.Object({ unreachable: Type.Boolean() });
export type SimUnreachableInput = Static<typeof SimUnreachableInput>;

export const SimAccountResult = Type.Object({ phone: Type.String(), status: StringEnum(ACCOUNT_STATUSES) }, { title: 'SimAccount' });
export type SimAccountResult = Static<typeof SimAccountResult>;

export const SimReceiveResult = Type.Object({ message_uid: Type.String(), chat_id: Type.Integer() }, { title: 'SimReceived' });
export type SimReceiveResult = Static<typeof SimReceiveResult>;

export const SimReactResult = Type.Object({ message_uid: Type.String(), reactions: StringMap() }, { title: 'SimReaction' });
export type SimReactResult = Static<typeof SimReactResult>;

export const SimUnreachableResult = Type.Object({ phone: Type.String(), unreachable: Type.Boolean() }, { title: 'SimUnreachable' });
export type SimUnreachableResult = Static<typeof SimUnreachableResult>;

/** Support-side settings (`svc admin workspace ...`): taken by the local engine only, never over HTTP. */
export interface AdminWorkspaceCreateInput {
  name: string;
  quota?: number;
  plan?: Plan;
  seats?: number;
  owner_email?: string;
}

export interface AdminWorkspaceUpdateInput {
  quota?: number;
  plan?: Plan;
  /** Business plan only; null restores the default random spacing. */
  send_interval_ms?: number | null;
  /** Where failure notices go; null removes the address. */
  owner_email?: string | null;
  /** Storage quota in MiB; null restores the server's default (1 GiB). */
  storage_mb?: number | null;
}

export interface CreatedWorkspace {
  workspace_id: number;
  token: string;
}

/** Controls of the simulated network for one workspace: the engine's, and every client's (served under `/sim`). */
export interface SimControls {
  connect(input: SimConnectInput): Promise<SimAccountResult>;
  receive(input: SimReceiveInput): Promise<SimReceiveResult>;
  react(input: SimReactInput): Promise<SimReactResult>;
  disconnect(phone: string): Promise<SimAccountResult>;
  suspend(phone: string): Promise<SimAccountResult>;
  resume(phone: string): Promise<SimAccountResult>;
  /** Marks a contact number as unreachable (or reachable again) on the simulated network. */
  setUnreachable(phone: string, unreachable: boolean): Promise<SimUnreachableResult>;
}

/** A file's bytes as a pre-signed download link serves them. */
export interface DownloadedFile {
  filename: string;
  mimetype: string;
  content: Buffer;
}
