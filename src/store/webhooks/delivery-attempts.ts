import type { SendOutcome } from '../../wire/webhook-types.js';
import { postgresOnly, query, sqliteOnly, writeUnanswered, type SqlExecutor } from '../sql.js';

/** The owner_notifications kind of a subscription whose deliveries keep failing (src/workers/owner-mail-text.ts writes its e-mail). */
export const OWNER_NOTIFICATION_WEBHOOK_FAILING = 'webhook_failing';

/** One attempt to record, with the caller's rules for what follows a failure. */
export interface RecordAttemptInput {
  deliveryId: number;
  owner: string;
  outcome: SendOutcome;
  now: number;
  /**
   * The retry schedule (src/webhooks/retry-schedule.ts): when the attempt after `attemptNumber` is due if that
   * one failed at `failedAt`, or null when it was the last.
   */
  retryAt: (attemptNumber: number, failedAt: number) => number | null;
  /** Final failures in a row after which the subscription's owner is notified (once per streak). */
  failureNotifyThreshold: number;
}

export type RecordAttemptResult =
  | { status: 'succeeded' | 'failed'; attemptNumber: number; nextAttemptAt: null; ownerNotified: boolean }
  | { status: 'retry_scheduled'; attemptNumber: number; nextAttemptAt: number; ownerNotified: false }
  /** The lease ran out and another worker took the delivery over (or it was deleted): nothing written. */
  | { status: 'lease_lost' };

/** A row of webhook_deliveries with the fields of its subscription. */
export interface DeliveryRow {
  id: number;
  subscription_id: number;
  webhook_msg_id: string;
  event_type: string;
  payload: string;
  attempts: number;
  url: string;
  secret: string;
  listen_session_id: string | null;
  workspace_id: number | null;
  partner_id: number | null;
  created_at: number;
}

const SELECT_DELIVERY = `
  SELECT d.id, d.subscription_id, d.webhook_msg_id, d.event_type, d.payload, d.attempts, d.created_at,
         s.url, s.secret, s.listen_session_id, s.workspace_id, s.partner_id
  FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id`;

const LEASED = query<DeliveryRow>(`${SELECT_DELIVERY}
  WHERE d.id = @id AND d.status = 'delivering' AND d.lease_owner = @owner`);
const ATTEMPT = query(`INSERT INTO webhook_attempts
  (delivery_id, attempt_number, ok, status_code, duration_ms, error, created_at)
  VALUES (@deliveryId, @attemptNumber, @ok, @statusCode, @durationMs, @error, @now)`);
// The common case in one statement: the lease check, the attempt count and the final state.
const SUCCEED = query<{ attempts: number; subscription_id: number }>(`UPDATE webhook_deliveries
  SET status = 'succeeded', attempts = attempts + 1, next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL,
      completed_at = @now
  WHERE id = @id AND status = 'delivering' AND lease_owner = @owner RETURNING attempts, subscription_id`);
const FINISH = query(`UPDATE webhook_deliveries
  SET status = @status, attempts = @attempts, next_attempt_at = @nextAttemptAt,
      lease_owner = NULL, lease_until = NULL, completed_at = @completedAt
  WHERE id = @id`);
// Most successes follow successes: no row write then.
const SUBSCRIPTION_OK = query(`UPDATE webhook_subscriptions SET consecutive_failures = 0 WHERE id = @id AND consecutive_failures <> 0`);
const SUBSCRIPTION_FAILED = query<{ consecutive_failures: number }>(`UPDATE webhook_subscriptions
  SET errors_counter = errors_counter + 1, consecutive_failures = consecutive_failures + 1
  WHERE id = @id RETURNING consecutive_failures`);
const NOTIFY = query(`INSERT INTO owner_notifications
  (workspace_id, partner_id, subscription_id, kind, details, created_at)
  VALUES (@workspaceId, @partnerId, @subscriptionId, @kind, @details, @now)`);

// SQLite: the successes of a batch in one UPDATE, one INSERT of their attempts ([id, attempt, status, ms] rows)
// and one reset (no writing CTEs there; no round trips either).
const SUCCEED_MANY = sqliteOnly<{ id: number; attempts: number; subscription_id: number }>(`UPDATE webhook_deliveries
  SET status = 'succeeded', attempts = attempts + 1, next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL,
      completed_at = @now
  WHERE id IN (SELECT value FROM json_each(@ids)) AND status = 'delivering' AND lease_owner = @owner
  RETURNING id, attempts, subscription_id`);
