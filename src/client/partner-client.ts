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
import type { PartnerApi } from '../engine/partner/partner-api.js';
import type { WebhooksClient } from './client.js';
import type { ListenClient } from './listen-client.js';

/**
 * The one interface `svc partner ...` talks to: the local engine on a data directory, or a remote Partner API
 * over HTTP (a fresh short-lived JWT per request). `createPartnerClient` picks one; commands never know which.
 */
export interface PartnerClient extends Omit<PartnerApi, 'createUsers' | 'createQrLink' | 'webhooks' | 'listen'> {
  /** Where requests go, for messages. */
  readonly target: string;
  /** A count rather than the API's body: the CLI's and SDK's form. */
  createUsers(workspaceId: number, count: number): Promise<PartnerUserDto[]>;
  /** The body may be left out (the link lives the default 24 hours). */
  createQrLink(workspaceId: number, userId: number, input?: QrLinkCreateInput): Promise<QrLinkDto>;
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
