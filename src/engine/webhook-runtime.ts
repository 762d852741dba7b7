import { DeliveryLog } from '../webhooks/delivery-log.js';
import { DeliveryQueue } from '../webhooks/delivery-queue.js';
import { createWebhookStore, type WebhookStore } from '../store/webhook-store.js';
import type { EngineContext } from './context.js';

/** What the webhook services of one engine share: statements prepared once, and a nudge for the worker. */
export interface WebhookRuntime {
  store: WebhookStore;
  queue: DeliveryQueue;
  log: DeliveryLog;
  /** Called after a delivery was queued in this process, so the worker need not wait for its next poll. */
  wake: () => void;
}

const runtimes = new WeakMap<EngineContext, WebhookRuntime>();

/** The runtime of this engine, created on first use (one per engine context, like the stores). */
export function webhookRuntime(ctx: EngineContext): WebhookRuntime {
  let runtime = runtimes.get(ctx);
  if (runtime === undefined) {
    runtime = { store: createWebhookStore(ctx.db), queue: new DeliveryQueue(ctx.db), log: new DeliveryLog(ctx.db), wake: () => undefined };
    runtimes.set(ctx, runtime);
  }
  return runtime;
}
