import type { EngineContext } from '../engine/context.js';
import { inWriteTransaction } from '../engine/context.js';
import { LISTEN_SESSION_TTL_MS, listenSessionsOf } from '../engine/webhooks/listen-sessions.js';
import { isSvcError } from '../wire/errors.js';
import { checkWebhookBacklog } from '../engine/webhooks/backlog.js';
import { readInstanceSettings } from '../engine/instance-settings.js';
import type { JobRunner } from './worker-runner.js';

/** Finished deliveries, their attempts and settled owner notices are kept this long, then deleted. */
export const RETENTION_MS = 10 * 24 * 60 * 60 * 1000;
/** How often the sweep runs: deleted files' space is back on disk within a minute. */
export const MAINTENANCE_EVERY_MS = 20_000;
const PURGE_BATCH = 2_000;
const VACUUM_PAGES_PER_RUN = 25_000; // 100 MiB of 4 KiB pages

/** SQLite's answer to a write on a read-only snapshot (a data directory svc may not write): nothing to sweep there. */
const isReadOnly = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === 'SQLITE_READONLY';

/**
 * The server's housekeeping, one short write transaction at a time: the instance's rules are read again
 * (another process may have changed them), listen sessions whose stream has been gone
 * for a minute are closed (their subscriptions stop collecting deliveries), old delivery logs are deleted, the
 * pages deleted files and rows leave behind are given back to the file system, and a tenant whose webhook
 * backlog passed its bound is reported.
 */
export function createMaintenanceRunner(ctx: EngineContext): JobRunner {
  const store = ctx.stores.maintenance;
  let nextAt = ctx.clock.now();
  let readOnly = false;

  const sweep = async (now: number): Promise<number> => {
    let done = 0;
    // The instance's rules, which another process may have changed: one retry schedule (a server started since
    // with --webhook-retry-delays), and strict URLs once marked (never the other way while this process runs).
    const settings = await readInstanceSettings(ctx.sql);
    if (settings.webhookRetryDelaysMs !== null) ctx.config.webhookRetryDelaysMs = settings.webhookRetryDelaysMs;
    if (settings.strict) ctx.config.dev = false;
    for (const session of await store.staleListenSessions(now - LISTEN_SESSION_TTL_MS)) {
      try {
        await listenSessionsOf(ctx, session).close(session.id);
      } catch (error) {
        // Closed meanwhile by its client or another process: that is what the sweep wanted.
        if (!(isSvcError(error) && error.code === 'not_found')) throw error;
      }
      done += 1;
    }
    for (let purged = PURGE_BATCH; purged >= PURGE_BATCH; ) {
      purged = await inWriteTransaction(ctx, (tx) => tx.stores.maintenance.purgeBefore(now - RETENTION_MS, PURGE_BATCH));
      done += purged;
      if (purged >= PURGE_BATCH) await new Promise((resolve) => setImmediate(resolve)); // let requests in between
    }
    // Rate-limit windows (PostgreSQL replicas count there) are a minute long; an hour-old one is dead.
    done += await ctx.stores.rateLimits.purge(now - 60 * 60 * 1000);
    const free = await store.freePages();
    if (free > 0) {
      await inWriteTransaction(ctx, (tx) => tx.stores.maintenance.releaseFreePages(Math.min(free, VACUUM_PAGES_PER_RUN)));
      await store.truncateWal();
    }
    await checkWebhookBacklog(ctx);
    return done;
  };

  return {
    name: 'maintenance',
    nextDueAt: () => nextAt,
    async runDue() {
      const now = ctx.clock.now();
      if (now < nextAt || readOnly) return 0;
      nextAt = now + MAINTENANCE_EVERY_MS;
      try {
        return await sweep(now);
      } catch (error) {
        if (!isReadOnly(error)) throw error;
        readOnly = true;
        return 0;
      }
    },
  };
}
