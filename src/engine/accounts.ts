import type { MessengerAccountDto, Page, SimConnectInput } from '../wire/types.js';
import { isInternationalPhone } from '../network/driver.js';
import type { AccountRow } from '../store/account-store.js';
import { isoTime } from '../wire/clock.js';
import { inWriteTransaction, type EngineContext } from './context.js';
import { conflict, invalid, notFound } from '../wire/errors.js';
import { pageOf } from './paging.js';
import { emitPartnerEvent } from './partner/alerts.js';

/**
 * Connects (or reconnects) a messenger account to a workspace; it becomes the default sender, being the
 * most recently connected. A phone logged in elsewhere is refused.
 */
export async function connectAccount(
  ctx: EngineContext,
  workspaceId: number,
  input: SimConnectInput & { userId?: number | null },
): Promise<AccountRow> {
  const phone = input.phone ?? '';
  if (!isInternationalPhone(phone)) {
    throw invalid(`${phone || 'phone'} is not an international number`, 'write it as + country code and number, e.g. +15550001234');
  }
  const fullName = input.full_name?.trim() || `Account ${phone}`;
  const email = input.email?.trim() || `${phone.slice(1)}@sim.invalid`;
  return inWriteTransaction(ctx, async (tx) => {
    // Strictly after the latest connection of the workspace, so "most recently connected" has one answer
    // even when two connections fall in the same millisecond.
    const latest = (await tx.stores.accounts.list(workspaceId))[0]?.connected_at ?? 0;
    const now = Math.max(tx.clock.now(), latest + 1);
    const existing = await tx.stores.accounts.byPhone(phone);
    if (existing !== undefined && existing.workspace_id !== workspaceId) {
      // Says no more than "not here": whether the number is in use elsewhere is another tenant's business.
      throw conflict(`${phone} cannot be connected to this workspace`, 'use another number');
    }
    const userId = input.userId ?? null;
    let id: number;
    if (existing === undefined) {
      id = await tx.stores.accounts.insert({ workspaceId, userId, phone, fullName, email, now });
    } else {
      await tx.stores.accounts.reconnect({ id: existing.id, userId, fullName, email, now });
      id = existing.id;
    }
    await tx.events.emit(tx, { type: 'messenger:account:connected', workspaceId, accountId: id });
    const account = (await tx.stores.accounts.byId(id)) as AccountRow;
    // The owning partner hears of every connection, whether it came through a QR link or not.
    await emitPartnerEvent(tx, workspaceId, 'messenger_account:connected', {
      user_id: account.user_id, phone, connected_at: isoTime(now),
    });
    return account;
  });
}

/** An account of this workspace by phone, or not_found. */
export async function accountOfWorkspace(ctx: EngineContext, workspaceId: number, phone: string): Promise<AccountRow> {
  const account = await ctx.stores.accounts.byPhone(phone);
  if (account === undefined || account.workspace_id !== workspaceId) {
    throw notFound(`messenger account ${phone}`, 'list the connected accounts with `svc accounts list`');
  }
  return account;
}

/** Applies a network-side change (logged out, syncing suspended or resumed) and emits its event. */
export function changeAccountStatus(
  ctx: EngineContext,
  account: AccountRow,
  change: 'disconnected' | 'suspended' | 'resumed',
): Promise<AccountRow> {
  return inWriteTransaction(ctx, async (tx) => {
    const status = change === 'resumed' ? 'connected' : change;
    await tx.stores.accounts.setStatus(account.id, status);
    await tx.events.emit(tx, { type: `messenger:account:${change}`, workspaceId: account.workspace_id, accountId: account.id });
    if (change === 'disconnected') {
      await emitPartnerEvent(tx, account.workspace_id, 'messenger_account:disconnected', {
        user_id: account.user_id, phone: account.phone, disconnected_at: isoTime(tx.clock.now()),
      });
    }
    return { ...account, status };
  });
}

/** The workspace's accounts, 50 a page, in the `{items, page, has_more_pages}` shape of every list. */
export async function listAccounts(ctx: EngineContext, workspaceId: number, page = 1): Promise<Page<MessengerAccountDto>> {
  const rows = await ctx.stores.accounts.list(workspaceId);
  // The default sender is the first connected account of the list's order (connected_at, then id, newest first).
  const defaultId = rows.find((row) => row.status === 'connected')?.id;
  // A workspace has a handful of accounts: one read, paged in memory.
  return pageOf(page, async (limit, offset) => rows.slice(offset, offset + limit), (row) => accountDto(row, row.id === defaultId));
}

export const accountDto = (row: AccountRow, isDefault: boolean): MessengerAccountDto => ({
  id: row.id,
  phone: row.phone,
  full_name: row.full_name,
  email: row.email,
  status: row.status,
  connected_at: row.connected_at === null ? null : isoTime(row.connected_at),
  is_default_sender: isDefault,
});
