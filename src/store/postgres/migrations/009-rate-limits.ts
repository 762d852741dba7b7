/** Version 9, as on SQLite (src/store/migrations/009-rate-limits.ts). */
export const RATE_LIMITS_SCHEMA_PG = `
CREATE TABLE rate_limit_windows (
  bucket TEXT PRIMARY KEY,
  window_start BIGINT NOT NULL,
  hits BIGINT NOT NULL
);
CREATE INDEX rate_limit_windows_start ON rate_limit_windows (window_start);
`;
