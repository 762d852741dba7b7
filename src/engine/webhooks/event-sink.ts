import { memoKeys } from '../memo-keys.js';
import { readOnce, type EngineContext, type EventSink } from '../context.js';
import type { DomainEvent } from '../events.js';
import { buildEventPayload, partnerEventPayload } from './payloads.js';
import { WEBHOOKS_WAKE } from './runtime.js';

/**
 * The webhook outbox as the engine's event sink. It runs inside the write transaction of every send and
 * receive, so it first makes one indexed probe for an enabled subscription and builds nothing when there
 * is none. Otherwise it reads the rows, builds the docs/api-behaviour.md body and writes one delivery per matching
 * subscription in the same transaction (through `tx`): the delivery commits (or rolls back) with the change
 * itself, and the worker is woken after the commit.
 */
export function createWebhookEventSink(_ctx: EngineContext, next?: EventSink): EventSink {
  const enqueue = async (tx: EngineContext, event: DomainEvent): Promise<void> => {
    const { webhooks, deliveries } = tx.stores;
    const now = tx.clock.now();
    if ('partnerId' in event) {
      if (!(await webhooks.partnerWants(event.partnerId, event.type))) return;
      const payload = partnerEventPayload(tx, event.type, event.data);
      const queued = await deliveries.enqueueEvent({ partnerId: event.partnerId, eventType: event.type, payload, now });
      if (queued.length > 0) tx.wake(WEBHOOKS_WAKE);
      return;
    }
    // Read once per transaction: the messages of one group commit ask the same question of the same workspace.
    const wanted = await readOnce(tx, memoKeys.wants(event.workspaceId, event.type), async () => ({ yes: await webhooks.workspaceWants(event.workspaceId, event.type) }));
    if (wanted?.yes !== true) return;
    const payload = await buildEventPayload(tx, event);
    if (payload === null) return;
    const queued = await deliveries.enqueueEvent({ workspaceId: event.workspaceId, eventType: event.type, payload, now });
    if (queued.length > 0) tx.wake(WEBHOOKS_WAKE);
  };

  return {
    async emit(tx, event) {
      await enqueue(tx, event);
      await next?.emit(tx, event);
    },
  };
}
