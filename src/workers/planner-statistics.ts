import type { EngineContext } from '../engine/context.js';
import type { JobRunner } from './worker-runner.js';

/** How often a PostgreSQL process looks for tables that outgrew their planner statistics. */
export const STATISTICS_EVERY_MS = 2_000;

/**
 * Keeps PostgreSQL's planner statistics abreast of tables that grow fast (a new database under its first load,
 * a send queue whose backlog grows): a look every 2 s (one read of `pg_stat_user_tables`), and an ANALYZE of
 * a table that has grown to several times what the planner believes. Measured on a fresh database: a backlog
 * of 5,000 unspaced sends drained at 254-262 sends/s on plans made while the tables looked empty (the claim's
 * lease and the completion scanned the jobs and messages tables at every call), at 718-778 with this runner
 * (878 with one ANALYZE of every table once the backlog stood). PostgreSQL only: `createEngine` leaves it out
 * on SQLite.
 */
export function createPlannerStatisticsRunner(ctx: EngineContext): JobRunner {
  let nextAt = ctx.clock.now();
  return {
    name: 'statistics',
    nextDueAt: () => nextAt,
    async runDue() {
      const now = ctx.clock.now();
      if (now < nextAt) return 0;
      nextAt = now + STATISTICS_EVERY_MS;
      // Not jobs: a run reports none, whatever it analyzed.
      await ctx.stores.maintenance.refreshOutgrownStatistics();
      return 0;
    },
  };
}
