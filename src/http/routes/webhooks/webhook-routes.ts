/** Webhook subscriptions, their attempt log, redelivery and test events (docs/api-behaviour.md). */
import type { FastifyRequest } from 'fastify';
import {
  CreatedWebhookDto,
  DeletedWebhookDto,
  TriggeredEventDto,
  WebhookDeliveryDto,
  WebhookDto,
  WebhookSecretDto,
} from '../../../wire/webhook-types.js';
import type { WebhookSubscriptionsApi } from '../../../engine/webhooks/subscriptions.js';
import { workspaceIdOf } from '../public/token-auth.js';
import { type RouteContext, type RouteGroup, ok } from '../../server/route-context.js';
import { idParams, pageOf, pageQuery, responses as publicResponses } from '../../schemas/common-schemas.js';
import { deliveryParams, triggerEventBody, webhookCreateBody, webhookUpdateBody } from '../../schemas/webhook-schemas.js';
import type { partnerResponses } from '../../schemas/partner-schemas.js';
import type { TSchema } from '../../../wire/schema.js';
import { EVENT_TYPES } from '../../../wire/webhook-events.js';

/** How a route finds the subscriptions of the authenticated caller (a workspace, or a partner). */
export type WebhookScopeOf = (ctx: RouteContext, request: FastifyRequest) => WebhookSubscriptionsApi;

/** How a mount describes its answers: the envelope on 200 and its own 401 (no body on /api, a body on /partner). */
export type ResponsesOf = <T extends TSchema>(data: T) => ReturnType<typeof publicResponses<T>> | ReturnType<typeof partnerResponses<T>>;

/**
 * The webhook routes over any scope: `/api` mounts them for the token's workspace; `/partner` mounts the same
 * group with the partner's subscriptions, the partner events and its own 401 body (`responses`).
 */
export function webhookRouteGroup(scopeOf: WebhookScopeOf, events: readonly string[], responses: ResponsesOf = publicResponses): RouteGroup {
  const tags = ['webhooks'];
  return async (app, ctx) => {
    const api = (request: FastifyRequest) => scopeOf(ctx, request);

    app.get(
      '/webhooks',
      { schema: { tags, operationId: 'listWebhooks', summary: 'List webhook subscriptions, 50 a page', querystring: pageQuery, response: responses(pageOf(WebhookDto)) } },
      async (request) => ok(await api(request).list(request.query.page)),
    );
    app.post(
      '/webhooks',
      {
        schema: {
          tags, operationId: 'createWebhook',
          summary: 'Create a subscription; the answer holds its signing secret, shown this once',
          body: webhookCreateBody(events), response: responses(CreatedWebhookDto),
        },
      },
      async (request) => ok(await api(request).create(request.body)),
    );
    app.get(
      '/webhooks/:id',
      { schema: { tags, operationId: 'getWebhook', summary: 'Get a subscription', params: idParams, response: responses(WebhookDto) } },
      async (request) => ok(await api(request).get(request.params.id)),
    );
    app.put(
      '/webhooks/:id',
      {
        schema: {
          tags, operationId: 'updateWebhook', summary: 'Update a subscription; only supplied fields change',
          params: idParams, body: webhookUpdateBody(events), response: responses(WebhookDto),
        },
      },
      async (request) => ok(await api(request).update(request.params.id, request.body ?? {})),
    );
    app.delete(
      '/webhooks/:id',
      {
        schema: {
          tags, operationId: 'deleteWebhook', summary: 'Delete a subscription and its pending deliveries; answers {deleted, id}',
          params: idParams, response: responses(DeletedWebhookDto),
        },
      },
      async (request) => ok(await api(request).delete(request.params.id)),
    );
    app.get(
      '/webhooks/:id/secret',
      { schema: { tags, operationId: 'getWebhookSecret', summary: 'Get the signing secret of a subscription', params: idParams, response: responses(WebhookSecretDto) } },
      async (request) => ok(await api(request).secret(request.params.id)),
    );
    app.get(
      '/webhooks/:id/deliveries',
      {
        schema: {
          tags, operationId: 'listWebhookDeliveries', summary: 'Attempt log: deliveries, newest first, with their attempts',
          params: idParams, querystring: pageQuery, response: responses(pageOf(WebhookDeliveryDto)),
        },
      },
      async (request) => ok(await api(request).deliveries(request.params.id, request.query.page)),
    );
    app.post(
      '/webhooks/:id/deliveries/:deliveryId/redeliver',
      {
        schema: {
          tags, operationId: 'redeliverWebhookDelivery', summary: 'Queue one delivery again; it keeps its webhook-id',
          params: deliveryParams, response: responses(WebhookDeliveryDto),
        },
      },
      async (request) => ok(await api(request).redeliver(request.params.id, request.params.deliveryId)),
    );
    app.post(
      '/webhooks/:id/test',
      {
        schema: {
          tags, operationId: 'testWebhook', summary: 'Queue a sample event ("test": true) of the subscription\'s type',
          params: idParams, response: responses(WebhookDeliveryDto),
        },
      },
      async (request) => ok(await api(request).test(request.params.id)),
    );
    app.post(
      '/webhooks/trigger',
      {
        schema: {
          tags, operationId: 'triggerWebhookEvent',
          summary: 'Fire a sample event ("test": true) to every enabled subscription and listen session of its type',
          body: triggerEventBody(events), response: responses(TriggeredEventDto),
        },
      },
      async (request) => ok(await api(request).trigger(request.body.event_type)),
    );
  };
}

/** The Public API's webhook routes: the subscriptions of the token's workspace. */
export const publicWebhookRoutes: RouteGroup = webhookRouteGroup(
  (ctx, request) => ctx.engine.webhooks(workspaceIdOf(request)),
  EVENT_TYPES,
);