const ATTEMPTS_OK = sqliteOnly(`INSERT INTO webhook_attempts (delivery_id, attempt_number, ok, status_code, duration_ms, error, created_at)
  SELECT value ->> 0, value ->> 1, 1, value ->> 2, value ->> 3, NULL, @now FROM json_each(@rows)`);
const SUBSCRIPTIONS_OK = sqliteOnly(
  `UPDATE webhook_subscriptions SET consecutive_failures = 0 WHERE id IN (SELECT value FROM json_each(@ids)) AND consecutive_failures <> 0`,
);

// PostgreSQL: the three above in one statement (writing CTEs), one round trip of the webhook worker's pass
// instead of three. Arrays, not JSON, so the planner knows how many rows there are. Each CTE's writes see only `won`.
const SUCCEED_LOG_RESET = postgresOnly<{ id: number; attempts: number; subscription_id: number }>(`
  WITH attempt AS (
    SELECT * FROM unnest(@ids::bigint[], @statusCodes::int[], @durations::bigint[]) AS a(id, status_code, duration_ms)),
  won AS (
    UPDATE webhook_deliveries
    SET status = 'succeeded', attempts = attempts + 1, next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL,
        completed_at = @now
    WHERE id IN (SELECT id FROM attempt) AND status = 'delivering' AND lease_owner = @owner
    RETURNING id, attempts, subscription_id),
  logged AS (
    INSERT INTO webhook_attempts (delivery_id, attempt_number, ok, status_code, duration_ms, error, created_at)
    SELECT won.id, won.attempts, 1, attempt.status_code, attempt.duration_ms, NULL, @now FROM won JOIN attempt ON attempt.id = won.id),
  reset AS (
    UPDATE webhook_subscriptions SET consecutive_failures = 0
    WHERE id IN (SELECT subscription_id FROM won) AND consecutive_failures <> 0)
  SELECT id, attempts, subscription_id FROM won`);

/**
 * Records successful attempts of one lease owner at one time, whatever their number: the deliveries still leased
 * to `owner` become succeeded (one UPDATE ... RETURNING), their attempts are logged (one multi-row INSERT) and
 * their subscriptions' failure streaks reset (one UPDATE); three statements on SQLite, one on PostgreSQL, sent
 * unanswered (`writeUnanswered`: what follows in the transaction rides in the same round trip). Call it inside a
 * write transaction. `onRecorded` gets the attempt number of each delivery recorded, at the latest when the
 * transaction returns; one missing lost its lease (another worker took it over, or it was deleted) and nothing
 * was written for it.
 */
async function recordSuccesses(
  sql: SqlExecutor,
  inputs: ReadonlyArray<{ deliveryId: number; outcome: SendOutcome }>,
  owner: string,
  now: number,
  onRecorded: (attemptNumbers: Map<number, number>) => void,
): Promise<void> {
  const report = (won: Array<{ id: number; attempts: number }>) => onRecorded(new Map(won.map((row) => [row.id, row.attempts])));
  if (sql.dialect === 'postgres') {
    const params = {
      ids: inputs.map((input) => input.deliveryId),
      statusCodes: inputs.map((input) => input.outcome.statusCode),
      durations: inputs.map((input) => input.outcome.durationMs),
      owner,
      now,
    };
    await writeUnanswered(sql, SUCCEED_LOG_RESET, params, report);
    return;
  }
  const outcomes = new Map(inputs.map((input) => [input.deliveryId, input.outcome]));
  const won = await sql.all(SUCCEED_MANY, { ids: JSON.stringify([...outcomes.keys()]), owner, now });
  if (won.length > 0) {
    const rows = won.map((row) => [row.id, row.attempts, outcomes.get(row.id)?.statusCode ?? null, outcomes.get(row.id)?.durationMs ?? 0]);
    await sql.run(ATTEMPTS_OK, { rows: JSON.stringify(rows), now });
    await sql.run(SUBSCRIPTIONS_OK, { ids: JSON.stringify([...new Set(won.map((row) => row.subscription_id))]) });
  }
  report(won);
}

/**
 * Logs one attempt and moves the delivery on: succeeded, pending again at the next retry time, or
 * failed after the last attempt. Only a final failure counts in `errors_counter`; subscriptions are
 * never disabled. The owner is notified once per failure streak, when it reaches the threshold.
 * Call it inside a write transaction (it writes several rows).
 */
