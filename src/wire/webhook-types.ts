/**
 * Wire shapes of webhook subscriptions (docs/api-behaviour.md): what the engine returns, the HTTP layer
 * validates, serialises and documents, and both clients hand back. One schema each, the type derived from it.
 */
import { DateTime, Nullable, type Static, StringEnum, TrueFlag, Type } from './schema.js';

const record = {
  id: Type.Integer(),
  event_type: Type.String(),
  enabled: Type.Boolean(),
  url: Type.String(),
  errors_counter: Type.Integer(),
};

/** A subscription as docs/api-behaviour.md shows it. The secret is never part of it. */
export const WebhookDto = Type.Object(record, { title: 'Webhook' });
export type WebhookDto = Static<typeof WebhookDto>;

/** The answer of `POST /webhooks`: the record plus its signing secret, shown this once. */
export const CreatedWebhookDto = Type.Object(
  { ...record, secret: Type.String({ description: 'whsec_... signing secret' }) },
  { title: 'CreatedWebhook' },
);
export type CreatedWebhookDto = Static<typeof CreatedWebhookDto>;

const eventType = Type.String({ description: 'Event identifier' });
const url = Type.String({ description: 'Endpoint that receives the POSTs', maxLength: 2048 });

/**
 * `POST /webhooks`; `enabled` defaults to true. `event_type` is any string here: the routes narrow it to
 * their area's events (`withEvents`).
 */
export const WebhookCreateInput = Type.Object({
  event_type: eventType,
  url,
  enabled: Type.Optional(Type.Boolean({ default: true })),
});
export type WebhookCreateInput = Static<typeof WebhookCreateInput>;

/** `PUT /webhooks/{id}`: partial, only supplied fields change (docs/api-behaviour.md). */
export const WebhookUpdateInput = Type.Object({
  event_type: Type.Optional(eventType),
  url: Type.Optional(url),
  enabled: Type.Optional(Type.Boolean()),
});
export type WebhookUpdateInput = Static<typeof WebhookUpdateInput>;

/** `DELETE /webhooks/{id}` (docs/api-behaviour.md leaves the body open; this one says what was removed). */
export const DeletedWebhookDto = Type.Object({ deleted: TrueFlag(), id: Type.Integer() }, { title: 'DeletedWebhook' });
export type DeletedWebhookDto = Static<typeof DeletedWebhookDto>;

/** `GET /webhooks/{id}/secret`: asked for explicitly, never printed unless asked. */
export const WebhookSecretDto = Type.Object({ id: Type.Integer(), secret: Type.String() }, { title: 'WebhookSecret' });
export type WebhookSecretDto = Static<typeof WebhookSecretDto>;

/** One attempt of a delivery in the attempt log. */
export const WebhookAttemptDto = Type.Object(
  {
    attempt_number: Type.Integer(),
    status: StringEnum(['succeeded', 'failed'] as const),
    response_code: Nullable(Type.Integer()),
    duration_ms: Type.Integer(),
    error: Nullable(Type.String()),
    created_at: DateTime(),
  },
  { title: 'WebhookAttempt' },
);
export type WebhookAttemptDto = Static<typeof WebhookAttemptDto>;

/** One delivery and its attempts (`GET /webhooks/{id}/deliveries`); `webhook_id` is the `webhook-id` header. */
export const WebhookDeliveryDto = Type.Object(
  {
    id: Type.Integer(),
    webhook_id: Type.String({ description: 'The webhook-id header; a redelivery keeps it' }),
    event_type: Type.String(),
    status: StringEnum(['pending', 'delivering', 'succeeded', 'failed'] as const),
    attempts: Type.Array(WebhookAttemptDto),
    next_attempt_at: Nullable(DateTime()),
    created_at: DateTime(),
    completed_at: Nullable(DateTime()),
  },
  { title: 'WebhookDelivery' },
);
export type WebhookDeliveryDto = Static<typeof WebhookDeliveryDto>;

/** `POST /webhooks/trigger`: a sample event fired through the real delivery path, like `stripe trigger`. */
export const TriggerEventInput = Type.Object({ event_type: eventType });
export type TriggerEventInput = Static<typeof TriggerEventInput>;

/** What a trigger queued: one delivery per enabled subscription and listen session of the event type. */
export const TriggeredEventDto = Type.Object(
  {
    event_type: Type.String(),
    webhook_id: Nullable(Type.String({ description: 'The webhook-id header of every delivery; null when nobody takes the event' })),
    deliveries: Type.Integer({ description: 'Deliveries queued: one per enabled subscription and listen session of the type' }),
  },
  { title: 'TriggeredEvent' },
);
export type TriggeredEventDto = Static<typeof TriggeredEventDto>;

/** The result of one delivery attempt, as a sender reports it and the attempt log stores it. */
export interface SendOutcome {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}
