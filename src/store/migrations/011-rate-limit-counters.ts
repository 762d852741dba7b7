import type { MigrationSource } from './migration.js';

/**
 * Version 11: the rate limit becomes a sliding window (ARCHITECTURE.md, "The rate limit"). A single
 * `svc serve` on SQLite counts it in memory (src/http/server/sliding-window.ts), so nothing changes on SQLite; the
 * version exists so both stores keep the same numbers. Version 9's `rate_limit_windows` stays, empty.
 */
export const RATE_LIMIT_COUNTERS: MigrationSource = {
  version: 11,
  name: 'rate-limit-counters',
  sql: {
    sqlite: `
-- Nothing on SQLite: PostgreSQL replicas share their counters in rate_limit_counters.
`,
    postgres: `
CREATE TABLE rate_limit_counters (
  bucket TEXT PRIMARY KEY,
  head BIGINT NOT NULL,
  hits INTEGER[] NOT NULL
);

CREATE FUNCTION svc_rate_limit_reserve(
  p_buckets TEXT[], p_wants INTEGER[], p_aheads INTEGER[], p_limits INTEGER[], p_spans INTEGER[],
  p_give_back_seconds BIGINT[], p_give_back_counts INTEGER[], p_now_ms BIGINT
) RETURNS TABLE (bucket TEXT, granted INTEGER, free INTEGER, second BIGINT, ends_in_ms INTEGER, frees_in_ms INTEGER)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  i INTEGER;
  v_head BIGINT;
  v_hits INTEGER[];
  v_now_ms BIGINT;
  v_second BIGINT;
  v_span INTEGER;
  v_room INTEGER;
  v_back INTEGER;
  v_oldest INTEGER;
BEGIN
  FOR i IN SELECT u.ord FROM unnest(p_buckets) WITH ORDINALITY AS u(name, ord) ORDER BY u.name LOOP
    LOOP
      SELECT c.head, c.hits INTO v_head, v_hits FROM rate_limit_counters c WHERE c.bucket = p_buckets[i] FOR UPDATE;
      EXIT WHEN FOUND;
      INSERT INTO rate_limit_counters (bucket, head, hits) VALUES (p_buckets[i], 0, '{}') ON CONFLICT DO NOTHING;
    END LOOP;

    v_span := p_spans[i];
    v_now_ms := GREATEST(COALESCE(p_now_ms, floor(extract(epoch FROM clock_timestamp()) * 1000)::BIGINT), v_head * 1000);
    v_second := v_now_ms / 1000;
    -- The window as of v_second: one zero per second that passed since head, the seconds before it cut off.
    v_hits := (array_fill(0, ARRAY[LEAST(v_second - v_head, v_span + 1)::INTEGER]) || v_hits)[1 : v_span + 1];

    v_back := v_second - p_give_back_seconds[i] + 1;
    IF p_give_back_counts[i] > 0 AND v_back BETWEEN 1 AND v_span + 1 THEN
      v_hits[v_back] := GREATEST(0, v_hits[v_back] - p_give_back_counts[i]);
    END IF;

    v_room := GREATEST(0, p_limits[i] - (SELECT COALESCE(sum(x), 0) FROM unnest(v_hits) AS x)::INTEGER);
    granted := LEAST(p_wants[i], v_room);
    granted := granted + LEAST(p_aheads[i], (v_room - granted) / 4);
    v_hits[1] := v_hits[1] + granted;
    UPDATE rate_limit_counters c SET head = v_second, hits = v_hits WHERE c.bucket = p_buckets[i];

    -- The oldest second with hits leaves the window when second (oldest + span + 1) starts.
    SELECT max(u.ord) INTO v_oldest FROM unnest(v_hits) WITH ORDINALITY AS u(x, ord) WHERE u.x > 0;
    bucket := p_buckets[i];
    free := v_room - granted;
    second := v_second;
    ends_in_ms := (v_second + 1) * 1000 - v_now_ms;
    frees_in_ms := CASE WHEN v_oldest IS NULL THEN 0 ELSE (v_second - v_oldest + 1 + v_span + 1) * 1000 - v_now_ms END;
    RETURN NEXT;
  END LOOP;
END
$fn$;
`,
  },
};
