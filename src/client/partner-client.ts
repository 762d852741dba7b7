import type {
  ApiTokenDto,
  DisconnectResult,
  PartnerDto,
  PartnerUserDto,
  PartnerWorkspaceCreateInput,
  PartnerWorkspaceDto,
  PartnerWorkspaceUpdateInput,
  QrLinkCreateInput,
  QrLinkDto,
} from '../wire/partner-types.js';
import type { Page } from '../wire/types.js';
import type { WebhooksClient } from './client.js';
import type { ListenClient } from './listen-client.js';

/**
 * The one interface `svc partner ...` talks to: the local engine on a data directory, or a remote Partner API
 * over HTTP (a fresh short-lived JWT per request). `createPartnerClient` picks one; commands never know which.
 */
export interface PartnerClient {
  /** Where requests go, for messages. */
  readonly target: string;
  describe(): Promise<PartnerDto>;
  createWorkspace(input: PartnerWorkspaceCreateInput): Promise<PartnerWorkspaceDto>;
  getWorkspace(workspaceId: number): Promise<PartnerWorkspaceDto>;
  updateWorkspace(workspaceId: number, input: PartnerWorkspaceUpdateInput): Promise<PartnerWorkspaceDto>;
  createUsers(workspaceId: number, count: number): Promise<PartnerUserDto[]>;
  listUsers(workspaceId: number, page?: number): Promise<Page<PartnerUserDto>>;
  createQrLink(workspaceId: number, userId: number, input?: QrLinkCreateInput): Promise<QrLinkDto>;
  disconnectAccount(workspaceId: number, userId: number): Promise<DisconnectResult>;
  getApiToken(workspaceId: number): Promise<ApiTokenDto>;
  rotateApiToken(workspaceId: number): Promise<ApiTokenDto>;
  /** The partner's own webhook subscriptions (`/partner/webhooks`), partner events only. */
  readonly webhooks: WebhooksClient;
  /** `svc partner webhooks listen` sessions: partner events handed to this process instead of POSTed. */
  readonly listen: ListenClient;
  close(): Promise<void>;
}

/** What picks and configures a partner client: a Partner API base URL means remote, otherwise the local engine. */
export interface PartnerClientConfig {
  /** e.g. `http://127.0.0.1:8080/partner`. */
  baseUrl?: string | undefined;
  partnerId: string;
  partnerSecret: string;
  /** Data directory of the local engine. */
  dataDir: string;
  /** A `postgres://` URL: the local engine runs on that database instead of `dataDir`. */
  databaseUrl?: string | undefined;
  /** Longest wait for an answer: an HTTP request, or another process's SQLite write lock. */
  timeoutMs?: number | undefined;
  /** Start the local engine's workers (default true). */
  workers?: boolean | undefined;
}
