/** Webhook subscriptions, their attempt log, redelivery and test events (docs/api-behaviour.md). */
import type { FastifyRequest } from 'fastify';
import type { TriggerEventInput, WebhookCreateInput, WebhookUpdateInput } from '../../../wire/webhook-types.js';
import type { WebhookSubscriptionsApi } from '../../../engine/webhooks/subscriptions.js';
import { workspaceIdOf } from '../public/token-auth.js';
import { type RouteContext, type RouteGroup, ok } from '../../server/route-context.js';
import { type IdParams, type JsonSchema, type PageQuery, idParams, pageOf, pageQuery, responses as publicResponses } from '../../schemas/common-schemas.js';
import {
  type DeliveryParams,
  createdWebhookSchema,
  deletedWebhookSchema,
  deliveryParams,
  deliverySchema,
  webhookCreateBody,
  webhookSchema,
  webhookSecretSchema,
  webhookUpdateBody,
} from '../../schemas/webhook-schemas.js';
import { triggerEventBody, triggeredEventSchema } from '../../schemas/trigger-schemas.js';
import { EVENT_TYPES } from '../../../wire/webhook-events.js';

/** How a route finds the subscriptions of the authenticated caller (a workspace, or a partner). */
export type WebhookScopeOf = (ctx: RouteContext, request: FastifyRequest) => WebhookSubscriptionsApi;

/** How a mount describes its answers: the envelope on 200 and its own 401 (no body on /api, a body on /partner). */
export type ResponsesOf = (data: JsonSchema) => Record<string, JsonSchema>;

/**
 * The webhook routes over any scope: `/api` mounts them for the token's workspace; `/partner` mounts the same
 * group with the partner's subscriptions, the partner events and its own 401 body (`responses`).
 */
export function webhookRouteGroup(scopeOf: WebhookScopeOf, events: readonly string[], responses: ResponsesOf = publicResponses): RouteGroup {
  const tags = ['webhooks'];
  return async (app, ctx) => {
    const api = (request: FastifyRequest) => scopeOf(ctx, request);

    app.get<{ Querystring: PageQuery }>(
      '/webhooks',
      { schema: { tags, operationId: 'listWebhooks', summary: 'List webhook subscriptions, 50 a page', querystring: pageQuery, response: responses(pageOf(webhookSchema)) } },
      async (request) => ok(await api(request).list(request.query.page)),
    );
    app.post<{ Body: WebhookCreateInput }>(
      '/webhooks',
      {
        schema: {
          tags, operationId: 'createWebhook',
          summary: 'Create a subscription; the answer holds its signing secret, shown this once',
          body: webhookCreateBody(events), response: responses(createdWebhookSchema),
        },
      },
      async (request) => ok(await api(request).create(request.body)),
    );
    app.get<{ Params: IdParams }>(
      '/webhooks/:id',
      { schema: { tags, operationId: 'getWebhook', summary: 'Get a subscription', params: idParams, response: responses(webhookSchema) } },
      async (request) => ok(await api(request).get(request.params.id)),
    );
    app.put<{ Params: IdParams; Body: WebhookUpdateInput }>(
      '/webhooks/:id',
      {
        schema: {
          tags, operationId: 'updateWebhook', summary: 'Update a subscription; only supplied fields change',
          params: idParams, body: webhookUpdateBody(events), response: responses(webhookSchema),
        },
      },
      async (request) => ok(await api(request).update(request.params.id, request.body ?? {})),
    );
    app.delete<{ Params: IdParams }>(
      '/webhooks/:id',
      {
        schema: {
          tags, operationId: 'deleteWebhook', summary: 'Delete a subscription and its pending deliveries; answers {deleted, id}',
          params: idParams, response: responses(deletedWebhookSchema),
        },
      },
      async (request) => ok(await api(request).delete(request.params.id)),
    );
    app.get<{ Params: IdParams }>(
      '/webhooks/:id/secret',
      { schema: { tags, operationId: 'getWebhookSecret', summary: 'Get the signing secret of a subscription', params: idParams, response: responses(webhookSecretSchema) } },
      async (request) => ok(await api(request).secret(request.params.id)),
    );
    app.get<{ Params: IdParams; Querystring: PageQuery }>(
      '/webhooks/:id/deliveries',
      {
        schema: {
          tags, operationId: 'listWebhookDeliveries', summary: 'Attempt log: deliveries, newest first, with their attempts',
          params: idParams, querystring: pageQuery, response: responses(pageOf(deliverySchema)),
        },
      },
      async (request) => ok(await api(request).deliveries(request.params.id, request.query.page)),
    );
    app.post<{ Params: DeliveryParams }>(
      '/webhooks/:id/deliveries/:deliveryId/redeliver',
      {
        schema: {
          tags, operationId: 'redeliverWebhookDelivery', summary: 'Queue one delivery again; it keeps its webhook-id',
          params: deliveryParams, response: responses(deliverySchema),
        },
      },
      async (request) => ok(await api(request).redeliver(request.params.id, request.params.deliveryId)),
    );
    app.post<{ Params: IdParams }>(
      '/webhooks/:id/test',
      {
        schema: {
          tags, operationId: 'testWebhook', summary: 'Queue a sample event ("test": true) of the subscription\'s type',
          params: idParams, response: responses(deliverySchema),
        },
      },
      async (request) => ok(await api(request).test(request.params.id)),
    );
    app.post<{ Body: TriggerEventInput }>(
      '/webhooks/trigger',
      {
        schema: {
          tags, operationId: 'triggerWebhookEvent',
          summary: 'Fire a sample event ("test": true) to every enabled subscription and listen session of its type',
          body: triggerEventBody(events), response: responses(triggeredEventSchema),
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
