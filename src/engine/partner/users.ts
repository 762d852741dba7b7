import type { DisconnectResult, PartnerUserDto, PartnerUsersCreateInput } from '../../wire/partner-types.js';
import type { Page } from '../../wire/types.js';
import type { PartnerUserRow } from '../../store/partner-store.js';
import { changeAccountStatus } from '../accounts.js';
import { isoTime } from '../../wire/clock.js';
import { inWriteTransaction, type EngineContext } from '../context.js';
import { invalid, notFound, SvcError } from '../../wire/errors.js';
import { pageOf } from '../paging.js';
import { checkSeatsAlert } from './alerts.js';
import { partnerWorkspace } from './partners.js';

/** Largest batch of users one request may create. */
export const MAX_USERS_PER_BATCH = 1000;

/**
 * Creates `count` placeholder users, one seat each, all or none. The seat check and the inserts share one
 * write transaction, so batches from any number of processes never overcommit the seats.
 */
export async function createUsers(ctx: EngineContext, partnerId: number, workspaceId: number, input: PartnerUsersCreateInput): Promise<PartnerUserDto[]> {
  const count = input.count;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 1 || count > MAX_USERS_PER_BATCH) {
    throw invalid(`count must be a whole number from 1 to ${MAX_USERS_PER_BATCH}`);
  }
  return inWriteTransaction(ctx, async (tx) => {
    const workspace = await partnerWorkspace(tx, partnerId, workspaceId);
    const used = await tx.stores.workspaces.seatsUsed(workspaceId);
    const free = workspace.seats_purchased - used;
    if (count > free) {
      throw new SvcError('seats_full', `Not enough free seats: ${count} requested, ${Math.max(0, free)} of ${workspace.seats_purchased} free`, {
        hint: `raise seats_purchased first (\`svc partner workspace update ${workspaceId} --seats N\`)`,
        details: { seats_purchased: workspace.seats_purchased, seats_used: used, requested: count },
      });
    }
    const now = tx.clock.now();
    const ids: number[] = [];
    for (let index = 0; index < count; index += 1) {
      // Placeholder users: the partner's own user records live on its side; no e-mail is known here.
      ids.push(await tx.stores.partners.insertUser({ workspaceId, name: `User ${used + index + 1}`, email: '', now }));
    }
    await checkSeatsAlert(tx, workspaceId, workspace.seats_purchased, now);
    const users: PartnerUserDto[] = [];
    for (const id of ids) users.push(userDto((await tx.stores.partners.userOf(id, workspaceId))!));
    return users;
  });
}

/** The workspace's users, 50 a page, in the `{items, page, has_more_pages}` shape of every list. */
export async function listUsers(ctx: EngineContext, partnerId: number, workspaceId: number, page = 1): Promise<Page<PartnerUserDto>> {
  await partnerWorkspace(ctx, partnerId, workspaceId);
  // Bounded by the seats of the workspace: one read, paged in memory.
  const rows = await ctx.stores.partners.usersOf(workspaceId);
  return pageOf(page, async (limit, offset) => rows.slice(offset, offset + limit), userDto);
}

/** A user of a partner's workspace, or not_found (also for another partner's workspace). */
export async function partnerUser(ctx: EngineContext, partnerId: number, workspaceId: number, userId: number): Promise<PartnerUserRow> {
  await partnerWorkspace(ctx, partnerId, workspaceId);
  const user = await ctx.stores.partners.userOf(userId, workspaceId);
  if (user === undefined) throw notFound(`user ${userId} in workspace ${workspaceId}`, `list users with \`svc partner users list ${workspaceId}\``);
  return user;
}

/** Logs the user's messenger account out. Without a connected account it is a no-op: `disconnected: false`. */
export function disconnectUser(ctx: EngineContext, partnerId: number, workspaceId: number, userId: number): Promise<DisconnectResult> {
  return inWriteTransaction(ctx, async (tx): Promise<DisconnectResult> => {
    const user = await partnerUser(tx, partnerId, workspaceId, userId);
    const account = user.account_id === null ? undefined : await tx.stores.accounts.byId(user.account_id);
    if (account === undefined || account.status === 'disconnected') {
      return { disconnected: false, disconnected_at: null, phone: account?.phone ?? null };
    }
    // Emits messenger:account:disconnected for the workspace and messenger_account:disconnected for the partner.
    await changeAccountStatus(tx, account, 'disconnected');
    return { disconnected: true, disconnected_at: isoTime(tx.clock.now()), phone: account.phone };
  });
}

export const userDto = (row: PartnerUserRow): PartnerUserDto => ({
  user_id: row.id,
  workspace_id: row.workspace_id,
  name: row.name,
  messenger_account:
    row.phone === null || row.status === null
      ? null
      : { phone: row.phone, status: row.status, connected_at: row.connected_at === null ? null : isoTime(row.connected_at) },
  created_at: isoTime(row.created_at),
});
