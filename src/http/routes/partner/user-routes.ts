/** Partner API: users of a workspace (one seat each), their QR links and messenger accounts. */
import { DisconnectResult, PartnerUserDto, PartnerUsersCreateInput, QrLinkDto } from '../../../wire/partner-types.js';
import { Type } from '../../../wire/schema.js';
import { partnerApi } from './partner-auth.js';
import { type RouteGroup, ok } from '../../server/route-context.js';
import { pageOf, pageQuery } from '../../schemas/common-schemas.js';
import { partnerCreatedResponses, partnerResponses, qrCreateBody, userParams, workspaceParams } from '../../schemas/partner-schemas.js';

const users = Type.Array(PartnerUserDto);

/** POST/GET /workspaces/{id}/users; POST .../users/{user_id}/qr; POST .../users/{user_id}/messenger/disconnect. */
export const partnerUserRoutes: RouteGroup = async (app, ctx) => {
  app.post(
    '/workspaces/:id/users',
    {
      schema: {
        tags: ['users'],
        operationId: 'createUsers',
        summary: 'Create users in batch, one seat each, all or none (409 seats_full)',
        params: workspaceParams,
        body: PartnerUsersCreateInput,
        response: partnerCreatedResponses(users),
      },
    },
    async (request, reply) => reply.code(201).send(ok(await partnerApi(ctx, request).createUsers(request.params.id, request.body))),
  );

  app.get(
    '/workspaces/:id/users',
    {
      schema: {
        tags: ['users'],
        operationId: 'listUsers',
        summary: 'List users with their messenger account, 50 a page',
        params: workspaceParams,
        querystring: pageQuery,
        response: partnerResponses(pageOf(PartnerUserDto)),
      },
    },
    async (request) => ok(await partnerApi(ctx, request).listUsers(request.params.id, request.query.page)),
  );

  app.post(
    '/workspaces/:id/users/:user_id/qr',
    {
      schema: {
        tags: ['users'],
        operationId: 'createQrLink',
        summary: 'A QR link connecting a messenger account for the user; revokes the previous link. Append display_mode=embedding for an iframe',
        params: userParams,
        body: qrCreateBody,
        response: partnerResponses(QrLinkDto),
      },
    },
    async (request) =>
      ok(await partnerApi(ctx, request).createQrLink(request.params.id, request.params.user_id, request.body ?? {})),
  );

  app.post(
    '/workspaces/:id/users/:user_id/messenger/disconnect',
    {
      schema: {
        tags: ['users'],
        operationId: 'disconnectAccount',
        summary: "Disconnect the user's messenger account; without one, answers disconnected: false",
        params: userParams,
        response: partnerResponses(DisconnectResult),
      },
    },
    async (request) => ok(await partnerApi(ctx, request).disconnectAccount(request.params.id, request.params.user_id)),
  );
};
