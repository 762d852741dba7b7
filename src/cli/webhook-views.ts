import type { Page } from '../wire/types.js';
import type { CreatedWebhookDto, WebhookDeliveryDto, WebhookDto } from '../wire/webhook-types.js';
import { type View, rowIfPresent } from './output.js';

// How webhook shapes read for a human; `--json` prints the data itself.

/** One subscription, with its secret only when the caller asked for it. */
export const webhookView = (w: WebhookDto & { secret?: string }): View => ({
  kind: 'record',
  rows: [
    ['id', w.id],
    ['event_type', w.event_type],
    ['url', w.url],
    ['enabled', w.enabled],
    ['errors_counter', w.errors_counter],
    ...rowIfPresent('secret', w.secret),
  ],
});

/** A new subscription: the record, its secret, and the warning that it is shown this once. `webhooksCommand`: `svc webhooks` or `svc partner webhooks`. */
export const createdWebhookView = (w: CreatedWebhookDto, webhooksCommand: string): View => ({
  kind: 'lines',
  lines: [
    `Created webhook ${w.id}: ${w.event_type} -> ${w.url}${w.enabled ? '' : ' (disabled)'}`,
    `Signing secret: ${w.secret}`,
    `Keep it now: it is not shown again unless you run \`${webhooksCommand} get ${w.id} --show-secret\`.`,
  ],
});

/** Subscriptions of the workspace (or the partner: `webhooksCommand` is the one that manages them). */
export const webhooksTable = (page: Page<WebhookDto>, webhooksCommand: string): View => ({
  kind: 'table',
  head: ['id', 'event_type', 'url', 'enabled', 'errors'],
  rows: page.items.map((w) => [w.id, w.event_type, w.url, w.enabled, w.errors_counter]),
  empty: `no webhook subscriptions (create one with \`${webhooksCommand} create --event E --url U\`)`,
});

const lastAttempt = (d: WebhookDeliveryDto) => d.attempts[d.attempts.length - 1];

/** The attempt log: one row per delivery, with its latest attempt. */
export const deliveriesTable = (page: Page<WebhookDeliveryDto>): View => ({
  kind: 'table',
  head: ['id', 'webhook_id', 'event_type', 'status', 'attempts', 'last_code', 'last_ms', 'last_error', 'created_at'],
  rows: page.items.map((d) => {
    const last = lastAttempt(d);
    return [d.id, d.webhook_id, d.event_type, d.status, d.attempts.length, last?.response_code, last?.duration_ms, last?.error, d.created_at];
  }),
  empty: 'no deliveries yet',
});

/** One delivery just queued (redelivery or test event). */
export const deliveryView = (d: WebhookDeliveryDto): View => ({
  kind: 'record',
  rows: [
    ['delivery_id', d.id],
    ['webhook_id', d.webhook_id],
    ['event_type', d.event_type],
    ['status', d.status],
    ['created_at', d.created_at],
  ],
});
