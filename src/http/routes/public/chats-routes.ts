/** Public API: chats (docs/api-behaviour.md). */
import type { ChatUpdateInput } from '../../../wire/types.js';
import { type RouteGroup, ok, workspaceApi } from '../../server/route-context.js';
import { type IdParams, type PageQuery, idParams, pageOf, pageQuery, responses } from '../../schemas/common-schemas.js';
import { chatSchema, messageSchema } from '../../schemas/dto-schemas.js';
import { chatUpdateBody } from '../../schemas/input-schemas.js';

const tags = ['chats'];

/** GET /chats, GET/PATCH /chats/:id, GET /chats/:id/messages. */
export const publicChatsRoutes: RouteGroup = async (app, ctx) => {
  app.get<{ Querystring: PageQuery }>(
    '/chats',
    {
      schema: {
        tags,
        operationId: 'listChats',
        summary: 'List chats, 50 a page',
        querystring: pageQuery,
        response: responses(pageOf(chatSchema)),
      },
    },
    async (request) => ok(await workspaceApi(ctx, request).listChats(request.query.page)),
  );

  app.get<{ Params: IdParams }>(
    '/chats/:id',
    {
      schema: { tags, operationId: 'getChat', summary: 'Get a chat', params: idParams, response: responses(chatSchema) },
    },
    async (request) => ok(await workspaceApi(ctx, request).getChat(request.params.id)),
  );

  app.patch<{ Params: IdParams; Body: ChatUpdateInput }>(
    '/chats/:id',
    {
      schema: {
        tags,
        operationId: 'updateChat',
        summary: 'Rename a chat or (un)assign its responsible team member',
        params: idParams,
        body: chatUpdateBody,
        response: responses(chatSchema),
      },
    },
    async (request) => ok(await workspaceApi(ctx, request).updateChat(request.params.id, request.body)),
  );

  app.get<{ Params: IdParams; Querystring: PageQuery }>(
    '/chats/:id/messages',
    {
      schema: {
        tags,
        operationId: 'listChatMessages',
        summary: 'List the messages of a chat, 50 a page',
        params: idParams,
        querystring: pageQuery,
        response: responses(pageOf(messageSchema)),
      },
    },
    async (request) => ok(await workspaceApi(ctx, request).listChatMessages(request.params.id, request.query.page)),
  );
};
