import type {
  ApiTokenDto,
  DisconnectResult,
  PartnerDto,
  PartnerUserDto,
  PartnerUsersCreateInput,
  PartnerWorkspaceCreateInput,
  PartnerWorkspaceDto,
  PartnerWorkspaceUpdateInput,
  QrLinkCreateInput,
  QrLinkDto,
  SimScanInput,
  SimScanResult,
} from '../../wire/partner-types.js';
import type { Page } from '../../wire/types.js';
import type { EngineContext } from '../context.js';
import { createUsers, disconnectUser, listUsers } from './users.js';
import {
  createPartnerWorkspace,
  getApiToken,
  partnerDto,
  partnerRow,
  partnerSecret,
  partnerSecretMatches,
  partnerWorkspaceDto,
  rotateApiToken,
  updatePartnerWorkspace,
} from './partners.js';
import { connectSnapshot, createQrLink, scanQrLink, type ConnectSnapshot } from './qr-links.js';
import { partnerSubscriptions, type WebhookSubscriptionsApi } from '../webhooks/subscriptions.js';
import { partnerListenSessions, type ListenSessionsApi } from '../webhooks/listen-sessions.js';

/** How the Partner API's edge finds partners. */
export interface PartnerDirectory {
  /** The secret a Partner ID's JWTs are signed with, or null for an unknown or disabled partner. */
  secretOf(partnerId: string): Promise<string | null>;
  /** Constant-time check of a Partner ID and Secret (the local partner client has no JWT to verify). */
  verifySecret(partnerId: string, secret: string): Promise<boolean>;
}

/** The Partner API of one partner; a workspace of another partner is not_found everywhere. */
export interface PartnerApi {
  describe(): Promise<PartnerDto>;
  createWorkspace(input: PartnerWorkspaceCreateInput): Promise<PartnerWorkspaceDto>;
  getWorkspace(workspaceId: number): Promise<PartnerWorkspaceDto>;
  updateWorkspace(workspaceId: number, input: PartnerWorkspaceUpdateInput): Promise<PartnerWorkspaceDto>;
  createUsers(workspaceId: number, input: PartnerUsersCreateInput): Promise<PartnerUserDto[]>;
  listUsers(workspaceId: number, page?: number): Promise<Page<PartnerUserDto>>;
  createQrLink(workspaceId: number, userId: number, input: QrLinkCreateInput): Promise<QrLinkDto>;
  disconnectAccount(workspaceId: number, userId: number): Promise<DisconnectResult>;
  getApiToken(workspaceId: number): Promise<ApiTokenDto>;
  rotateApiToken(workspaceId: number): Promise<ApiTokenDto>;
  /**
   * The partner's own webhook subscriptions (docs/api-behaviour.md): partner events only, invisible to other partners.
   * Each operation looks the partner up first (unauthorized once it is disabled).
   */
  webhooks(): WebhookSubscriptionsApi;
  /** `svc partner webhooks listen` sessions of the partner: partner events handed to a listener. */
  listen(): ListenSessionsApi;
}

/** QR links as the connect page and the simulated phone see them; the link code is the credential. */
export interface ConnectApi {
  snapshot(code: string): Promise<ConnectSnapshot | null>;
  scan(input: SimScanInput): Promise<SimScanResult>;
}

export const createPartnerDirectory = (ctx: EngineContext): PartnerDirectory => ({
  secretOf: (partnerId) => partnerSecret(ctx, partnerId),
  verifySecret: (partnerId, secret) => partnerSecretMatches(ctx, partnerId, secret),
});

/** The scoped facade; the partner is looked up per call so a disabled partner stops at once. */
export function createPartnerApi(ctx: EngineContext, publicId: string, linkBase: string): PartnerApi {
  const id = async (): Promise<number> => (await partnerRow(ctx, publicId)).id;
  return {
    describe: async () => partnerDto(await partnerRow(ctx, publicId)),
    createWorkspace: async (input) => createPartnerWorkspace(ctx, await id(), input),
    getWorkspace: async (ws) => partnerWorkspaceDto(ctx, await id(), ws),
    updateWorkspace: async (ws, input) => updatePartnerWorkspace(ctx, await id(), ws, input),
    createUsers: async (ws, input) => createUsers(ctx, await id(), ws, input),
    listUsers: async (ws, page) => listUsers(ctx, await id(), ws, page),
    createQrLink: async (ws, user, input) => createQrLink(ctx, await id(), ws, user, input, linkBase),
    disconnectAccount: async (ws, user) => disconnectUser(ctx, await id(), ws, user),
    getApiToken: async (ws) => getApiToken(ctx, await id(), ws),
    rotateApiToken: async (ws) => rotateApiToken(ctx, await id(), ws),
    webhooks: () => deferredSubscriptions(async () => partnerSubscriptions(ctx, await id())),
    listen: () => deferredListenSessions(async () => partnerListenSessions(ctx, await id())),
  };
}

/** Subscriptions whose scope (the partner's row id) is looked up when an operation runs, not before. */
function deferredSubscriptions(api: () => Promise<WebhookSubscriptionsApi>): WebhookSubscriptionsApi {
  return {
    list: async (page) => (await api()).list(page),
    create: async (input) => (await api()).create(input),
    get: async (id) => (await api()).get(id),
    update: async (id, input) => (await api()).update(id, input),
    delete: async (id) => (await api()).delete(id),
    secret: async (id) => (await api()).secret(id),
    deliveries: async (id, page) => (await api()).deliveries(id, page),
    redeliver: async (id, deliveryId) => (await api()).redeliver(id, deliveryId),
    test: async (id) => (await api()).test(id),
    trigger: async (eventType) => (await api()).trigger(eventType),
  };
}

/** Listen sessions whose scope is looked up when an operation runs, as for subscriptions. */
function deferredListenSessions(api: () => Promise<ListenSessionsApi>): ListenSessionsApi {
  return {
    secret: async () => (await api()).secret(),
    open: async (input) => (await api()).open(input),
    get: async (id) => (await api()).get(id),
    claim: async (id) => (await api()).claim(id),
    takeOver: async (id) => (await api()).takeOver(id),
    report: async (id, input, options) => (await api()).report(id, input, options),
    close: async (id) => (await api()).close(id),
  };
}

export const createConnectApi = (ctx: EngineContext): ConnectApi => ({
  snapshot: (code) => connectSnapshot(ctx, code),
  scan: (input) => scanQrLink(ctx, input),
});
