import { memoKeys } from './memo-keys.js';
import type { AdminWorkspaceCreateInput, AdminWorkspaceUpdateInput, CreatedWorkspace, WorkspaceDto } from '../wire/types.js';
import type { WorkspaceRow } from '../store/workspace-store.js';
import { isoTime } from '../wire/clock.js';
import { inWriteTransaction, readOnce, type EngineContext } from './context.js';
import { quotaPeriod, rollQuotaPeriod } from './credits.js';
import { connectAccount } from './accounts.js';
import { invalid, notFound, SvcError } from '../wire/errors.js';
import { issueToken } from './tokens.js';

const MAX_NAME = 200;

/** Creates a workspace with its first API token. */
export async function createWorkspace(
  ctx: EngineContext,
  input: AdminWorkspaceCreateInput & { partnerId?: number | null; isLocal?: boolean },
): Promise<CreatedWorkspace> {
  const name = input.name?.trim() ?? '';
  if (name.length === 0 || name.length > MAX_NAME) throw invalid(`name must be 1 to ${MAX_NAME} characters`);
  const quota = input.quota ?? ctx.config.defaultQuota;
  assertNonNegativeInteger('quota', quota);
  const seats = input.seats ?? 1;
  assertNonNegativeInteger('seats', seats);
  const ownerEmail = checkOwnerEmail(input.owner_email ?? null);
  const now = ctx.clock.now();
  return inWriteTransaction(ctx, async (tx) => {
    const workspaceId = await tx.stores.workspaces.insert({
      name,
      plan: input.plan ?? 'standard',
      isLocal: input.isLocal ?? false,
      partnerId: input.partnerId ?? null,
      ownerEmail,
      seatsPurchased: seats,
      quotaTotal: quota,
      now,
    });
    return { workspace_id: workspaceId, token: await issueToken(tx.stores.workspaces, workspaceId, now) };
  });
}

/** The embedded engine's own workspace: created once, with a token, a connected sim account and a quota. */
export function ensureLocalWorkspace(ctx: EngineContext): Promise<CreatedWorkspace> {
  return inWriteTransaction(ctx, async (tx) => {
    const existing = await tx.stores.workspaces.local();
    // A server's data directory (it has workspaces, none of them Local) must not grow a Local workspace with
    // its own credits just because a command ran there without a token.
    if (existing === undefined && (await tx.stores.workspaces.count()) > 0) {
      const what = tx.database.dialect === 'sqlite' ? 'data directory' : 'database';
      throw new SvcError('permission_denied', `This ${what} belongs to an instance with workspaces of its own, and has no Local workspace`, {
        hint: 'pass --token TOKEN (a workspace API token) or --workspace WS to say which workspace to act on',
      });
    }
    if (existing !== undefined) {
      const token = await tx.stores.workspaces.activeToken(existing.id);
      if (token !== undefined) return { workspace_id: existing.id, token };
    }
    const created =
      existing === undefined
        ? await createWorkspace(tx, { name: 'Local', quota: tx.config.localQuota, isLocal: true })
        : { workspace_id: existing.id, token: await issueToken(tx.stores.workspaces, existing.id, tx.clock.now()) };
    if ((await tx.stores.accounts.defaultSender(created.workspace_id)) === undefined) {
      await connectAccount(tx, created.workspace_id, { phone: tx.config.localSenderPhone, full_name: 'Local sender' });
    }
    return created;
  });
}

/**
 * Reads a workspace row, moving its quota into the current period first (a write: call it with the context
 * of a write transaction). `lock` holds the row until the commit (PostgreSQL), so transactions of one
 * workspace that take it run one after the other from there.
 */
export async function loadWorkspace(ctx: EngineContext, workspaceId: number, options: { lock?: boolean } = {}): Promise<WorkspaceRow> {
  const row = await (options.lock === true ? lockWorkspaceOnce(ctx, workspaceId) : ctx.stores.workspaces.byId(workspaceId));
  if (row === undefined) throw notFound(`workspace ${workspaceId}`);
  return rollQuotaPeriod(ctx.stores.workspaces, row, ctx.clock.now());
}