export async function recordAttempt(sql: SqlExecutor, input: RecordAttemptInput): Promise<RecordAttemptResult> {
  if (input.outcome.ok) return recordSuccess(sql, input);
  const row = await sql.get(LEASED, { id: input.deliveryId, owner: input.owner });
  if (row === undefined) return { status: 'lease_lost' };
  const attemptNumber = row.attempts + 1;
  const { outcome, now } = input;
  await sql.run(ATTEMPT, {
    deliveryId: row.id,
    attemptNumber,
    ok: outcome.ok ? 1 : 0,
    statusCode: outcome.statusCode,
    durationMs: outcome.durationMs,
    error: outcome.error,
    now,
  });
  const finish = (status: string, nextAt: number | null) =>
    sql.run(FINISH, {
      id: row.id,
      status,
      attempts: attemptNumber,
      nextAttemptAt: nextAt,
      completedAt: nextAt === null ? now : null,
    });
  const nextAt = input.retryAt(attemptNumber, now);
  if (nextAt !== null) {
    await finish('pending', nextAt);
    return { status: 'retry_scheduled', attemptNumber, nextAttemptAt: nextAt, ownerNotified: false };
  }
  await finish('failed', null);
  const { consecutive_failures: streak } = (await sql.get(SUBSCRIPTION_FAILED, { id: row.subscription_id }))!;
  // A listener's subscription fails whenever the developer's local app is down: no e-mail for that.
  const ownerNotified = streak === input.failureNotifyThreshold && row.listen_session_id === null;
  if (ownerNotified) {
    await sql.run(NOTIFY, {
      workspaceId: row.workspace_id,
      partnerId: row.partner_id,
      subscriptionId: row.subscription_id,
      kind: OWNER_NOTIFICATION_WEBHOOK_FAILING,
      // What the owner's e-mail says (never the secret): which endpoint, how bad, and which delivery to look at.
      details: JSON.stringify({
        url: row.url,
        event_type: row.event_type,
        consecutive_failures: streak,
        last_error: outcome.error,
        last_status_code: outcome.statusCode,
        last_delivery_id: row.id,
      }),
      now,
    });
  }
  return { status: 'failed', attemptNumber, nextAttemptAt: null, ownerNotified };
}

async function recordSuccess(sql: SqlExecutor, input: RecordAttemptInput): Promise<RecordAttemptResult> {
  const { outcome, now } = input;
  const row = await sql.get(SUCCEED, { id: input.deliveryId, owner: input.owner, now });
  if (row === undefined) return { status: 'lease_lost' };
  await sql.run(ATTEMPT, {
    deliveryId: input.deliveryId,
    attemptNumber: row.attempts,
    ok: 1,
    statusCode: outcome.statusCode,
    durationMs: outcome.durationMs,
    error: null,
    now,
  });
  await sql.run(SUBSCRIPTION_OK, { id: row.subscription_id });
  return { status: 'succeeded', attemptNumber: row.attempts, nextAttemptAt: null, ownerNotified: false };
}

/**
 * Records many attempts, as `recordAttempt` does one by one, in a few statements: the successes of one owner at
 * one time (the common case) share one UPDATE, one multi-row INSERT of their attempts and one reset of their
 * subscriptions' failure streaks; the rest go one by one. Results come back in input order; on PostgreSQL those
 * of the shared successes are filled in when the transaction returns (their statement goes unanswered).
 */
export async function recordAttempts(sql: SqlExecutor, inputs: readonly RecordAttemptInput[]): Promise<RecordAttemptResult[]> {
  const results: RecordAttemptResult[] = new Array<RecordAttemptResult>(inputs.length);
  const first = inputs[0];
  const together: number[] = [];
  inputs.forEach((input, i) => {
    if (input.outcome.ok && first !== undefined && input.owner === first.owner && input.now === first.now) together.push(i);
  });
  const shared = new Set(together);
  if (first !== undefined && shared.size > 0) {
    const recorded = (attemptNumbers: Map<number, number>): void => {
      for (const i of together) {
        const attemptNumber = attemptNumbers.get((inputs[i] as RecordAttemptInput).deliveryId);
        results[i] = attemptNumber === undefined ? { status: 'lease_lost' } : { status: 'succeeded', attemptNumber, nextAttemptAt: null, ownerNotified: false };
      }
    };
    await recordSuccesses(sql, together.map((i) => inputs[i] as RecordAttemptInput), first.owner, first.now, recorded);
  }
  for (const [i, input] of inputs.entries()) if (!shared.has(i)) results[i] = await recordAttempt(sql, input);
  return results;
}
