import type { Page } from '../wire/types.js';
import type {
  CreatedWebhookDto,
  DeletedWebhookDto,
  WebhookCreateInput,
  WebhookDeliveryDto,
  WebhookDto,
  TriggeredEventDto,
  WebhookSecretDto,
  WebhookUpdateInput,
} from '../wire/webhook-types.js';
import type { WebhookRow, WebhookScope } from '../store/webhook-store.js';
import { EVENT_TYPES } from '../webhooks/payload.js';
import { generateMessageId, generateSecret } from '../webhooks/signature.js';
import { validateWebhookUrl } from '../webhooks/url-policy.js';
import { didYouMean } from '../wire/suggest.js';
import { inWriteTransaction, type EngineContext } from './context.js';
import { conflict, invalid, notFound } from './errors.js';
import { PARTNER_EVENTS } from './events.js';
import { assertId } from './ids.js';
import { pageOf } from './paging.js';
import { samplePayload } from './webhook-payloads.js';
import { webhookRuntime } from './webhook-runtime.js';

/** Webhook subscriptions of one scope; the engine's synchronous side of `WebhooksClient`. */
export interface WebhookSubscriptionsApi {
  list(page: number): Page<WebhookDto>;
  create(input: WebhookCreateInput): CreatedWebhookDto;
  get(id: number): WebhookDto;
  update(id: number, input: WebhookUpdateInput): WebhookDto;
  delete(id: number): DeletedWebhookDto;
  secret(id: number): WebhookSecretDto;
  deliveries(id: number, page: number): Page<WebhookDeliveryDto>;
  redeliver(id: number, deliveryId: number): WebhookDeliveryDto;
  test(id: number): WebhookDeliveryDto;
  /** A sample event of `eventType` to every enabled subscription and listen session of the scope that takes it. */
  trigger(eventType: string): TriggeredEventDto;
}

/** The Public API's subscriptions of one workspace: the 12 workspace events (SPEC.md 6, DESIGN.md 4). */
export const workspaceSubscriptions = (ctx: EngineContext, workspaceId: number): WebhookSubscriptionsApi =>
  subscriptionsOf(ctx, { workspaceId, partnerId: null }, EVENT_TYPES);

/**
 * A partner's own subscriptions (DESIGN.md 5), for `/partner/webhooks`: the same record and operations,
 * partner events only. `partnerId` is the partner's row id (PartnerRow.id), not its public Partner ID.
 */
export const partnerSubscriptions = (ctx: EngineContext, partnerId: number): WebhookSubscriptionsApi =>
  subscriptionsOf(ctx, { workspaceId: null, partnerId }, PARTNER_EVENTS);

