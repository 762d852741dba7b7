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
} from '../wire/partner-types.js';
import type { Page } from '../wire/types.js';
import type { EngineContext } from './context.js';
import { createUsers, disconnectUser, listUsers } from './partner-users.js';
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
import { partnerSubscriptions, type WebhookSubscriptionsApi } from './webhook-subscriptions.js';
import { partnerListenSessions, type ListenSessionsApi } from './listen-sessions.js';

/** How the Partner API's edge finds partners. */
export interface PartnerDirectory {
  /** The secret a Partner ID's JWTs are signed with, or null for an unknown or disabled partner. */
  secretOf(partnerId: string): string | null;
  /** Constant-time check of a Partner ID and Secret (the local partner client has no JWT to verify). */
  verifySecret(partnerId: string, secret: string): boolean;
}

/** The Partner API of one partner; a workspace of another partner is not_found everywhere. */
export interface PartnerApi {
  describe(): PartnerDto;
  createWorkspace(input: PartnerWorkspaceCreateInput): PartnerWorkspaceDto;
  getWorkspace(workspaceId: number): PartnerWorkspaceDto;
  updateWorkspace(workspaceId: number, input: PartnerWorkspaceUpdateInput): PartnerWorkspaceDto;
  createUsers(workspaceId: number, input: PartnerUsersCreateInput): PartnerUserDto[];
  listUsers(workspaceId: number, page?: number): Page<PartnerUserDto>;
  createQrLink(workspaceId: number, userId: number, input: QrLinkCreateInput): QrLinkDto;
  disconnectAccount(workspaceId: number, userId: number): DisconnectResult;
  getApiToken(workspaceId: number): ApiTokenDto;
  rotateApiToken(workspaceId: number): ApiTokenDto;
  /** The partner's own webhook subscriptions (DESIGN.md 5): partner events only, invisible to other partners. */
  webhooks(): WebhookSubscriptionsApi;
  /** `svc partner webhooks listen` sessions of the partner: partner events handed to a listener. */
  listen(): ListenSessionsApi;
}

/** QR links as the connect page and the simulated phone see them; the link code is the credential. */
export interface ConnectApi {
  snapshot(code: string): ConnectSnapshot | null;
  scan(input: SimScanInput): SimScanResult;
}

export const createPartnerDirectory = (ctx: EngineContext): PartnerDirectory => ({
  secretOf: (partnerId) => partnerSecret(ctx, partnerId),
  verifySecret: (partnerId, secret) => partnerSecretMatches(ctx, partnerId, secret),
});

/** The scoped facade; the partner is looked up per call so a disabled partner stops at once. */
export function createPartnerApi(ctx: EngineContext, publicId: string, linkBase: string): PartnerApi {
  const id = () => partnerRow(ctx, publicId).id;
  return {
    describe: () => partnerDto(partnerRow(ctx, publicId)),
    createWorkspace: (input) => createPartnerWorkspace(ctx, id(), input),
    getWorkspace: (ws) => partnerWorkspaceDto(ctx, id(), ws),
    updateWorkspace: (ws, input) => updatePartnerWorkspace(ctx, id(), ws, input),
    createUsers: (ws, input) => createUsers(ctx, id(), ws, input),
    listUsers: (ws, page) => listUsers(ctx, id(), ws, page),
    createQrLink: (ws, user, input) => createQrLink(ctx, id(), ws, user, input, linkBase),
    disconnectAccount: (ws, user) => disconnectUser(ctx, id(), ws, user),
    getApiToken: (ws) => getApiToken(ctx, id(), ws),
    rotateApiToken: (ws) => rotateApiToken(ctx, id(), ws),
    webhooks: () => partnerSubscriptions(ctx, id()),
    listen: () => partnerListenSessions(ctx, id()),
  };
}

export const createConnectApi = (ctx: EngineContext): ConnectApi => ({
  snapshot: (code) => connectSnapshot(ctx, code),
  scan: (input) => scanQrLink(ctx, input),
});
