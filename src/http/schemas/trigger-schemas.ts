/** Schemas of `POST /webhooks/trigger` (a sample event through the real delivery path). */
import type { JsonSchema } from './common-schemas.js';

export const triggerEventBody = (events: readonly string[]): JsonSchema => ({
  type: 'object',
  required: ['event_type'],
  properties: { event_type: { type: 'string', enum: [...events], description: 'Event identifier' } },
});

export const triggeredEventSchema: JsonSchema = {
  type: 'object',
  title: 'TriggeredEvent',
  required: ['event_type', 'webhook_id', 'deliveries'],
  properties: {
    event_type: { type: 'string' },
    webhook_id: { type: ['string', 'null'], description: 'The webhook-id header of every delivery; null when nobody takes the event' },
    deliveries: { type: 'integer', description: 'Deliveries queued: one per enabled subscription and listen session of the type' },
  },
};
