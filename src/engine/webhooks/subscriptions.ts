import type { Page } from '../../wire/types.js';
import type {
  CreatedWebhookDto,
  DeletedWebhookDto,
  WebhookCreateInput,
  WebhookDeliveryDto,
  WebhookDto,
  TriggeredEventDto,
  WebhookSecretDto,
  WebhookUpdateInput,
} from '../../wire/webhook-types.js';
import type { WebhookRow, WebhookScope } from '../../store/webhooks/subscription-store.js';
import { EVENT_TYPES } from '../../wire/webhook-events.js';
import { generateMessageId, generateSecret } from '../../webhooks/signature.js';
import { validateWebhookUrl } from '../../webhooks/url-policy.js';
import { didYouMean } from '../../wire/suggest.js';
import { inWriteTransaction, type EngineContext } from '../context.js';
import { conflict, invalid, notFound } from '../../wire/errors.js';
import { PARTNER_EVENTS } from '../events.js';
import { assertId } from '../ids.js';
import { pageOf } from '../paging.js';
import { samplePayload } from './payloads.js';
import { WEBHOOKS_WAKE } from './runtime.js';

/** Webhook subscriptions of one scope; the engine's side of `WebhooksClient`. */
export interface WebhookSubscriptionsApi {
  list(page: number): Promise<Page<WebhookDto>>;
  create(input: WebhookCreateInput): Promise<CreatedWebhookDto>;
  get(id: number): Promise<WebhookDto>;
  update(id: number, input: WebhookUpdateInput): Promise<WebhookDto>;
  delete(id: number): Promise<DeletedWebhookDto>;
  secret(id: number): Promise<WebhookSecretDto>;
  deliveries(id: number, page: number): Promise<Page<WebhookDeliveryDto>>;
  redeliver(id: number, deliveryId: number): Promise<WebhookDeliveryDto>;
  test(id: number): Promise<WebhookDeliveryDto>;
  /** A sample event of `eventType` to every enabled subscription and listen session of the scope that takes it. */
  trigger(eventType: string): Promise<TriggeredEventDto>;
}

/** The Public API's subscriptions of one workspace: the 12 workspace events (docs/api-behaviour.md). */
export const workspaceSubscriptions = (ctx: EngineContext, workspaceId: number): WebhookSubscriptionsApi =>
  subscriptionsOf(ctx, { workspaceId, partnerId: null }, EVENT_TYPES);

/**
 * A partner's own subscriptions (docs/api-behaviour.md), for `/partner/webhooks`: the same record and operations,
 * partner events only. `partnerId` is the partner's row id (PartnerRow.id), not its public Partner ID.
 */
export const partnerSubscriptions = (ctx: EngineContext, partnerId: number): WebhookSubscriptionsApi =>
  subscriptionsOf(ctx, { workspaceId: null, partnerId }, PARTNER_EVENTS);