/**
 * Locks the workspace row once per transaction (`readOnce`): the sends of one group commit, a new chat and
 * the batch's prelude share it, and the later ones get the row as the first read it. Its counters may be
 * behind by the earlier sends' debits, which is why nothing decides on them: the debit is a conditional
 * statement, the quota period's reset locks and reads again, and an error message reads afresh.
 */
export const lockWorkspaceOnce = (ctx: EngineContext, workspaceId: number): Promise<WorkspaceRow | undefined> =>
  readOnce(ctx, memoKeys.workspaceLock(workspaceId), () => ctx.stores.workspaces.lockById(workspaceId));

export async function workspaceDto(ctx: EngineContext, workspaceId: number): Promise<WorkspaceDto> {
  const { row, seatsUsed } = await inWriteTransaction(ctx, async (tx) => {
    const loaded = await loadWorkspace(tx, workspaceId);
    return { row: loaded, seatsUsed: await tx.stores.workspaces.seatsUsed(loaded.id) };
  });
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    seats_purchased: row.seats_purchased,
    seats_used: seatsUsed,
    send_interval_ms: row.send_interval_ms,
    messaging_quota: {
      total: row.quota_total,
      used: row.quota_used,
      remaining: Math.max(0, row.quota_total - row.quota_used),
      period: 'month',
      period_start: isoTime(row.quota_period_start),
      period_end: isoTime(quotaPeriod(row.created_at, row.quota_period_start).end),
    },
    storage: { limit_bytes: row.storage_limit_bytes ?? ctx.config.defaultStorageBytes, used_bytes: row.storage_used_bytes },
    created_at: isoTime(row.created_at),
  };
}

/** Support-side changes: quota, plan, and the send interval (Business plan only, docs/api-behaviour.md). */
export async function updateWorkspace(ctx: EngineContext, workspaceId: number, input: AdminWorkspaceUpdateInput): Promise<WorkspaceDto> {
  await inWriteTransaction(ctx, async (tx) => {
    const row = await loadWorkspace(tx, workspaceId);
    const next = { ...row };
    if (input.quota !== undefined) {
      assertNonNegativeInteger('quota', input.quota);
      next.quota_total = input.quota;
    }
    if (input.plan !== undefined) {
      if (input.plan !== 'standard' && input.plan !== 'business') throw invalid('plan must be standard or business');
      next.plan = input.plan;
    }
    if (input.send_interval_ms !== undefined) {
      if (input.send_interval_ms !== null) assertNonNegativeInteger('send interval', input.send_interval_ms);
      next.send_interval_ms = input.send_interval_ms;
    }
    if (input.owner_email !== undefined) next.owner_email = checkOwnerEmail(input.owner_email);
    if (input.storage_mb !== undefined) {
      if (input.storage_mb !== null) assertNonNegativeInteger('storage quota', input.storage_mb);
      next.storage_limit_bytes = input.storage_mb === null ? null : input.storage_mb * 1024 * 1024;
    }
    if (next.send_interval_ms !== null && next.plan !== 'business') {
      throw new SvcError('permission_denied', 'The send interval can be changed on the Business plan only', {
        hint: 'add --plan business, or leave the interval at its default',
      });
    }
    await tx.stores.workspaces.update(next);
  });
  return workspaceDto(ctx, workspaceId);
}

/** A single address (failure notices are mailed to it): trimmed, and never something that could add mail headers. */
export function checkOwnerEmail(value: string | null): string | null {
  if (value === null) return null;
  const email = value.trim();
  if (email.length > 254 || !/^[^\s@<>,;"]+@[^\s@<>,;"]+\.[^\s@<>,;"]+$/.test(email)) {
    throw invalid('the e-mail address must look like name@example.com');
  }
  return email;
}

function assertNonNegativeInteger(what: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw invalid(`${what} must be a whole number of 0 or more`);
}