function subscriptionsOf(ctx: EngineContext, scope: WebhookScope, events: readonly string[]): WebhookSubscriptionsApi {
  const { store, queue, log, wake } = webhookRuntime(ctx);
  const mode = ctx.config.dev ? 'dev' : 'strict';

  const eventType = (value: unknown): string => {
    if (typeof value !== 'string' || !events.includes(value)) {
      const suggestion = typeof value === 'string' ? didYouMean(value, events) : undefined;
      throw invalid(`event_type must be one of ${events.join(', ')}`, suggestion ?? 'see `svc webhooks create --help` for the event list');
    }
    return value;
  };
  const enabled = (value: unknown): boolean => {
    if (typeof value !== 'boolean') throw invalid('enabled must be true or false');
    return value;
  };
  // Another scope's subscription reads as missing, so ids cannot be probed across workspaces.
  const row = (id: number): WebhookRow => {
    assertId('webhook id', id);
    const found = store.byId(scope, id);
    if (found === undefined) throw notFound(`webhook ${id}`, 'list subscriptions with `svc webhooks list`');
    return found;
  };
  const delivery = (subscriptionId: number, deliveryId: number): WebhookDeliveryDto => {
    const found = log.get(subscriptionId, deliveryId);
    if (found === null) throw notFound(`delivery ${deliveryId} of webhook ${subscriptionId}`);
    return found;
  };
  // Read before the nudge: the answer says "queued", whatever the worker makes of it a moment later.
  const queued = (subscriptionId: number, deliveryId: number): WebhookDeliveryDto => {
    const dto = delivery(subscriptionId, deliveryId);
    wake();
    return dto;
  };

  return {
    list: (page) => pageOf(page, (limit, offset) => store.page(scope, limit, offset), webhookDto),
    create(input) {
      const type = eventType(input?.event_type);
      const url = validateWebhookUrl(input.url, mode);
      const on = input.enabled === undefined ? true : enabled(input.enabled);
      return inWriteTransaction(ctx.db, () => {
        const limit = ctx.config.webhookSubscriptionLimit;
        if (store.count(scope) >= limit) {
          throw conflict(`at most ${limit} webhook subscriptions are allowed`, 'delete one you no longer need (`svc webhooks delete ID --yes`)');
        }
        const secret = generateSecret();
        const id = store.insert({ ...scope, eventType: type, url, enabled: on, secret, now: ctx.clock.now() });
        return { ...webhookDto(row(id)), secret };
      });
    },
    get: (id) => webhookDto(row(id)),
    update(id, input) {
      // Only supplied fields change (SPEC.md 4.4); each is checked before anything is written.
      const type = input?.event_type === undefined ? undefined : eventType(input.event_type);
      const url = input?.url === undefined ? undefined : validateWebhookUrl(input.url, mode);
      const on = input?.enabled === undefined ? undefined : enabled(input.enabled);
      return inWriteTransaction(ctx.db, () => {
        const current = row(id);
        store.update({
          id,
          eventType: type ?? current.event_type,
          url: url ?? current.url,
          enabled: on ?? current.enabled === 1,
          now: ctx.clock.now(),
        });
        return webhookDto(row(id));
      });
    },
    delete(id) {
      // Its pending deliveries go with it (ON DELETE CASCADE): nobody is left to receive them.
      inWriteTransaction(ctx.db, () => store.remove(row(id).id));
      return { deleted: true, id };
    },
    secret: (id) => ({ id, secret: row(id).secret }),
    deliveries(id, page) {
      const subscription = row(id);
      if (!Number.isSafeInteger(page) || page < 1) throw invalid('page must be a whole number from 1');
      return log.list(subscription.id, page);
    },
    redeliver(id, deliveryId) {
      assertId('delivery id', deliveryId);
      const newId = inWriteTransaction(ctx.db, () => {
        delivery(row(id).id, deliveryId);
        return queue.redeliver(deliveryId, ctx.clock.now());
      });
      if (newId === null) throw notFound(`delivery ${deliveryId} of webhook ${id}`);
      return queued(id, newId);
    },
    test(id) {
      const deliveryId = inWriteTransaction(ctx.db, () => {
        const subscription = row(id);
        if (subscription.enabled !== 1) {
          throw conflict(`webhook ${id} is disabled, so a test event would not be delivered`, `enable it first: svc webhooks update ${id} --enable`);
        }
        const payload = samplePayload(ctx, subscription.event_type);
        return queue.enqueue({ subscriptionId: id, eventType: subscription.event_type, payload, now: ctx.clock.now() });
      });
      return queued(id, deliveryId);
    },
    trigger(type) {
      const event = eventType(type);
      const webhookId = generateMessageId();
      const payload = samplePayload(ctx, event);
      const deliveries = inWriteTransaction(ctx.db, () =>
        queue.enqueueEvent({ ...scope, eventType: event, payload, now: ctx.clock.now(), msgId: webhookId }),
      );
      if (deliveries.length > 0) wake();
      return { event_type: event, webhook_id: deliveries.length > 0 ? webhookId : null, deliveries: deliveries.length };
    },
  };
}

/** The SPEC.md 2.4 record; the secret is left out on purpose. */
export const webhookDto = (row: WebhookRow): WebhookDto => ({
  id: row.id,
  event_type: row.event_type,
  enabled: row.enabled === 1,
  url: row.url,
  errors_counter: row.errors_counter,
});
