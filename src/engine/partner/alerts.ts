import type { EngineContext } from '../context.js';
import type { PartnerEventData, PartnerEventType } from '../../wire/webhook-events.js';

/** Share of the messaging quota at which `workspace:quota_near_full` fires (docs/api-behaviour.md). */
export const QUOTA_NEAR_FULL_RATIO = 0.9;

/**
 * Emits a partner event for a workspace owned by a partner; workspaces without one have no partner to tell.
 * Call inside the write transaction of the change (`ctx` is its context), so the outbox row commits with it.
 */
export async function emitPartnerEvent<T extends PartnerEventType>(
  ctx: EngineContext,
  workspaceId: number,
  type: T,
  data: Omit<PartnerEventData[T], 'workspace_id'>,
): Promise<void> {
  const partnerId = await ctx.stores.partners.partnerOfWorkspace(workspaceId);
  if (partnerId === null) return;
  await ctx.events.emit(ctx, { type, partnerId, workspaceId, data: { workspace_id: workspaceId, ...data } });
}

/**
 * After a debit: fires the quota alerts whose threshold the usage has reached, once per quota period each
 * (partner_alerts keyed by the period start turns a repeat into a no-op). Runs inside the debit's transaction.
 */
export async function checkQuotaAlerts(ctx: EngineContext, workspaceId: number, now: number): Promise<void> {
  const row = await ctx.stores.workspaces.byId(workspaceId);
  if (row === undefined || row.partner_id === null || row.quota_total <= 0) return;
  // Sends accepted by this transaction are debited at its end: they count already.
  const used = row.quota_used + (ctx.sql.deferred?.creditsOf(workspaceId) ?? 0);
  const data = { quota_total: row.quota_total, quota_used: used, period_start: new Date(row.quota_period_start).toISOString() };
  const alerts: Array<['workspace:quota_near_full' | 'workspace:quota_full', boolean]> = [
    ['workspace:quota_near_full', used >= row.quota_total * QUOTA_NEAR_FULL_RATIO],
    ['workspace:quota_full', used >= row.quota_total],
  ];
  for (const [type, reached] of alerts) {
    if (reached && (await ctx.stores.partners.recordAlert(workspaceId, type, row.quota_period_start, now))) {
      await emitPartnerEvent(ctx, workspaceId, type, data);
    }
  }
}

/** After users were added: fires `workspace:seats_full` once per seat count that gets filled. */
export async function checkSeatsAlert(ctx: EngineContext, workspaceId: number, seatsPurchased: number, now: number): Promise<void> {
  const used = await ctx.stores.workspaces.seatsUsed(workspaceId);
  if (used < seatsPurchased) return;
  if (await ctx.stores.partners.recordAlert(workspaceId, 'workspace:seats_full', seatsPurchased, now)) {
    await emitPartnerEvent(ctx, workspaceId, 'workspace:seats_full', { seats_purchased: seatsPurchased, seats_used: used });
  }
}
