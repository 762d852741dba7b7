import type { Page } from '../../wire/types.js';
import type { WebhookAttemptDto, WebhookDeliveryDto } from '../../wire/webhook-types.js';
import { isoTime } from '../../wire/clock.js';
import { idList, query, type SqlExecutor } from '../sql.js';

interface DeliveryRow {
  id: number;
  webhook_msg_id: string;
  event_type: string;
  status: WebhookDeliveryDto['status'];
  next_attempt_at: number | null;
  created_at: number;
  completed_at: number | null;
}

interface AttemptRow {
  delivery_id: number;
  attempt_number: number;
  ok: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  created_at: number;
}

const PAGE = query<DeliveryRow>(`SELECT id, webhook_msg_id, event_type, status, next_attempt_at, created_at, completed_at
  FROM webhook_deliveries WHERE subscription_id = @subscriptionId ORDER BY id DESC LIMIT @limit OFFSET @offset`);
const ONE = query<DeliveryRow>(`SELECT id, webhook_msg_id, event_type, status, next_attempt_at, created_at, completed_at
  FROM webhook_deliveries WHERE subscription_id = @subscriptionId AND id = @id`);
// The attempts of a page of deliveries in one statement: the ids as one JSON array.
const ATTEMPTS = query<AttemptRow>({
  sqlite: `SELECT delivery_id, attempt_number, ok, status_code, duration_ms, error, created_at
    FROM webhook_attempts WHERE delivery_id IN (SELECT value FROM json_each(@ids)) ORDER BY delivery_id, attempt_number`,
  postgres: `SELECT delivery_id, attempt_number, ok, status_code, duration_ms, error, created_at
    FROM webhook_attempts WHERE delivery_id = ANY(@ids::bigint[])
    ORDER BY delivery_id, attempt_number`,
});


/** Reads the attempt log of one subscription, on one executor (autocommit, or a transaction's). */
export function createDeliveryLogStore(sql: SqlExecutor) {
  const withAttempts = async (rows: DeliveryRow[]): Promise<WebhookDeliveryDto[]> => {
    if (rows.length === 0) return [];
    const attempts = await sql.all(ATTEMPTS, { ids: idList(sql, rows.map((r) => r.id)) });
    return rows.map((row) => ({
      id: row.id,
      webhook_id: row.webhook_msg_id,
      event_type: row.event_type,
      status: row.status,
      attempts: attempts.filter((a) => a.delivery_id === row.id).map(rowToAttempt),
      next_attempt_at: row.status === 'pending' && row.next_attempt_at !== null ? isoTime(row.next_attempt_at) : null,
      created_at: isoTime(row.created_at),
      completed_at: row.completed_at === null ? null : isoTime(row.completed_at),
    }));
  };

  return {
    /** A page (from 1) of deliveries, newest first, each with its attempts. */
    async list(subscriptionId: number, page: number, pageSize = 50): Promise<Page<WebhookDeliveryDto>> {
      // One row more than a page tells whether another page exists without a COUNT.
      const rows = await sql.all(PAGE, { subscriptionId, limit: pageSize + 1, offset: (page - 1) * pageSize });
      const items = await withAttempts(rows.slice(0, pageSize));
      return { items, page, has_more_pages: rows.length > pageSize };
    },

    /** One delivery of the subscription, or null. */
    async get(subscriptionId: number, deliveryId: number): Promise<WebhookDeliveryDto | null> {
      const row = await sql.get(ONE, { subscriptionId, id: deliveryId });
      return row === undefined ? null : ((await withAttempts([row]))[0] ?? null);
    },
  };
}

const rowToAttempt = (row: AttemptRow): WebhookAttemptDto => ({
  attempt_number: row.attempt_number,
  status: row.ok === 1 ? 'succeeded' : 'failed',
  response_code: row.status_code,
  duration_ms: row.duration_ms,
  error: row.error,
  created_at: isoTime(row.created_at),
});
