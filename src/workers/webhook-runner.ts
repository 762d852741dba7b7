import type { Dispatcher } from 'undici';
import { inWriteTransaction, type EngineContext } from '../engine/context.js';
import { refreshDownloadUrls } from '../engine/webhooks/payloads.js';
import { WEBHOOKS_WAKE } from '../engine/webhooks/runtime.js';
import type { DeliveryTaker } from '../engine/webhooks/delivery-hand-off.js';
import { createDeliveryOutbox, OUTBOX_TRANSACTION } from '../store/webhooks/delivery-outbox.js';
import { partnerWebhookHeaders } from '../partner/partner-jwt-sign.js';
import { DeliveryWorker, type SendFn } from '../webhooks/delivery-worker.js';
import type { ResolveHost } from '../webhooks/guarded-dispatcher.js';
import type { UrlPolicyMode } from '../webhooks/url-policy.js';
import { WEBHOOK_TIMEOUT_MS } from '../webhooks/send-outcome.js';
import { createDeadLeaseReaper, processOwner } from './lease-owners.js';
import type { JobRunner } from './worker-runner.js';

/** How often the webhook worker looks for deliveries queued by other processes (its own wake it at once). */
export const WEBHOOK_POLL_MS = 100;

/**
 * How long a finished attempt may wait to be recorded with the next claim, when the last claim left no due work
 * behind: under a steady load a wake-up comes sooner, and the attempt's result rides in that claim's transaction.
 */
export const WEBHOOK_RECORD_LINGER_MS = 20;

/** Deliveries in flight in one process, over every tenant. */
export const WEBHOOK_CONCURRENCY = 256;

/**
 * In-flight caps that make one tenant's hanging or slow receivers spend only its own share
 * (store/webhooks/delivery-picker.ts), counted over every process: per subscription, per receiver origin of a
 * tenant, per tenant. A healthy receiver needs its event rate times its round trip in flight: 500 events/s at
 * 50 ms is 25.
 */
export const WEBHOOK_CAPS = { perSubscription: 32, perEndpoint: 32, perTenant: 64 } as const;

/** Options of the webhook worker; tests inject `send` to run without sockets. */
export interface WebhookRunnerOptions {
  send?: SendFn;
  concurrency?: number;
  /** DNS behind the connect-time address check (default: the system resolver); tests play a rebinding attacker. */
  resolveHost?: ResolveHost;
  /** The longest a poll waits once polls find nothing (`DeliveryWorker.start`, whose default is the poll itself). */
  idlePollMs?: number | undefined;
}

/**
 * The engine's webhook delivery worker: claims due deliveries from the outbox and POSTs them, signed, through
 * a dispatcher that checks the resolved address at connect time (strict unless the engine is in dev mode).
 * It drives itself (`start`/`stop`) rather than through the shared loop, so a slow endpoint never delays sends;
 * it is named after the wake-up (`webhooks`) that the outbox sends after each enqueue commits.
 * Claims and records run in write transactions, one at a time per process and many deliveries to one (group
 * commit), READ COMMITTED on PostgreSQL (claims lock the rows they take with FOR UPDATE SKIP LOCKED); the POST
 * runs between them, outside any transaction. A wake-up reaches it in the next turn after the enqueueing commit.
 */
