/**
 * Wire shapes of webhook subscriptions (docs/api-behaviour.md): what the engine returns,
 * the HTTP layer serialises and both clients hand back.
 */
import type { Page } from './types.js';

/** A subscription as docs/api-behaviour.md shows it. The secret is never part of it. */
export interface WebhookDto {
  id: number;
  event_type: string;
  enabled: boolean;
  url: string;
  errors_counter: number;
}

/** The answer of `POST /webhooks`: the record plus its signing secret, shown this once. */
export interface CreatedWebhookDto extends WebhookDto {
  secret: string;
}

/** `POST /webhooks`; `enabled` defaults to true. */
export interface WebhookCreateInput {
  event_type: string;
  url: string;
  enabled?: boolean;
}

/** `PUT /webhooks/{id}`: partial, only supplied fields change (docs/api-behaviour.md). */
export interface WebhookUpdateInput {
  event_type?: string;
  url?: string;
  enabled?: boolean;
}

/** `DELETE /webhooks/{id}` (docs/api-behaviour.md leaves the body open; this one says what was removed). */
export interface DeletedWebhookDto {
  deleted: true;
  id: number;
}

/** `GET /webhooks/{id}/secret`: asked for explicitly, never printed unless asked. */
export interface WebhookSecretDto {
  id: number;
  secret: string;
}

/** One attempt of a delivery in the attempt log. */
export interface WebhookAttemptDto {
  attempt_number: number;
  status: 'succeeded' | 'failed';
  response_code: number | null;
  duration_ms: number;
  error: string | null;
  created_at: string;
}

/** One delivery and its attempts (`GET /webhooks/{id}/deliveries`); `webhook_id` is the `webhook-id` header. */
export interface WebhookDeliveryDto {
  id: number;
  webhook_id: string;
  event_type: string;
  status: 'pending' | 'delivering' | 'succeeded' | 'failed';
  attempts: WebhookAttemptDto[];
  next_attempt_at: string | null;
  created_at: string;
  completed_at: string | null;
}

/** `POST /webhooks/trigger`: a sample event fired through the real delivery path, like `stripe trigger`. */
export interface TriggerEventInput {
  event_type: string;
}

/** What a trigger queued: one delivery per enabled subscription and listen session of the event type. */
export interface TriggeredEventDto {
  event_type: string;
  /** The `webhook-id` header all of its deliveries carry; null when nobody takes the event. */
  webhook_id: string | null;
  deliveries: number;
}

/** The result of one delivery attempt, as a sender reports it and the attempt log stores it. */
export interface SendOutcome {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}
