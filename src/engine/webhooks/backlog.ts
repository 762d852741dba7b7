import { inWriteTransaction, type EngineContext } from '../context.js';

/** Pending deliveries one tenant may have queued before svc says it is falling behind. */
export const WEBHOOK_BACKLOG_BOUND = 1_000;

/**
 * Says when a tenant's webhook backlog passes the bound: a log line, the metric, and one owner notice per
 * crossing (e-mailed where SMTP is configured). The crossing is remembered in the database, so several
 * processes on one database notify once, and a backlog that falls under half the bound re-arms it.
 * Returns how many tenants are over the bound.
 */
export async function checkWebhookBacklog(ctx: EngineContext, bound = WEBHOOK_BACKLOG_BOUND): Promise<number> {
  const now = ctx.clock.now();
  const tenants = new Map<string, { workspaceId: number | null; partnerId: number | null; pending: number; oldest: number; top: { id: number; url: string; count: number } }>();
  for (const row of await ctx.stores.stats.pendingBySubscription()) {
    const key = row.workspace_id !== null ? `workspace:${row.workspace_id}` : `partner:${row.partner_id}`;
    const tenant = tenants.get(key) ?? { workspaceId: row.workspace_id, partnerId: row.partner_id, pending: 0, oldest: row.oldest, top: row };
    tenant.pending += row.count;
    tenant.oldest = Math.min(tenant.oldest, row.oldest);
    if (row.count > tenant.top.count) tenant.top = row;
    tenants.set(key, tenant);
  }
  const over = [...tenants.values()].filter((tenant) => tenant.pending > bound).length;
  // The crossings this process notified: logged after the commit (the transaction may run more than once).
  const notified = await inWriteTransaction(ctx, async (tx) => {
    const lines: string[] = [];
    for (const [key, tenant] of tenants) {
      if (tenant.pending <= bound) continue;
      const flag = `webhook_backlog_notified:${key}`;
      if ((await tx.stores.workspaces.getSetting(flag)) !== undefined) continue;
      await tx.stores.workspaces.putSettingOnce(flag, String(now));
      const ageSec = Math.round((now - tenant.oldest) / 1000);
      lines.push(`webhook backlog: ${key} has ${tenant.pending} deliveries queued (bound ${bound}), the oldest ${ageSec} s old`);
      await tx.stores.stats.recordBacklogNotice({
        workspaceId: tenant.workspaceId,
        partnerId: tenant.partnerId,
        subscriptionId: tenant.top.id,
        details: JSON.stringify({ pending: tenant.pending, bound, oldest_age_sec: ageSec, url: tenant.top.url, subscription_pending: tenant.top.count }),
        now,
      });
    }
    // Re-arm tenants that caught up.
    for (const key of await tx.stores.workspaces.settingKeys('webhook_backlog_notified:')) {
      const tenant = tenants.get(key.slice('webhook_backlog_notified:'.length));
      if (tenant === undefined || tenant.pending < bound / 2) await tx.stores.workspaces.deleteSetting(key);
    }
    return lines;
  });
  for (const line of notified) ctx.logger.error(line);
  ctx.metrics.webhookBacklog(over);
  return over;
}