export function createWebhookRunner(ctx: EngineContext, options: WebhookRunnerOptions = {}): JobRunner & { worker: DeliveryWorker } {
  // Read at each use: an instance marked strict meanwhile makes this process strict at its next maintenance sweep.
  const mode = (): UrlPolicyMode => (ctx.config.dev ? 'dev' : 'strict');
  let loaded: { policy: UrlPolicyMode; sender: Promise<{ send: SendFn; dispatcher: Dispatcher }> } | undefined;
  // Loaded and created on first use: an engine that never delivers (a CLI command, an admin command) neither
  // loads undici nor opens a connection pool. Once per policy: even a cached import() costs a module-map lookup.
  const loadSender = async (policy: UrlPolicyMode): Promise<{ send: SendFn; dispatcher: Dispatcher }> => {
    const [{ createWebhookDispatcher }, { httpSend }] = await Promise.all([
      import('../webhooks/guarded-dispatcher.js'),
      import('../webhooks/http-sender.js'),
    ]);
    const dispatcher = createWebhookDispatcher(policy, options.resolveHost === undefined ? {} : { resolveHost: options.resolveHost });
    return { send: httpSend(dispatcher), dispatcher };
  };
  /** Closes the dispatcher of `previous` once its requests in flight have finished. */
  const release = async (previous: typeof loaded): Promise<void> => {
    await previous?.sender.then(({ dispatcher }) => dispatcher.close()).catch(() => undefined);
  };
  const currentSender = async (): Promise<SendFn> => {
    const policy = mode();
    if (loaded !== undefined && loaded.policy !== policy) {
      // The policy became strict: new connections go through the address check.
      void release(loaded);
      loaded = undefined;
    }
    loaded ??= { policy, sender: loadSender(policy) };
    return (await loaded.sender).send;
  };
  const send: SendFn = options.send ?? (async (request) => (await currentSender())(request));
  const outbox = createDeliveryOutbox(ctx.stores.deliveries, (fn) =>
    inWriteTransaction(ctx, (tx) => fn(tx.stores.deliveries), OUTBOX_TRANSACTION),
  );
  const owner = processOwner();
  // Three send timeouts: a live worker always finishes first, and a killed process's deliveries are taken over soon.
  const leaseMs = 3 * WEBHOOK_TIMEOUT_MS;
  const worker = new DeliveryWorker({
    outbox,
    clock: ctx.clock,
    send,
    owner,
    beforeClaim: createDeadLeaseReaper(outbox, ctx.clock),
    leaseMs,
    concurrency: options.concurrency ?? WEBHOOK_CONCURRENCY,
    perSubscriptionCap: WEBHOOK_CAPS.perSubscription,
    perEndpointCap: WEBHOOK_CAPS.perEndpoint,
    perTenantCap: WEBHOOK_CAPS.perTenant,
    // Read at each record: the maintenance sweep follows the instance's schedule when another process changes it.
    retryDelays: () => ctx.config.webhookRetryDelaysMs,
    failureNotifyThreshold: ctx.config.webhookFailureNotifyThreshold,
    urlPolicy: mode,
    prepareBody: (delivery) => refreshDownloadUrls(ctx, delivery.payload),
    extraHeaders: async (delivery, body) => {
      if (delivery.partnerId === null) return {};
      const partner = await ctx.stores.webhooks.partnerOfSubscription(delivery.subscriptionId);
      return partner === null ? {} : partnerWebhookHeaders(partner.public_id, partner.secret, ctx.clock, body);
    },
    onError: (error) => ctx.logger.error('webhook worker failed', { error: String(error) }),
    onRecorded: (delivery, outcome, result, finishedAt) =>
      ctx.metrics.webhookAttempt(result.status, outcome.durationMs, finishedAt - delivery.createdAt),
    recordLingerMs: WEBHOOK_RECORD_LINGER_MS,
  });
  let started = false;
  // PostgreSQL: deliveries leased to this worker as they are written, while it runs (`DeliveryHandOff`).
  const handOff = ctx.deliveryHandOff;
  const taker: DeliveryTaker = {
    owner,
    leaseMs,
    subscriptionCap: WEBHOOK_CAPS.perSubscription,
    tenantCap: Math.min(WEBHOOK_CAPS.perEndpoint, WEBHOOK_CAPS.perTenant),
    reserve: (wanted) => worker.reserveSlots(wanted),
    give: (claimed, reserved) => worker.adopt(claimed, reserved),
    release: (reserved) => worker.releaseSlots(reserved),
  };
  return {
    name: WEBHOOKS_WAKE,
    worker,
    runDue: () => worker.runDue(),
    nextDueAt: () => worker.nextDueAt(),
    wake() {
      if (started) worker.wake();
    },
    start() {
      started = true;
      worker.start(WEBHOOK_POLL_MS, options.idlePollMs);
      if (handOff !== undefined) handOff.taker = taker;
    },
    async stop() {
      started = false;
      if (handOff?.taker === taker) handOff.taker = undefined;
      await worker.stop();
      const previous = loaded;
      loaded = undefined;
      await release(previous);
    },
  };
}
