import type {
  AttachmentTemplateDto,
  ChatDto,
  ChatUpdateInput,
  FileDto,
  FileUploadInput,
  MessageDto,
  MessengerAccountDto,
  Page,
  SendResult,
  SendToChatInput,
  SendToChatNameInput,
  SendToPhoneInput,
  SimControls,
  TemplateCreateInput,
  WorkspaceDto,
} from '../wire/types.js';
import type {
  TriggeredEventDto,
  CreatedWebhookDto,
  DeletedWebhookDto,
  WebhookCreateInput,
  WebhookDeliveryDto,
  WebhookDto,
  WebhookSecretDto,
  WebhookUpdateInput,
} from '../wire/webhook-types.js';
import type { ListenClient } from './listen-client.js';
import type { SimScanInput, SimScanResult } from '../wire/partner-types.js';

/**
 * The one interface every command talks to. `createClient` returns either the local embedded engine or
 * the HTTP implementation; commands never learn which. Every failure is thrown as an SvcError.
 */
export interface SvcClient {
  /** Where requests go, for messages such as "sent via http://127.0.0.1:8080/api". */
  readonly target: string;

  sendToPhone(input: SendToPhoneInput): Promise<SendResult>;
  sendToChatName(input: SendToChatNameInput): Promise<SendResult>;
  sendToChat(chatId: number, input: SendToChatInput): Promise<SendResult>;
  getMessage(uid: string): Promise<MessageDto>;

  listChats(page?: number): Promise<Page<ChatDto>>;
  getChat(chatId: number): Promise<ChatDto>;
  updateChat(chatId: number, input: ChatUpdateInput): Promise<ChatDto>;
  listChatMessages(chatId: number, page?: number): Promise<Page<MessageDto>>;

  uploadFile(input: FileUploadInput): Promise<FileDto>;
  listFiles(page?: number): Promise<Page<FileDto>>;
  getFile(uid: string): Promise<FileDto>;
  deleteFile(uid: string): Promise<{ deleted: true; uid: string }>;

  listAccounts(page?: number): Promise<Page<MessengerAccountDto>>;
  getWorkspace(): Promise<WorkspaceDto>;

  listTemplates(page?: number): Promise<Page<AttachmentTemplateDto>>;
  createTemplate(input: TemplateCreateInput): Promise<AttachmentTemplateDto>;

  sim: SimClient;
  /** Webhook subscriptions of the workspace, their attempt log, redelivery and test events. */
  webhooks: WebhooksClient;
  /** `svc webhooks listen` sessions: deliveries handed to this process instead of POSTed. */
  listen: ListenClient;

  /** Releases what the client holds (the engine's database, HTTP connections). */
  close(): Promise<void>;
}

/** Controls of the simulated network, served under `/sim` by `svc serve`. */
export interface SimClient extends SimControls {
  /** The simulated phone scans a partner QR link and connects as that link's user. */
  scan(input: SimScanInput): Promise<SimScanResult>;
}

/** Webhook subscriptions of one scope (a workspace, or a partner under /partner). */
export interface WebhooksClient {
  list(page?: number): Promise<Page<WebhookDto>>;
  create(input: WebhookCreateInput): Promise<CreatedWebhookDto>;
  get(id: number): Promise<WebhookDto>;
  update(id: number, input: WebhookUpdateInput): Promise<WebhookDto>;
  delete(id: number): Promise<DeletedWebhookDto>;
  secret(id: number): Promise<WebhookSecretDto>;
  deliveries(id: number, page?: number): Promise<Page<WebhookDeliveryDto>>;
  /** Queues one delivery again, keeping its `webhook-id`. */
  redeliver(id: number, deliveryId: number): Promise<WebhookDeliveryDto>;
  /** Queues a sample event of the subscription's type, signed and delivered like any other. */
  test(id: number): Promise<WebhookDeliveryDto>;
  /** Fires a sample event of `eventType` to every enabled subscription and listen session that takes it. */
  trigger(eventType: string): Promise<TriggeredEventDto>;
}