function subscriptionsOf(ctx: EngineContext, scope: WebhookScope, events: readonly string[]): WebhookSubscriptionsApi {
  const mode = ctx.config.dev ? 'dev' : 'strict';
  // Hints name the commands of this scope: a partner manages its subscriptions under `svc partner webhooks`.
  const webhooksCommand = scope.workspaceId !== null ? 'svc webhooks' : 'svc partner webhooks';
  // After the commit: the worker (on PostgreSQL every replica's) looks for the new delivery now, not at its next poll.
  const wake = (): void => ctx.wake(WEBHOOKS_WAKE);

  const eventType = (value: unknown): string => {
    if (typeof value !== 'string' || !events.includes(value)) {
      const suggestion = typeof value === 'string' ? didYouMean(value, events) : undefined;
      throw invalid(`event_type must be one of ${events.join(', ')}`, suggestion ?? `see \`${webhooksCommand} create --help\` for the event list`);
    }
    return value;
  };
  const enabled = (value: unknown): boolean => {
    if (typeof value !== 'boolean') throw invalid('enabled must be true or false');
    return value;
  };
  // Another scope's subscription reads as missing, so ids cannot be probed across workspaces. `c` is the
  // engine's context or, for a check that a write depends on, the transaction's.
  const row = async (c: EngineContext, id: number): Promise<WebhookRow> => {
    assertId('webhook id', id);
    const found = await c.stores.webhooks.byId(scope, id);
    if (found === undefined) throw notFound(`webhook ${id}`, `list subscriptions with \`${webhooksCommand} list\``);
    return found;
  };
  const delivery = async (c: EngineContext, subscriptionId: number, deliveryId: number): Promise<WebhookDeliveryDto> => {
    const found = await c.stores.deliveryLog.get(subscriptionId, deliveryId);
    if (found === null) throw notFound(`delivery ${deliveryId} of webhook ${subscriptionId}`);
    return found;
  };
  // Read (after the commit) before the nudge: the answer says "queued", whatever the worker makes of it a moment later.
  // The delivery as queued, read in the transaction that queued it: read after the commit, a worker could
  // already have claimed or sent it, and the answer would say so by chance.
  const queued = async (queue: (tx: EngineContext) => Promise<number>, subscriptionId: number): Promise<WebhookDeliveryDto> => {
    const dto = await inWriteTransaction(ctx, async (tx) => delivery(tx, subscriptionId, await queue(tx)));
    wake();
    return dto;
  };

  return {
    list: async (page) => pageOf(page, (limit, offset) => ctx.stores.webhooks.page(scope, limit, offset), webhookDto),
    async create(input) {
      const type = eventType(input?.event_type);
      const url = validateWebhookUrl(input.url, mode);
      const on = input.enabled === undefined ? true : enabled(input.enabled);
      const secret = generateSecret();
      // The count and the insert in one transaction: two creates at the limit cannot both get in.
      return inWriteTransaction(ctx, async (tx) => {
        const limit = tx.config.webhookSubscriptionLimit;
        if ((await tx.stores.webhooks.count(scope)) >= limit) {
          throw conflict(`at most ${limit} webhook subscriptions are allowed`, `delete one you no longer need (\`${webhooksCommand} delete ID --yes\`)`);
        }
        const id = await tx.stores.webhooks.insert({ ...scope, eventType: type, url, enabled: on, secret, now: tx.clock.now() });
        return { ...webhookDto(await row(tx, id)), secret };
      });
    },
    get: async (id) => webhookDto(await row(ctx, id)),
    async update(id, input) {
      // Only supplied fields change (docs/api-behaviour.md); each is checked before anything is written.
      const type = input?.event_type === undefined ? undefined : eventType(input.event_type);
      const url = input?.url === undefined ? undefined : validateWebhookUrl(input.url, mode);
      const on = input?.enabled === undefined ? undefined : enabled(input.enabled);
      return inWriteTransaction(ctx, async (tx) => {
        const current = await row(tx, id);
        await tx.stores.webhooks.update({
          id,
          eventType: type ?? current.event_type,
          url: url ?? current.url,
          enabled: on ?? current.enabled === 1,
          now: tx.clock.now(),
        });
        return webhookDto(await row(tx, id));
      });
    },
    async delete(id) {
      // Its pending deliveries go with it (ON DELETE CASCADE): nobody is left to receive them.
      await inWriteTransaction(ctx, async (tx) => tx.stores.webhooks.remove((await row(tx, id)).id));
      return { deleted: true, id };
    },
    secret: async (id) => ({ id, secret: (await row(ctx, id)).secret }),
    async deliveries(id, page) {
      const subscription = await row(ctx, id);
      if (!Number.isSafeInteger(page) || page < 1) throw invalid('page must be a whole number from 1');
      return ctx.stores.deliveryLog.list(subscription.id, page);
    },
    async redeliver(id, deliveryId) {
      assertId('delivery id', deliveryId);
      return queued(async (tx) => {
        await delivery(tx, (await row(tx, id)).id, deliveryId);
        const newId = await tx.stores.deliveries.redeliver(deliveryId, tx.clock.now());
        // Nothing was queued: the transaction this ends has written nothing.
        if (newId === null) throw notFound(`delivery ${deliveryId} of webhook ${id}`);
        return newId;
      }, id);
    },
    async test(id) {
      return queued(async (tx) => {
        const subscription = await row(tx, id);
        if (subscription.enabled !== 1) {
          throw conflict(`webhook ${id} is disabled, so a test event would not be delivered`, `enable it first: \`${webhooksCommand} update ${id} --enable\``);
        }
        const payload = samplePayload(tx, subscription.event_type);
        return tx.stores.deliveries.enqueue({ subscriptionId: id, eventType: subscription.event_type, payload, now: tx.clock.now() });
      }, id);
    },
    async trigger(type) {
      const event = eventType(type);
      const webhookId = generateMessageId();
      const payload = samplePayload(ctx, event);
      const deliveries = await inWriteTransaction(ctx, (tx) =>
        tx.stores.deliveries.enqueueEvent({ ...scope, eventType: event, payload, now: tx.clock.now(), msgId: webhookId }),
      );
      if (deliveries.length > 0) wake();
      return { event_type: event, webhook_id: deliveries.length > 0 ? webhookId : null, deliveries: deliveries.length };
    },
  };
}

/** The docs/api-behaviour.md record; the secret is left out on purpose. */
export const webhookDto = (row: WebhookRow): WebhookDto => ({
  id: row.id,
  event_type: row.event_type,
  enabled: row.enabled === 1,
  url: row.url,
  errors_counter: row.errors_counter,
});
