/**
 * The Public API area, mounted at `/api`: bearer auth, its OpenAPI document, and its route groups.
 * Route groups registered here inherit the auth hooks and appear in `/api/openapi.json`.
 */
import type { FastifyPluginAsync } from 'fastify';
import { useBearerAuth } from './token-auth.js';
import { listenRoutes } from '../listen/listen-routes.js';
import { registerOpenApi } from '../../openapi/openapi.js';
import { NUL_RULE } from '../../../wire/nul-text.js';
import { publicChatsRoutes } from './chats-routes.js';
import { publicFilesRoutes } from './files-routes.js';
import { publicMessagesRoutes } from './messages-routes.js';
import { publicWorkspaceRoutes } from './workspace-routes.js';
import { type RouteContext, type RouteGroup, routeContextOf } from '../../server/route-context.js';
import { publicWebhookRoutes } from '../webhooks/webhook-routes.js';

/** The Public API's own route groups; `buildServer` appends any `apiRouteGroups`. */
export const PUBLIC_API_ROUTE_GROUPS: readonly RouteGroup[] = [
  publicMessagesRoutes,
  publicChatsRoutes,
  publicFilesRoutes,
  publicWorkspaceRoutes,
  publicWebhookRoutes,
  listenRoutes,
];

/** Options of the `/api` area: the route context plus the groups to serve. */
export interface PublicApiOptions extends RouteContext {
  groups: readonly RouteGroup[];
}

/** Mounts the Public API in its own scope. */
export const publicApiPlugin: FastifyPluginAsync<PublicApiOptions> = async (app, options) => {
  const ctx = routeContextOf(options);
  useBearerAuth(app, ctx.engine);
  await registerOpenApi(app, {
    // Engines stubbed in tests may not say; the strict rule is the production one.
    webhookUrlPolicy: ctx.engine.webhookUrlPolicy ?? 'strict',
    area: 'public',
    title: 'svc Public API',
    version: '1.3.0',
    description: `Send and receive messages through connected messenger accounts. ${NUL_RULE}`,
    basePath: '/api',
  });
  for (const group of options.groups) await app.register(group, ctx);
};
