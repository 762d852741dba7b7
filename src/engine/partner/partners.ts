import { timingSafeEqual } from 'node:crypto';
import type {
  ApiTokenDto,
  CreatedPartner,
  PartnerDto,
  PartnerWorkspaceCreateInput,
  PartnerWorkspaceDto,
  PartnerWorkspaceUpdateInput,
} from '../../wire/partner-types.js';
import { generatePartnerCredentials } from '../../partner/partner-credentials.js';
import type { PartnerRow } from '../../store/partner-store.js';
import type { WorkspaceRow } from '../../store/workspace-store.js';
import { isoTime } from '../../wire/clock.js';
import { inWriteTransaction, type EngineContext } from '../context.js';
import { quotaPeriod, rollQuotaPeriod } from '../credits.js';
import { conflict, invalid, notFound, SvcError } from '../../wire/errors.js';
import { emitPartnerEvent } from './alerts.js';
import { issueToken } from '../tokens.js';
import { checkOwnerEmail, createWorkspace } from '../workspaces.js';

const MAX_NAME = 200;
const MAX_SEATS = 100_000;

/** Issues a partner record out of band (`svc admin partner create`); the secret is shown this once. */
export async function createPartner(ctx: EngineContext, input: { name: string; email?: string }): Promise<CreatedPartner> {
  const name = checkName(input.name, 'name');
  const email = checkOwnerEmail(input.email ?? null);
  const credentials = generatePartnerCredentials();
  await inWriteTransaction(ctx, (tx) =>
    tx.stores.partners.insertPartner({ publicId: credentials.partner_id, name, secret: credentials.partner_secret, email, now: tx.clock.now() }),
  );
  return { ...credentials, name };
}

/** The secret that verifies a partner's JWTs, or null for an unknown or disabled Partner ID. */
export const partnerSecret = async (ctx: EngineContext, publicId: string): Promise<string | null> =>
  (await ctx.stores.partners.byPublicId(publicId))?.secret ?? null;

