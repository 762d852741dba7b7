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
import type { WorkspaceApi } from '../engine/engine-api.js';
import type { ListenClient } from './listen-client.js';
import type { SimScanInput, SimScanResult } from '../wire/partner-types.js';

/**
 * The one interface every command talks to. `createClient` returns either the local embedded engine or
 * the HTTP implementation; commands never learn which. Every failure is thrown as an SvcError.
 */
export interface SvcClient extends WorkspaceApi {
  readonly target: string;
  sim: SimClient;
  webhooks: WebhooksClient;
  listen: ListenClient;

  close(): Promise<void>;
}

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
