/**
 * Version 9: request counters of the per-caller rate limit, one row per bucket (`workspace:7`, `ip:...`)
 * holding the current window. Replicas on PostgreSQL count in this table so the limit holds for the
 * service as a whole; a single `svc serve` on SQLite keeps counting in memory and leaves it empty.
 */
export const RATE_LIMITS_SCHEMA = `
CREATE TABLE rate_limit_windows (
  bucket TEXT PRIMARY KEY,
  window_start INTEGER NOT NULL,
  hits INTEGER NOT NULL
);
CREATE INDEX rate_limit_windows_start ON rate_limit_windows (window_start);
`;
