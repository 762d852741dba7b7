import type { Page } from '../wire/types.js';
import type { WebhookAttemptDto, WebhookDeliveryDto } from '../wire/webhook-types.js';
import { isoTime } from '../engine/clock.js';
import type { Db } from '../store/database.js';

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

/** Reads the attempt log of one subscription. Prepared once per database, like the queue's statements. */
export class DeliveryLog {
  private readonly page;
  private readonly one;
  private readonly attempts;

  constructor(db: Db) {
    this.page = db.prepare(`SELECT id, webhook_msg_id, event_type, status, next_attempt_at, created_at, completed_at
      FROM webhook_deliveries WHERE subscription_id = ? ORDER BY id DESC LIMIT ? OFFSET ?`);
    this.one = db.prepare(`SELECT id, webhook_msg_id, event_type, status, next_attempt_at, created_at, completed_at
      FROM webhook_deliveries WHERE subscription_id = ? AND id = ?`);
    this.attempts = db.prepare(`SELECT delivery_id, attempt_number, ok, status_code, duration_ms, error, created_at
      FROM webhook_attempts WHERE delivery_id IN (SELECT value FROM json_each(?)) ORDER BY delivery_id, attempt_number`);
  }

  /** A page (from 1) of deliveries, newest first, each with its attempts. */
  list(subscriptionId: number, page: number, pageSize = 50): Page<WebhookDeliveryDto> {
    // One row more than a page tells whether another page exists without a COUNT.
    const rows = this.page.all(subscriptionId, pageSize + 1, (page - 1) * pageSize) as DeliveryRow[];
    const items = this.withAttempts(rows.slice(0, pageSize));
    return { items, page, has_more_pages: rows.length > pageSize };
  }

  /** One delivery of the subscription, or null. */
  get(subscriptionId: number, deliveryId: number): WebhookDeliveryDto | null {
    const row = this.one.get(subscriptionId, deliveryId) as DeliveryRow | undefined;
    return row === undefined ? null : (this.withAttempts([row])[0] ?? null);
  }

  private withAttempts(rows: DeliveryRow[]): WebhookDeliveryDto[] {
    const attempts = this.attempts.all(JSON.stringify(rows.map((r) => r.id))) as AttemptRow[];
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
  }
}

const rowToAttempt = (row: AttemptRow): WebhookAttemptDto => ({
  attempt_number: row.attempt_number,
  status: row.ok === 1 ? 'succeeded' : 'failed',
  response_code: row.status_code,
  duration_ms: row.duration_ms,
  error: row.error,
  created_at: isoTime(row.created_at),
});
