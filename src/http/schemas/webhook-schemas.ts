/**
 * Route bodies that name events: the wire schemas (src/wire) with their event names narrowed to the events
 * of the area serving them, so the partner area serves the same routes with its own events.
 */
import type { TObject } from 'typebox';
import { ListenOpenInput } from '../../wire/listen-types.js';
import { type Static, Type } from '../../wire/schema.js';
import { TriggerEventInput, WebhookCreateInput, WebhookUpdateInput } from '../../wire/webhook-types.js';

/** `schema` with the property `name` replaced by `value`; the type stays the wire type. */
const withProperty = <T extends TObject>(schema: T, name: string, value: (old: object) => object) =>
  Type.Unsafe<Static<T>>({ ...schema, properties: { ...schema.properties, [name]: value(schema.properties[name] as object) } });

/** A field naming one event: a string, one of `events`. */
const oneOf = (events: readonly string[]) => (old: object) => ({ ...old, enum: [...events] });

/** `POST /webhooks`. */
export const webhookCreateBody = (events: readonly string[]) => withProperty(WebhookCreateInput, 'event_type', oneOf(events));

/** `PUT /webhooks/{id}`: every field optional (partial update). */
export const webhookUpdateBody = (events: readonly string[]) => withProperty(WebhookUpdateInput, 'event_type', oneOf(events));

/** `POST /webhooks/trigger`. */
export const triggerEventBody = (events: readonly string[]) => withProperty(TriggerEventInput, 'event_type', oneOf(events));

/** `POST /webhooks/listen`: at most every event once. Unknown fields are dropped (removeAdditional), not refused. */
export const listenOpenBody = (events: readonly string[]) =>
  withProperty(ListenOpenInput, 'events', (old) => ({ ...old, maxItems: events.length, items: { type: 'string', enum: [...events] } }));

const positiveId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
export const deliveryParams = Type.Object({ id: positiveId, deliveryId: positiveId });

/** A listen session's id in a path. */
export const sessionParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
