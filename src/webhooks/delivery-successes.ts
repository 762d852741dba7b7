import { query, type SqlExecutor } from '../store/sql.js';
import type { SendOutcome } from './send-outcome.js';

// A list as one parameter (a JSON array), the same on both dialects.
const IDS = {
  sqlite: 'SELECT value FROM json_each(@ids)',
  postgres: 'SELECT CAST(value AS BIGINT) FROM json_array_elements_text(CAST(@ids AS JSON))',
};

// The successes of a batch: one UPDATE, one INSERT of their attempts ([id, attempt, status, ms] rows), one reset.
const SUCCEED_MANY = query<{ id: number; attempts: number; subscription_id: number }>({
  sqlite: `UPDATE webhook_deliveries
    SET status = 'succeeded', attempts = attempts + 1, next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL,
        completed_at = @now
    WHERE id IN (${IDS.sqlite}) AND status = 'delivering' AND lease_owner = @owner RETURNING id, attempts, subscription_id`,
  postgres: `UPDATE webhook_deliveries
    SET status = 'succeeded', attempts = attempts + 1, next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL,
        completed_at = @now
    WHERE id IN (${IDS.postgres}) AND status = 'delivering' AND lease_owner = @owner RETURNING id, attempts, subscription_id`,
});
const ATTEMPTS_OK = query({
  sqlite: `INSERT INTO webhook_attempts (delivery_id, attempt_number, ok, status_code, duration_ms, error, created_at)
    SELECT value ->> 0, value ->> 1, 1, value ->> 2, value ->> 3, NULL, @now FROM json_each(@rows)`,
  postgres: `INSERT INTO webhook_attempts (delivery_id, attempt_number, ok, status_code, duration_ms, error, created_at)
    SELECT CAST(r ->> 0 AS BIGINT), CAST(r ->> 1 AS INTEGER), 1, CAST(r ->> 2 AS INTEGER), CAST(r ->> 3 AS BIGINT), NULL, @now
    FROM json_array_elements(CAST(@rows AS JSON)) AS r`,
});
const SUBSCRIPTIONS_OK = query({
  sqlite: `UPDATE webhook_subscriptions SET consecutive_failures = 0 WHERE id IN (${IDS.sqlite}) AND consecutive_failures <> 0`,
  postgres: `UPDATE webhook_subscriptions SET consecutive_failures = 0 WHERE id IN (${IDS.postgres}) AND consecutive_failures <> 0`,
});

/**
 * Records successful attempts of one lease owner at one time in three statements, whatever their number: the
 * deliveries still leased to `owner` become succeeded (one UPDATE ... RETURNING), their attempts are logged (one
 * multi-row INSERT) and their subscriptions' failure streaks reset (one UPDATE). Call it inside a write
 * transaction. Returns the attempt number of each delivery recorded; one missing lost its lease (another worker
 * took it over, or it was deleted) and nothing was written for it.
 */
export async function recordSuccesses(
  sql: SqlExecutor,
  inputs: ReadonlyArray<{ deliveryId: number; outcome: SendOutcome }>,
  owner: string,
  now: number,
): Promise<Map<number, number>> {
  const outcomes = new Map(inputs.map((input) => [input.deliveryId, input.outcome]));
  const won = await sql.all(SUCCEED_MANY, { ids: JSON.stringify([...outcomes.keys()]), owner, now });
  if (won.length > 0) {
    const rows = won.map((row) => [row.id, row.attempts, outcomes.get(row.id)?.statusCode ?? null, outcomes.get(row.id)?.durationMs ?? 0]);
    await sql.run(ATTEMPTS_OK, { rows: JSON.stringify(rows), now });
    await sql.run(SUBSCRIPTIONS_OK, { ids: JSON.stringify([...new Set(won.map((row) => row.subscription_id))]) });
  }
  return new Map(won.map((row) => [row.id, row.attempts]));
}
