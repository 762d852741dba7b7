/**
 * Wire shapes of `svc webhooks listen` sessions: what the engine returns, `/api/webhooks/listen` serialises
 * and both listen clients hand back.
 */

/** `POST /webhooks/listen`: one listener, its signing secret and the events it receives. */
export interface ListenSessionDto {
  id: string;
  secret: string;
  events: string[];
}

/** `POST /webhooks/listen` body; `events` defaults to every workspace event. */
export interface ListenOpenInput {
  events?: string[];
}

/** `GET /webhooks/listen/secret`: the workspace's listener secret, the same for every session. */
export interface ListenSecretDto {
  secret: string;
}

/** One delivery handed to the listener: forward `payload` verbatim with `headers` (already signed). */
export interface ListenDeliveryDto {
  /** Delivery id; report the forward's result under it. */
  id: number;
  /** The `webhook-id` header; a redelivery keeps it. */
  webhook_id: string;
  event_type: string;
  /** This attempt's number, from 1 to `max_attempts`. */
  attempt: number;
  max_attempts: number;
  /** The exact body that was signed. */
  payload: string;
  /** Standard Webhooks headers: `webhook-id`, `webhook-timestamp`, `webhook-signature`. */
  headers: Record<string, string>;
}

/** `POST /webhooks/listen/{id}/results`: what the local app answered to one forward. */
export interface ListenResultInput {
  delivery_id: number;
  /** HTTP status of the local app, or null when it could not be reached. */
  status_code: number | null;
  duration_ms: number;
  /** Why the forward failed (refused, timed out), or null. */
  error: string | null;
}

/**
 * What became of the attempt: done, to be retried, or given up (counted in `errors_counter`). A result for a
 * delivery no longer leased to the session (reported twice, or its lease ran out) is a 409 instead.
 */
export interface ListenReportDto {
  delivery_id: number;
  status: 'succeeded' | 'retry_scheduled' | 'failed';
  attempt: number | null;
  next_attempt_at: string | null;
}

/** `DELETE /webhooks/listen/{id}`: the session, its subscriptions and their deliveries are gone. */
export interface ListenClosedDto {
  closed: true;
  id: string;
}
