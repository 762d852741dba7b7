import type { MigrationSource } from './migration.js';

/**
 * Version 9: request counters of the per-caller rate limit, one row per bucket (`workspace:7`, `ip:...`)
 * holding the current window. Replicas on PostgreSQL count in this table so the limit holds for the
 * service as a whole; a single `svc serve` on SQLite keeps counting in memory and leaves it empty.
 */
export const RATE_LIMITS: MigrationSource = {
  version: 9,
  name: 'rate-limits',
  sql: `
CREATE TABLE rate_limit_windows (
  bucket TEXT PRIMARY KEY,
  window_start BIGINT NOT NULL,
  hits BIGINT NOT NULL
);
CREATE INDEX rate_limit_windows_start ON rate_limit_windows (window_start);
`,
};