/** True when `secret` is the partner's secret (constant-time), for the local partner client. */
export async function partnerSecretMatches(ctx: EngineContext, publicId: string, secret: string): Promise<boolean> {
  const stored = await partnerSecret(ctx, publicId);
  if (stored === null) return false;
  const a = Buffer.from(stored);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The partner row of an authenticated Partner ID; unauthorized when it disappeared meanwhile. */
export async function partnerRow(ctx: EngineContext, publicId: string): Promise<PartnerRow> {
  const row = await ctx.stores.partners.byPublicId(publicId);
  if (row === undefined) throw new SvcError('unauthorized', `Partner ${publicId} is unknown or disabled`);
  return row;
}

export const partnerDto = (row: PartnerRow): PartnerDto => ({ partner_id: row.public_id, name: row.name, created_at: isoTime(row.created_at) });

/**
 * A workspace of this partner. Another partner's workspace answers not_found, exactly like a missing one,
 * so ids of other partners' workspaces cannot be probed.
 */
export async function partnerWorkspace(ctx: EngineContext, partnerId: number, workspaceId: number): Promise<WorkspaceRow> {
  const row = await ctx.stores.partners.workspaceOf(workspaceId, partnerId);
  if (row === undefined) throw notFound(`workspace ${workspaceId}`);
  return row;
}

export async function createPartnerWorkspace(ctx: EngineContext, partnerId: number, input: PartnerWorkspaceCreateInput): Promise<PartnerWorkspaceDto> {
  const name = checkName(input.display_name, 'display_name');
  const seats = checkSeats(input.seats_purchased);
  const created = await createWorkspace(ctx, { name, seats, partnerId });
  return partnerWorkspaceDto(ctx, partnerId, created.workspace_id);
}

export async function partnerWorkspaceDto(ctx: EngineContext, partnerId: number, workspaceId: number): Promise<PartnerWorkspaceDto> {
  // The quota period rolls over on read; the seats in use are read in the same transaction.
  const { row, seatsUsed } = await inWriteTransaction(ctx, async (tx) => {
    const current = await rollQuotaPeriod(tx.stores.workspaces, await partnerWorkspace(tx, partnerId, workspaceId), tx.clock.now());
    return { row: current, seatsUsed: await tx.stores.workspaces.seatsUsed(current.id) };
  });
  return {
    workspace_id: row.id,
    display_name: row.name,
    seats_purchased: row.seats_purchased,
    seats_used: seatsUsed,
    messaging_quota: {
      total: row.quota_total,
      used: row.quota_used,
      remaining: Math.max(0, row.quota_total - row.quota_used),
      period_start: isoTime(row.quota_period_start),
      period_end: isoTime(quotaPeriod(row.created_at, row.quota_period_start).end),
    },
    created_at: isoTime(row.created_at),
  };
}

/** Renames and resizes; seats go up or down but never below the seats in use (409). */
export async function updatePartnerWorkspace(
  ctx: EngineContext,
  partnerId: number,
  workspaceId: number,
  input: PartnerWorkspaceUpdateInput,
): Promise<PartnerWorkspaceDto> {
  // The seat count check and the write share one transaction: users added meanwhile cannot slip under it.
  await inWriteTransaction(ctx, async (tx) => {
    const row = await partnerWorkspace(tx, partnerId, workspaceId);
    const name = input.display_name === undefined ? row.name : checkName(input.display_name, 'display_name');
    const seats = input.seats_purchased === undefined ? row.seats_purchased : checkSeats(input.seats_purchased);
    const used = await tx.stores.workspaces.seatsUsed(workspaceId);
    if (seats < used) {
      throw conflict(`seats_purchased cannot go below the ${used} seats in use`, `pass --seats ${used} or more`);
    }
    await tx.stores.partners.updateWorkspace(workspaceId, name, seats);
  });
  return partnerWorkspaceDto(ctx, partnerId, workspaceId);
}

/** The workspace's current Public API token; it never expires until rotated (docs/api-behaviour.md). */
export function getApiToken(ctx: EngineContext, partnerId: number, workspaceId: number): Promise<ApiTokenDto> {
  return inWriteTransaction(ctx, async (tx) => {
    await partnerWorkspace(tx, partnerId, workspaceId);
    // A workspace always has a token from creation; issuing one here only heals a database edited by hand.
    if ((await tx.stores.partners.activeToken(workspaceId)) === undefined) await issueToken(tx.stores.workspaces, workspaceId, tx.clock.now());
    const token = (await tx.stores.partners.activeToken(workspaceId))!;
    return tokenDto(workspaceId, token.token, token.created_at);
  });
}

const tokenDto = (workspaceId: number, token: string, createdAt: number): ApiTokenDto => ({
  workspace_id: workspaceId,
  token,
  api_token: token,
  created_at: isoTime(createdAt),
});

/** Issues a new token and revokes the old one in the same transaction, so the old one fails on the next request. */
export function rotateApiToken(ctx: EngineContext, partnerId: number, workspaceId: number): Promise<ApiTokenDto> {
  return inWriteTransaction(ctx, async (tx) => {
    await partnerWorkspace(tx, partnerId, workspaceId);
    const now = tx.clock.now();
    const token = await issueToken(tx.stores.workspaces, workspaceId, now);
    await emitPartnerEvent(tx, workspaceId, 'api-token:rotated', { rotated_at: isoTime(now) });
    return tokenDto(workspaceId, token, now);
  });
}

function checkName(value: unknown, field: string): string {
  const name = typeof value === 'string' ? value.trim() : '';
  if (name.length === 0 || name.length > MAX_NAME) throw invalid(`${field} must be 1 to ${MAX_NAME} characters`);
  return name;
}

function checkSeats(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > MAX_SEATS) {
    throw invalid(`seats_purchased must be a whole number from 0 to ${MAX_SEATS}`);
  }
  return value;
}
