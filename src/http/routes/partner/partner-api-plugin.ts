/**
 * The Partner API area, mounted at `/partner` (docs/api-behaviour.md): partner JWT auth, its own OpenAPI document at
 * `/partner/openapi.json`, and its route groups, partner webhook subscriptions included (docs/api-behaviour.md).
 */
import type { FastifyPluginAsync } from 'fastify';
import { PARTNER_EVENTS } from '../../../engine/events.js';
import { listenRouteGroup } from '../listen/listen-routes.js';
import { registerOpenApi } from '../../openapi/openapi.js';
import { NUL_RULE } from '../../../wire/nul-text.js';
import { partnerApi, usePartnerAuth } from './partner-auth.js';
import { partnerUserRoutes } from './user-routes.js';
import { partnerWorkspaceRoutes } from './workspace-routes.js';
import { type RouteContext, type RouteGroup, routeContextOf } from '../../server/route-context.js';
import { partnerResponses } from '../../schemas/partner-schemas.js';
import { webhookRouteGroup } from '../webhooks/webhook-routes.js';

/** `/partner/webhooks...`: the same routes as `/api/webhooks`, over the partner's own subscriptions. */
const partnerWebhookRoutes: RouteGroup = webhookRouteGroup((ctx, request) => partnerApi(ctx, request).webhooks(), PARTNER_EVENTS, partnerResponses);

/** `/partner/webhooks/listen...`: `svc partner webhooks listen` sessions, partner events only. */
const partnerListenRoutes: RouteGroup = listenRouteGroup((ctx, request) => partnerApi(ctx, request).listen(), PARTNER_EVENTS, partnerResponses);

/** The Partner API's route groups. */
const PARTNER_ROUTE_GROUPS: readonly RouteGroup[] = [partnerWorkspaceRoutes, partnerUserRoutes, partnerListenRoutes, partnerWebhookRoutes];

/** Mounts the Partner API in its own scope. */
export const partnerApiPlugin: FastifyPluginAsync<RouteContext> = async (app, options) => {
  const ctx = routeContextOf(options);
  usePartnerAuth(app, ctx.engine);
  await registerOpenApi(app, {
    // Engines stubbed in tests may not say; the strict rule is the production one.
    webhookUrlPolicy: ctx.engine.webhookUrlPolicy ?? 'strict',
    area: 'partner',
    title: 'svc Partner API',
    version: '1.0.0',
    description:
      'Provision workspaces, seats and users; connect messenger accounts through QR links; read and rotate Public API tokens; ' +
      'subscribe to partner webhook events. ' +
      'Every request carries a fresh HS256 JWT (claims partner_id, exp; at most 15 minutes) and X-SVC-Partner-Id. ' +
      NUL_RULE,
    basePath: '/partner',
    securitySchemes: {
      partnerJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      partnerId: { type: 'apiKey', in: 'header', name: 'X-SVC-Partner-Id' },
    },
  });
  for (const group of PARTNER_ROUTE_GROUPS) await app.register(group, ctx);
};
