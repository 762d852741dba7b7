import type { EngineContext } from './context.js';
import type { DomainEvent, EventSink } from './events.js';
import { buildEventPayload, partnerEventPayload } from './webhook-payloads.js';
import { webhookRuntime } from './webhook-runtime.js';

/**
 * The webhook outbox as the engine's event sink. It runs inside the write transaction of every send and
 * receive, so it first makes one indexed probe for an enabled subscription and builds nothing when there
 * is none. Otherwise it reads the rows, builds the SPEC.md 2.5 body and writes one delivery per matching
 * subscription in the same transaction: the delivery commits (or rolls back) with the change itself.
 */
export function createWebhookEventSink(ctx: EngineContext, next?: EventSink): EventSink {
  const { store, queue } = webhookRuntime(ctx);
  let wakeScheduled = false;
  // The worker is nudged after the transaction commits (this runs synchronously inside it), once per batch.
  const wakeAfterCommit = () => {
    if (wakeScheduled) return;
    wakeScheduled = true;
    setImmediate(() => {
      wakeScheduled = false;
      webhookRuntime(ctx).wake();
    });
  };

  const emit = (event: DomainEvent): void => {
    const now = ctx.clock.now();
    if ('partnerId' in event) {
      if (!store.partnerWants(event.partnerId, event.type)) return;
      const payload = partnerEventPayload(ctx, event.type, event.data);
      if (queue.enqueueEvent({ partnerId: event.partnerId, eventType: event.type, payload, now }).length > 0) wakeAfterCommit();
      return;
    }
    if (!store.workspaceWants(event.workspaceId, event.type)) return;
    const payload = buildEventPayload(ctx, event);
    if (payload === null) return;
    if (queue.enqueueEvent({ workspaceId: event.workspaceId, eventType: event.type, payload, now }).length > 0) wakeAfterCommit();
  };

  return {
    emit(event) {
      emit(event);
      next?.emit(event);
    },
  };
}
