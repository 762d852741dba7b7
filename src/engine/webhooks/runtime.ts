import type { WebhookStore } from '../../store/webhook-store.js';
import type { DeliveryLog } from '../../webhooks/delivery-log.js';
import type { DeliveryQueue } from '../../webhooks/delivery-queue.js';
import type { EngineContext } from '../context.js';

/** The name the webhook worker wakes under (`ctx.wake`): this process's runner, and on PostgreSQL every replica's. */
export const WEBHOOKS_WAKE = 'webhooks';

/** What the webhook services use: the context's stores, and a nudge for the worker. */
export interface WebhookRuntime {
  store: WebhookStore;
  queue: DeliveryQueue;
  log: DeliveryLog;
  /** Call after a delivery was queued, so the worker need not wait for its next poll (after the commit, in a transaction). */
  wake: () => void;
}

/**
 * The webhook stores of `ctx` and its wake-up. Pass the context the statements should run in: inside a
 * write transaction, the transaction's (`tx`), whose stores and wake-up belong to it.
 */
export function webhookRuntime(ctx: EngineContext): WebhookRuntime {
  return {
    store: ctx.stores.webhooks,
    queue: ctx.stores.deliveries,
    log: ctx.stores.deliveryLog,
    wake: () => ctx.wake(WEBHOOKS_WAKE),
  };
}
