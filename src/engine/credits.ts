import { SvcError } from './errors.js';
import type { WorkspaceRow, WorkspaceStore } from '../store/workspace-store.js';

/** 1 credit a message, 2 when it carries both non-empty text and an attachment (SPEC.md 8). */
export const creditsFor = (text: string | null, hasAttachment: boolean): number =>
  text !== null && text.length > 0 && hasAttachment ? 2 : 1;

/** The end of a monthly quota period that started at `start` (same day and time, next calendar month). */
export function periodEnd(start: number): number {
  const date = new Date(start);
  date.setUTCMonth(date.getUTCMonth() + 1);
  return date.getTime();
}

/** Moves the workspace into the period that contains `now`, resetting what was used; returns the fresh row. */
export function rollQuotaPeriod(store: WorkspaceStore, row: WorkspaceRow, now: number): WorkspaceRow {
  let start = row.quota_period_start;
  if (now < periodEnd(start)) return row;
  while (now >= periodEnd(start)) start = periodEnd(start);
  if (row.quota_used > 0) store.recordCredit(row.id, null, -row.quota_used, 'period_reset', now);
  store.resetPeriod(row.id, start);
  return { ...row, quota_used: 0, quota_period_start: start };
}

/**
 * Takes `credits` from the workspace's quota for a message being accepted. Must run inside a write
 * transaction: the check and the debit then see no other writer in between, in any process.
 */
export function debitCredits(store: WorkspaceStore, row: WorkspaceRow, messageId: number, credits: number, now: number): void {
  const current = rollQuotaPeriod(store, row, now);
  const remaining = current.quota_total - current.quota_used;
  if (remaining < credits) {
    throw new SvcError('quota_exceeded', `Messaging quota exhausted: ${remaining} of ${current.quota_total} credits left, this message needs ${credits}`, {
      hint: 'wait for the next quota period or ask support to raise the quota (svc admin workspace update --quota N)',
      details: { remaining, needed: credits },
    });
  }
  store.addUsed(row.id, credits);
  store.recordCredit(row.id, messageId, credits, 'debit', now);
}

/** Gives back the credits of a message that could not be sent; a second restore of one message is a no-op. */
export function restoreCredits(store: WorkspaceStore, workspaceId: number, messageId: number, credits: number, now: number): void {
  if (store.isRestored(messageId)) return;
  const row = store.byId(workspaceId);
  if (row === undefined) return;
  const current = rollQuotaPeriod(store, row, now);
  // A debit of an earlier period was wiped by its reset: giving it back would free credits of this one.
  const debitedAt = store.debitedAt(messageId);
  const inPeriod = debitedAt !== undefined && debitedAt >= current.quota_period_start;
  const delta = inPeriod ? Math.min(credits, current.quota_used) : 0;
  store.addUsed(workspaceId, -delta);
  store.recordCredit(workspaceId, messageId, -delta, 'restore', now);
}
