/**
 * Schemas of the webhook routes (docs/api-behaviour.md): the subscription record, the attempt log
 * and the bodies. The event list is a parameter, so the partner area can serve the same routes with its events.
 */
import type { JsonSchema } from './common-schemas.js';

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const bool = { type: 'boolean' } as const;
const time = { type: 'string', format: 'date-time' } as const;
const nullable = (type: 'string' | 'integer') => ({ type: [type, 'null'] }) as const;

const object = (title: string, properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  title,
  required: Object.keys(properties),
  properties,
});

const record = { id: int, event_type: str, enabled: bool, url: str, errors_counter: int };

/** docs/api-behaviour.md. */
export const webhookSchema = object('Webhook', record);

/** The creation answer: the record plus the secret, shown this once. */
export const createdWebhookSchema = object('CreatedWebhook', { ...record, secret: { type: 'string', description: 'whsec_... signing secret' } });

export const deletedWebhookSchema = object('DeletedWebhook', { deleted: { type: 'boolean', enum: [true] }, id: int });

export const webhookSecretSchema = object('WebhookSecret', { id: int, secret: str });

const attemptSchema = object('WebhookAttempt', {
  attempt_number: int,
  status: { type: 'string', enum: ['succeeded', 'failed'] },
  response_code: nullable('integer'),
  duration_ms: int,
  error: nullable('string'),
  created_at: time,
});

export const deliverySchema = object('WebhookDelivery', {
  id: int,
  webhook_id: { type: 'string', description: 'The webhook-id header; a redelivery keeps it' },
  event_type: str,
  status: { type: 'string', enum: ['pending', 'delivering', 'succeeded', 'failed'] },
  attempts: { type: 'array', items: attemptSchema },
  next_attempt_at: { type: ['string', 'null'], format: 'date-time' },
  created_at: time,
  completed_at: { type: ['string', 'null'], format: 'date-time' },
});

const eventType = (events: readonly string[]) => ({ type: 'string', enum: [...events], description: 'Event identifier' });
const url = { type: 'string', description: 'Endpoint that receives the POSTs', maxLength: 2048 } as const;

/** `POST /webhooks`. */
export const webhookCreateBody = (events: readonly string[]): JsonSchema => ({
  type: 'object',
  required: ['event_type', 'url'],
  properties: { event_type: eventType(events), url, enabled: { ...bool, default: true } },
});

/** `PUT /webhooks/{id}`: every field optional (partial update). */
export const webhookUpdateBody = (events: readonly string[]): JsonSchema => ({
  type: 'object',
  properties: { event_type: eventType(events), url, enabled: bool },
});

export const deliveryParams = {
  type: 'object',
  required: ['id', 'deliveryId'],
  properties: {
    id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    deliveryId: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
  },
} as const;

export interface DeliveryParams {
  id: number;
  deliveryId: number;
}
