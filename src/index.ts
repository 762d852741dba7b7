/**
 * `import ... from 'svc'`: the typed HTTP clients the CLI uses, and receiver-side verification. The in-process
 * sandbox for tests is `svc/testing`.
 */
import type { Dispatcher } from 'undici';
import type { SvcClient as SvcClientApi } from './client/client.js';
import { createHttpClient, type HttpClientOptions } from './client/http-client.js';
import type { PartnerClient as PartnerClientApi } from './client/partner-client.js';
import { createPartnerHttpClient } from './client/partner-http-client.js';

export type * from './wire/types.js';
export type * from './wire/partner-types.js';
export type * from './wire/webhook-types.js';
export type {
  AccountEventPayload,
  AccountEventType,
  AccountPayload,
  ChatEventPayload,
  ChatEventType,
  ChatPayload,
  EventType,
  MessageAttachment,
  MessageEventPayload,
  MessageEventType,
  MessageParty,
  MessagePayload,
  PartnerEventData,
  PartnerEventPayload,
  PartnerEventType,
  PartnerQuotaData,
  PartnerWebhookEvent,
  WebhookEvent,
  WebhookEventOf,
  WebhookEventType,
  WorkspaceWebhookEvent,
  WorkspaceWebhookEventOf,
} from './wire/webhook-events.js';
export { SvcError, type ErrorCode } from './wire/errors.js';
export { WebhookVerificationError, verifyPartnerWebhook, verifyWebhook, type VerifyPartnerWebhookInput, type VerifyWebhookInput } from './verify.js';
export type { HttpClientOptions };

/** The Public API client: `new SvcClient({ baseUrl: 'http://127.0.0.1:8080/api', token })`. */
export type SvcClient = SvcClientApi;
export const SvcClient = function SvcClient(options: HttpClientOptions) {
  return createHttpClient(options);
} as unknown as new (options: HttpClientOptions) => SvcClientApi;

export interface PartnerClientOptions {
  /** The Partner API base, e.g. `http://127.0.0.1:8080/partner`. */
  baseUrl: string;
  partnerId: string;
  partnerSecret: string;
  dispatcher?: Dispatcher;
  timeoutMs?: number;
}

/** The Partner API client; it signs a fresh JWT for every request: `new PartnerClient({ baseUrl, partnerId, partnerSecret })`. */
export type PartnerClient = PartnerClientApi;
export const PartnerClient = function PartnerClient(options: PartnerClientOptions) {
  return createPartnerHttpClient(options);
} as unknown as new (options: PartnerClientOptions) => PartnerClientApi;
