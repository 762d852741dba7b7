/** Public API: chats (docs/api-behaviour.md). */
import { ChatDto, ChatUpdateInput, MessageDto } from '../../../wire/types.js';
import { type RouteGroup, ok, workspaceApi } from '../../server/route-context.js';
import { idParams, pageOf, pageQuery, responses } from '../../schemas/common-schemas.js';

const tags = ['chats'];

/** GET /chats, GET/PATCH /chats/:id, GET /chats/:id/messages. */
export const publicChatsRoutes: RouteGroup = async (app, ctx) => {
  app.get(
    '/chats',
    {
      schema: {
        tags,
        operationId: 'listChats',
        summary: 'List chats, 50 a page',
        querystring: pageQuery,
        response: responses(pageOf(ChatDto)),
      },
    },
    async (request) => ok(await workspaceApi(ctx, request).listChats(request.query.page)),
  );

  app.get(
    '/chats/:id',
    {
      schema: { tags, operationId: 'getChat', summary: 'Get a chat', params: idParams, response: responses(ChatDto) },
    },
    async (request) => ok(await workspaceApi(ctx, request).getChat(request.params.id)),
  );

  app.patch(
    '/chats/:id',
    {
      schema: {
        tags,
        operationId: 'updateChat',
        summary: 'Rename a chat or (un)assign its responsible team member',
        params: idParams,
        body: ChatUpdateInput,
        response: responses(ChatDto),
      },
    },
    async (request) => ok(await workspaceApi(ctx, request).updateChat(request.params.id, request.body)),
  );

  app.get(
    '/chats/:id/messages',
    {
      schema: {
        tags,
        operationId: 'listChatMessages',
        summary: 'List the messages of a chat, 50 a page',
        params: idParams,
        querystring: pageQuery,
        response: responses(pageOf(MessageDto)),
      },
    },
    async (request) => ok(await workspaceApi(ctx, request).listChatMessages(request.params.id, request.query.page)),
  );
};
