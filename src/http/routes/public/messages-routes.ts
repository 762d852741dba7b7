/** Public API: sending messages (docs/api-behaviour.md) and reading one back. */
import type {
  SendToChatInput,
  SendToChatNameInput,
  SendToPhoneInput,
} from '../../../wire/types.js';
import { type RouteGroup, linkBase, ok, workspaceApi } from '../../server/route-context.js';
import { type IdParams, type UidParams, idParams, responses, uidParams } from '../../schemas/common-schemas.js';
import { messageSchema, sendResultSchema } from '../../schemas/dto-schemas.js';
import { sendToChatBody, sendToChatNameBody, sendToPhoneBody } from '../../schemas/input-schemas.js';

const tags = ['messages'];

/** POST /messages, POST /messages/to_chat_name, POST /chats/:id/messages, GET /messages/:uid. */
export const publicMessagesRoutes: RouteGroup = async (app, ctx) => {
  app.post<{ Body: SendToPhoneInput }>(
    '/messages',
    {
      schema: {
        tags,
        operationId: 'sendToPhone',
        summary: 'Send a message to a phone number',
        body: sendToPhoneBody,
        response: responses(sendResultSchema),
      },
    },
    async (request) => ok(await workspaceApi(ctx, request).sendToPhone(request.body)),
  );

  app.post<{ Body: SendToChatNameInput }>(
    '/messages/to_chat_name',
    {
      schema: {
        tags,
        operationId: 'sendToChatName',
        summary: 'Send a message to a chat by name (deprecated: send by chat id or phone)',
        deprecated: true,
        body: sendToChatNameBody,
        response: responses(sendResultSchema),
      },
      // Set before validation, so error answers also tell the client to move on (RFC 9745 / RFC 8288).
      onRequest: (request, reply, done) => {
        reply.header('deprecation', 'true');
        reply.header('link', `<${linkBase(request, ctx.publicUrl)}/api/messages>; rel="successor-version"`);
        done();
      },
    },
    async (request) => ok(await workspaceApi(ctx, request).sendToChatName(request.body)),
  );

  app.post<{ Params: IdParams; Body: SendToChatInput }>(
    '/chats/:id/messages',
    {
      schema: {
        tags,
        operationId: 'sendToChat',
        summary: 'Send a message to an existing chat by id',
        // The minimal body is `text`; a file or template alone is svc's extension, kept so that all three
        // send routes take the same body.
        description:
          'The minimal body is `text`. As on the other send routes, svc also accepts a message without text: ' +
          'one of `text`, `file_uid` or `attachment_template_id` is required, text may accompany either attachment, ' +
          'and the two attachments never go together.',
        params: idParams,
        body: sendToChatBody,
        response: responses(sendResultSchema),
      },
    },
    async (request) => ok(await workspaceApi(ctx, request).sendToChat(request.params.id, request.body)),
  );

  app.get<{ Params: UidParams }>(
    '/messages/:uid',
    {
      schema: {
        tags,
        operationId: 'getMessage',
        summary: 'Get a message with its status (Pending, Sending, Sent, Failed)',
        params: uidParams,
        response: responses(messageSchema),
      },
    },
    async (request) => ok(await workspaceApi(ctx, request).getMessage(request.params.uid)),
  );
};
