import type { EngineContext } from '../engine/context.js';
import { inWriteTransaction } from '../engine/context.js';
import { LISTEN_SESSION_TTL_MS, listenSessionsOf } from '../engine/listen-sessions.js';
import { createMaintenanceStore } from '../store/maintenance-store.js';
import { checkWebhookBacklog } from '../engine/webhook-backlog.js';
import type { JobRunner } from './worker-runner.js';

/** Finished deliveries, their attempts and settled owner notices are kept this long, then deleted. */
export const RETENTION_MS = 10 * 24 * 60 * 60 * 1000;
/** How often the sweep runs: deleted files' space is back on disk within a minute. */
export const MAINTENANCE_EVERY_MS = 20_000;
const PURGE_BATCH = 2_000;
const VACUUM_PAGES_PER_RUN = 25_000; // 100 MiB of 4 KiB pages

/**
 * The server's housekeeping, one short write transaction at a time: listen sessions whose stream has been gone
 * for a minute are closed (their subscriptions stop collecting deliveries), old delivery logs are deleted, the
 * pages deleted files and rows leave behind are given back to the file system, and a tenant whose webhook
 * backlog passed its bound is reported.
 */
export function createMaintenanceRunner(ctx: EngineContext): JobRunner {
  const store = createMaintenanceStore(ctx.db);
  let nextAt = ctx.clock.now();
  return {
    name: 'maintenance',
    nextDueAt: () => nextAt,
    async runDue() {
      const now = ctx.clock.now();
      if (now < nextAt || ctx.db.readonly) return 0;
      nextAt = now + MAINTENANCE_EVERY_MS;
      let done = 0;
      for (const session of store.staleListenSessions(now - LISTEN_SESSION_TTL_MS)) {
        listenSessionsOf(ctx, session).close(session.id);
        done += 1;
      }
      for (let purged = PURGE_BATCH; purged >= PURGE_BATCH; ) {
        purged = inWriteTransaction(ctx.db, () => store.purgeBefore(now - RETENTION_MS, PURGE_BATCH));
        done += purged;
        if (purged >= PURGE_BATCH) await new Promise((resolve) => setImmediate(resolve)); // let requests in between
      }
      if (store.freePages() > 0) store.releaseFreePages(VACUUM_PAGES_PER_RUN);
      checkWebhookBacklog(ctx);
      return done;
    },
  };
}
