import { SvcError } from '../wire/errors.js';
import type { WorkspaceRow, WorkspaceStore } from '../store/workspace-store.js';

/** 1 credit a message, 2 when it carries both non-empty text and an attachment (docs/api-behaviour.md). */
export const creditsFor = (text: string | null, hasAttachment: boolean): number =>
  text !== null && text.length > 0 && hasAttachment ? 2 : 1;

/**
 * `anchor` moved by `months` calendar months, keeping its day and time; a day the month lacks becomes the
 * month's last (an anchor on the 31st gives the 28th or 29th of February, then the 31st of March again).
 */
function addMonths(anchor: number, months: number): number {
  const a = new Date(anchor);
  const year = a.getUTCFullYear();
  const month = a.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(year, month, Math.min(a.getUTCDate(), lastDay), a.getUTCHours(), a.getUTCMinutes(), a.getUTCSeconds(), a.getUTCMilliseconds());
}

/** The monthly quota period containing `at`, counted from the workspace's creation (`anchor`). */
export function quotaPeriod(anchor: number, at: number): { start: number; end: number } {
  const from = new Date(anchor);
  const to = new Date(at);
  let months = (to.getUTCFullYear() - from.getUTCFullYear()) * 12 + (to.getUTCMonth() - from.getUTCMonth());
  while (months > 0 && addMonths(anchor, months) > at) months -= 1;
  while (addMonths(anchor, months + 1) <= at) months += 1;
  return { start: addMonths(anchor, Math.max(0, months)), end: addMonths(anchor, Math.max(0, months) + 1) };
}

const SHORTEST_MONTH_MS = 28 * 24 * 60 * 60 * 1000;

/**
 * Moves the workspace into the period that contains `now`, resetting what was used; returns the fresh row.
 * `store` must be the write transaction's when the row is then checked or debited.
 */
export async function rollQuotaPeriod(store: WorkspaceStore, row: WorkspaceRow, now: number): Promise<WorkspaceRow> {
  // No month is shorter than 28 days: until then the current period cannot have ended (this runs on every send).
  if (now - row.quota_period_start < SHORTEST_MONTH_MS) return row;
  const { start } = quotaPeriod(row.created_at, now);
  if (start <= row.quota_period_start) return row;
  // Once a month: lock the row and look again, so sends racing on other replicas reset the period once.
  const locked = (await store.lockById(row.id)) ?? row;
  if (start <= locked.quota_period_start) return locked;
  if (locked.quota_used > 0) await store.recordCredit(locked.id, null, -locked.quota_used, 'period_reset', now);
  await store.resetPeriod(locked.id, start);
  return { ...locked, quota_used: 0, quota_period_start: start };
}

/** The refusal of a message the quota has no room for: `used` counts what the transaction accepted so far. */
export function quotaExceeded(row: WorkspaceRow, used: number, credits: number): SvcError {
  const remaining = Math.max(0, row.quota_total - used);
  return new SvcError('quota_exceeded', `Messaging quota exhausted: ${remaining} of ${row.quota_total} credits left, this message needs ${credits}`, {
    hint: `wait for the next quota period or ask support to raise the quota (\`svc admin workspace update ${row.id} --quota N\`)`,
    details: { remaining, needed: credits },
  });
}

/**
 * Gives back the credits of a message that could not be sent; a second restore of one message is a no-op.
 * Runs inside a write transaction (`store` is its store).
 */
export async function restoreCredits(store: WorkspaceStore, workspaceId: number, messageId: number, credits: number, now: number): Promise<void> {
  if (await store.isRestored(messageId)) return;
  const row = await store.byId(workspaceId);
  if (row === undefined) return;
  const current = await rollQuotaPeriod(store, row, now);
  // A debit of an earlier period was wiped by its reset: giving it back would free credits of this one.
  const debitedAt = await store.debitedAt(messageId);
  const inPeriod = debitedAt !== undefined && debitedAt >= current.quota_period_start;
  const delta = inPeriod ? Math.min(credits, current.quota_used) : 0;
  await store.addUsed(workspaceId, -delta);
  await store.recordCredit(workspaceId, messageId, -delta, 'restore', now);
}
