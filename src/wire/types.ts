/**
 * Wire shapes of the Public API: what `data` holds in an `{status:"ok", data}` envelope.
 * The engine returns exactly these objects, the HTTP layer serialises them, and both clients return them,
 * so a command cannot tell the local engine from a remote server.
 */

/** A message's states, in the order it passes them; the API documents and the store's type derive from this. */
export const MESSAGE_STATUSES = ['Pending', 'Sending', 'Sent', 'Failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
export type Direction = 'sent' | 'received';
export type AccountStatus = 'connected' | 'disconnected' | 'suspended';
export type Plan = 'standard' | 'business';

/** A page of a list: `?page=N` from 1, 50 items a page. */
export interface Page<T> {
  items: T[];
  page: number;
  has_more_pages: boolean;
}

/** Fields shared by every send endpoint (docs/api-behaviour.md). */
export interface SendFields {
  text?: string;
  file_uid?: string;
  label?: string;
  attachment_template_id?: number;
  reply_to?: string | null;
}

/** POST /messages (docs/api-behaviour.md). */
export interface SendToPhoneInput extends SendFields {
  phone: string;
  messenger_account_phone?: string;
  chat_name?: string;
}

/** POST /messages/to_chat_name (docs/api-behaviour.md, deprecated). */
export interface SendToChatNameInput extends SendFields {
  chat_name: string;
}

/** POST /chats/{id}/messages (docs/api-behaviour.md). */
export type SendToChatInput = SendFields;

/** `data` of a send response: docs/api-behaviour.md plus what the queue decided. */
export interface SendResult {
  message_uid: string;
  status: MessageStatus;
  chat_id: number;
  credits: number;
}

export interface MessageDto {
  uid: string;
  chat_id: number;
  direction: Direction;
  status: MessageStatus;
  failure_reason: string | null;
  text: string | null;
  file_uid: string | null;
  attachment_template_id: number | null;
  /** Present only when the message replies to another one. */
  reply_to_uid?: string;
  messenger_account_phone: string;
  contact_phone: string;
  credits: number;
  reactions: Record<string, string> | null;
  created_at: string;
  sent_at: string | null;
}

export interface ChatDto {
  id: number;
  name: string;
  phone: string;
  is_group: boolean;
  messenger_account_phone: string;
  /** Present only while the chat is assigned (both, or neither). */
  responsible_email?: string;
  responsible_name?: string;
  labels: string[];
  created_at: string;
}

/** PATCH /chats/{id}: `responsible` "" unassigns. */
export interface ChatUpdateInput {
  name?: string;
  responsible?: string;
}

export interface MessengerAccountDto {
  id: number;
  phone: string;
  full_name: string;
  email: string;
  status: AccountStatus;
  connected_at: string | null;
  is_default_sender: boolean;
}

export interface MessagingQuotaDto {
  total: number;
  used: number;
  remaining: number;
  period: 'month';
  period_start: string;
  period_end: string;
}

export interface WorkspaceDto {
  id: number;
  name: string;
  plan: Plan;
  seats_purchased: number;
  seats_used: number;
  send_interval_ms: number | null;
  messaging_quota: MessagingQuotaDto;
  /** Bytes of live files: the quota (`svc admin workspace update --storage-mb`) and what is in use. */
  storage: { limit_bytes: number; used_bytes: number };
  created_at: string;
}

export interface FileDto {
  uid: string;
  filename: string;
  mimetype: string;
  size: number;
  created_at: string;
  /** Present on GET /files/{uid}: pre-signed, valid 15 minutes. */
  temporary_download_url?: string;
  expires_at?: string;
}

export interface FileUploadInput {
  filename: string;
  mimetype: string;
  content: Uint8Array;
}

export interface AttachmentTemplateDto {
  id: number;
  name: string;
  file_uid: string;
  created_at: string;
}

export interface TemplateCreateInput {
  name: string;
  file_uid: string;
}

/** Simulated network controls (`/sim`, `svc sim ...`). */
export interface SimReceiveInput {
  from: string;
  to: string;
  text?: string;
  file_uid?: string;
  reply_to?: string;
  contact_name?: string;
}

export interface SimReactInput {
  message_uid: string;
  emoji: string;
  from?: string;
}

export interface SimConnectInput {
  phone: string;
  full_name?: string;
  email?: string;
}

export interface SimAccountResult {
  phone: string;
  status: AccountStatus;
}

export interface SimReceiveResult {
  message_uid: string;
  chat_id: number;
}

/** Support-side settings (`svc admin workspace ...`). */
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
  react(input: SimReactInput): Promise<{ message_uid: string; reactions: Record<string, string> }>;
  disconnect(phone: string): Promise<SimAccountResult>;
  suspend(phone: string): Promise<SimAccountResult>;
  resume(phone: string): Promise<SimAccountResult>;
  /** Marks a contact number as unreachable (or reachable again) on the simulated network. */
  setUnreachable(phone: string, unreachable: boolean): Promise<{ phone: string; unreachable: boolean }>;
}

/** A file's bytes as a pre-signed download link serves them. */
export interface DownloadedFile {
  filename: string;
  mimetype: string;
  content: Buffer;
}
