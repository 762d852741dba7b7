/**
 * Wire shapes of `svc webhooks listen` sessions: what the engine returns, `/api/webhooks/listen` validates,
 * serialises and documents, and both listen clients hand back. One schema each, the type derived from it.
 */
import { Nullable, type Static, StringEnum, Type } from './schema.js';

/** `POST /webhooks/listen`: one listener, its signing secret and the events it receives. */
export const ListenSessionDto = Type.Object(
  { id: Type.String(), secret: Type.String(), events: Type.Array(Type.String()) },
  { title: 'ListenSession' },
);
export type ListenSessionDto = Static<typeof ListenSessionDto>;

/**
 * `POST /webhooks/listen` body; `events` defaults to every workspace event. Any names here: the routes
 * narrow them to their area's events.
 */
export const ListenOpenInput = Type.Object({ events: Type.Optional(Type.Array(Type.String(), { minItems: 1 })) });
export type ListenOpenInput = Static<typeof ListenOpenInput>;

/** `GET /webhooks/listen/secret`: the workspace's listener secret, the same for every session. */
export const ListenSecretDto = Type.Object({ secret: Type.String() });
export type ListenSecretDto = Static<typeof ListenSecretDto>;

/**
 * One delivery handed to the listener: forward `payload` verbatim with `headers` (already signed). Sent as a
 * Server-Sent Event, not through a route schema, so it stays a plain type.
 */
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
export const ListenResultInput = Type.Object({
  /** Delivery id the forward was for. */
  delivery_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  /** HTTP status of the local app, or null when it could not be reached. */
  status_code: Nullable(Type.Integer({ minimum: 100, maximum: 599 })),
  duration_ms: Type.Integer({ minimum: 0, maximum: 3_600_000 }),
  /** Why the forward failed (refused, timed out), or null. */
  error: Nullable(Type.String({ maxLength: 2000 })),
});
export type ListenResultInput = Static<typeof ListenResultInput>;

/**
 * What became of the attempt: done, to be retried, or given up (counted in `errors_counter`). A result for a
 * delivery no longer leased to the session (reported twice, or its lease ran out) is a 409 instead.
 */
export const ListenReportDto = Type.Object(
  {
    delivery_id: Type.Integer(),
    status: StringEnum(['succeeded', 'retry_scheduled', 'failed'] as const),
    attempt: Nullable(Type.Integer()),
    next_attempt_at: Nullable(Type.String()),
  },
  { title: 'ListenReport' },
);
export type ListenReportDto = Static<typeof ListenReportDto>;

/** `DELETE /webhooks/listen/{id}`: the session, its subscriptions and their deliveries are gone. */
export const ListenClosedDto = Type.Object({ closed: Type.Unsafe<true>(Type.Boolean()), id: Type.String() });
export type ListenClosedDto = Static<typeof ListenClosedDto>;
