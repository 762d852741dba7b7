/**
 * Version 11: the rate limit becomes a sliding window (ARCHITECTURE.md, "The rate limit"). A single
 * `svc serve` on SQLite counts it in memory (src/http/sliding-window.ts), so nothing changes on SQLite; the
 * version exists so both stores keep the same numbers. Version 9's `rate_limit_windows` stays, empty.
 */
export const RATE_LIMIT_COUNTERS_SCHEMA = `
-- Nothing on SQLite: PostgreSQL replicas share their counters in rate_limit_counters.
`;
