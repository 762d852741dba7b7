/** Partner API: the partner itself, workspaces (no listing, docs/api-behaviour.md) and their Public API tokens. */
import {
  ApiTokenDto,
  PartnerDto,
  PartnerWorkspaceCreateInput,
  PartnerWorkspaceDto,
  PartnerWorkspaceUpdateInput,
} from '../../../wire/partner-types.js';
import { partnerApi } from './partner-auth.js';
import { type RouteGroup, ok } from '../../server/route-context.js';
import { partnerCreatedResponses, partnerResponses, workspaceParams } from '../../schemas/partner-schemas.js';

/** GET /me; POST /workspaces; GET/PATCH /workspaces/{id}; GET/POST /workspaces/{id}/api-token. */
export const partnerWorkspaceRoutes: RouteGroup = async (app, ctx) => {
  app.get(
    '/me',
    { schema: { tags: ['partner'], operationId: 'getPartner', summary: 'The authenticated partner', response: partnerResponses(PartnerDto) } },
    async (request) => ok(await partnerApi(ctx, request).describe()),
  );

  app.post(
    '/workspaces',
    {
      schema: {
        tags: ['workspaces'],
        operationId: 'createWorkspace',
        summary: 'Create a workspace with a seat allocation',
        body: PartnerWorkspaceCreateInput,
        response: partnerCreatedResponses(PartnerWorkspaceDto),
      },
    },
    async (request, reply) => reply.code(201).send(ok(await partnerApi(ctx, request).createWorkspace(request.body))),
  );

  app.get(
    '/workspaces/:id',
    {
      schema: {
        tags: ['workspaces'],
        operationId: 'getWorkspace',
        summary: "Get a workspace: name, seats and quota (404 for another partner's workspace)",
        params: workspaceParams,
        response: partnerResponses(PartnerWorkspaceDto),
      },
    },
    async (request) => ok(await partnerApi(ctx, request).getWorkspace(request.params.id)),
  );

  app.patch(
    '/workspaces/:id',
    {
      schema: {
        tags: ['workspaces'],
        operationId: 'updateWorkspace',
        summary: 'Change the display name or seats; seats never go below the seats in use (409)',
        params: workspaceParams,
        body: PartnerWorkspaceUpdateInput,
        response: partnerResponses(PartnerWorkspaceDto),
      },
    },
    async (request) => ok(await partnerApi(ctx, request).updateWorkspace(request.params.id, request.body)),
  );

  app.get(
    '/workspaces/:id/api-token',
    {
      schema: {
        tags: ['tokens'],
        operationId: 'getApiToken',
        summary: "The workspace's Public API token (valid until rotated)",
        params: workspaceParams,
        response: partnerResponses(ApiTokenDto),
      },
    },
    async (request) => ok(await partnerApi(ctx, request).getApiToken(request.params.id)),
  );

  app.post(
    '/workspaces/:id/api-token',
    {
      schema: {
        tags: ['tokens'],
        operationId: 'rotateApiToken',
        summary: 'Rotate the Public API token; the old one fails from the next request (api-token:rotated)',
        params: workspaceParams,
        response: partnerResponses(ApiTokenDto),
      },
    },
    async (request) => ok(await partnerApi(ctx, request).rotateApiToken(request.params.id)),
  );
};
