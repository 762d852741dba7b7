import type { QueueStats } from './engine-metrics.js';
import type {
  AdminWorkspaceCreateInput,
  AdminWorkspaceUpdateInput,
  AttachmentTemplateDto,
  ChatDto,
  ChatUpdateInput,
  CreatedWorkspace,
  DownloadedFile,
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
import type { Clock } from '../wire/clock.js';
import type { CreatedPartner } from '../wire/partner-types.js';
import type { PartnerDirectory, PartnerApi, ConnectApi } from './partner/partner-api.js';
import type { WebhookSubscriptionsApi } from './webhooks/subscriptions.js';
import type { ListenSessionsApi } from './webhooks/listen-sessions.js';
import type { UrlPolicyMode } from '../webhooks/url-policy.js';
import type { SlotReservations } from '../store/rate-limit-store.js';
import type { InstanceSettingsDto, InstanceSettingsUpdate } from './instance-settings.js';

/** Kept in the bottom layer so `files.ts` needs nothing of this file; re-exported for the API's users. */
export type { DownloadedFile };

export type { ConnectApi, PartnerApi, PartnerDirectory } from './partner/partner-api.js';

/**
 * What the engine offers to its two callers, the HTTP layer and the local client. Every method that touches
 * the database returns a Promise (the store may be SQLite or PostgreSQL); each rejects with SvcError for
 * anything a caller can get wrong.
 */
export interface Engine {
  readonly clock: Clock;
  /** Which webhook URLs subscriptions may name (`dev`: http and private hosts too); the OpenAPI document states it. */
  readonly webhookUrlPolicy: UrlPolicyMode;
  /**
   * The workspace a Public API token belongs to, or null (hash lookup, constant-time compare). `recall`: may
   * answer from the tokens this process found live in the last minute, without asking the database; only for a
   * request whose sends then check the token again (`workspace(id, { token })`), so a revoked one still fails.
   */
  authenticate(token: string, options?: { recall?: boolean }): Promise<number | null>;
  /** The Local workspace of the embedded engine, created with a token, a sim account and a quota on first use. */
  ensureLocalWorkspace(): Promise<CreatedWorkspace>;
  /**
   * Public API operations of one workspace. `linkBase` is the origin that download links start with. `token`:
   * the request's token, when `authenticate` may have let it in from memory; its sends are refused
   * (unauthorized) and write nothing unless the token is still live when their batch runs.
   */
  workspace(workspaceId: number, options?: { linkBase?: string; token?: string }): WorkspaceApi;
  /** Webhook subscriptions, deliveries and test events of one workspace. */
  webhooks(workspaceId: number): WebhookSubscriptionsApi;
  /** `svc webhooks listen` sessions of one workspace: deliveries handed to a listener instead of POSTed. */
  listen(workspaceId: number): ListenSessionsApi;
  /**
   * Controls of the simulated network for one workspace (only while the sim driver is in use). `token`: as for
   * `workspace`, checked again by the write of a received message.
   */
  sim(workspaceId: number, options?: { token?: string }): SimApi;
  admin: AdminApi;
  /** Partner API authentication: looks a Partner ID's secret up, so the HTTP edge can verify its JWT. */
  partners: PartnerDirectory;
  /** Partner API operations of one authenticated partner (by Partner ID); `linkBase` starts QR links. */
  partner(partnerId: string, options?: { linkBase?: string }): PartnerApi;
  /** QR connection links: the connect page's state and the simulated phone's scan. */
  connect: ConnectApi;
  /** Serves a pre-signed download; throws not_found for a bad or expired signature. */
  download(uid: string, expires: number, signature: string): Promise<DownloadedFile>;
  workers: WorkerControl;
  /**
   * Calls `handler` with each wake-up of this engine's work, made in this process or (PostgreSQL) by any
   * replica: `send`, `webhooks` (deliveries queued, which listen streams follow), `connect` (a QR link
   * changed), `*` (the notification connection came back: anything may have changed). Returns the unsubscribe.
   */
  onWake(handler: (topic: string) => void): () => void;
  /**
   * The rate-limit counters every replica shares, from which a replica reserves slots in batches; present on
   * PostgreSQL only (one SQLite server counts in memory).
   */
  readonly sharedRateLimits?: SlotReservations;
  /** Depths of the queues right now, read from the database (every process's work counts). */
  queueStats(): Promise<QueueStats>;
  /**
   * Sets the origin of the links the engine builds on its own (webhook `chat_url`, attachment links), which
   * no request origin is known for: `svc serve` passes its real listening URL when no --public-url was given.
   */
  usePublicUrl(url: string): void;
  /** Resolves when the database answers (readiness); rejects with `unavailable` when it does not. */
  checkDatabase(): Promise<void>;
  close(): Promise<void>;
}

export interface WorkspaceApi {
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
}

export type SimApi = SimControls;

export interface AdminApi {
  createWorkspace(input: AdminWorkspaceCreateInput): Promise<CreatedWorkspace>;
  updateWorkspace(workspaceId: number, input: AdminWorkspaceUpdateInput): Promise<WorkspaceDto>;
  /** Issues a partner record (`email` gets its failing-webhook notices); its secret is returned this once. */
  createPartner(input: { name: string; email?: string }): Promise<CreatedPartner>;
  /** The instance's own rules (webhook URL policy, retry schedule), which every process opening it follows. */
  instanceSettings(): Promise<InstanceSettingsDto>;
  /** Changes them; processes already running keep what they read when they opened the instance. */
  updateInstanceSettings(update: InstanceSettingsUpdate): Promise<InstanceSettingsDto>;
}


/** Background work of this process: the send dispatcher and webhook delivery, each on its own loop. */
export interface WorkerControl {
  /** Starts polling with real timers. Idempotent. */
  start(): void;
  /** Stops claiming new work and waits for work in flight. */
  stop(): Promise<void>;
  /** Processes everything due at the clock's current time, then resolves with how many jobs ran. */
  runDue(): Promise<number>;
}
