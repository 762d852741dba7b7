/** Public API: sending messages (docs/api-behaviour.md) and reading one back. */
import { MessageDto, SendResult, SendToChatInput, SendToChatNameInput, SendToPhoneInput } from '../../../wire/types.js';
import { type RouteGroup, linkBase, ok, workspaceApi } from '../../server/route-context.js';
import { idParams, responses, uidParams } from '../../schemas/common-schemas.js';

const tags = ['messages'];
// The sends check the token again in their batch's transaction: it may be let in from memory (token-auth.ts).
const CHECKED_IN_WRITE = { tokenCheckedInWrite: true } as const;

/** POST /messages, POST /messages/to_chat_name, POST /chats/:id/messages, GET /messages/:uid. */
export const publicMessagesRoutes: RouteGroup = async (app, ctx) => {
  app.post(
    '/messages',
    {
      schema: {
        tags,
        operationId: 'sendToPhone',
        summary: 'Send a message to a phone number',
        body: SendToPhoneInput,
        response: responses(SendResult),
      },
      config: CHECKED_IN_WRITE,
    },
    async (request) => ok(await workspaceApi(ctx, request).sendToPhone(request.body)),
  );

  app.post(
    '/messages/to_chat_name',
    {
      schema: {
        tags,
        operationId: 'sendToChatName',
        summary: 'Send a message to a chat by name (deprecated: send by chat id or phone)',
        deprecated: true,
        body: SendToChatNameInput,
        response: responses(SendResult),
      },
      config: CHECKED_IN_WRITE,
      // Set before validation, so error answers also tell the client to move on (RFC 9745 / RFC 8288).
      onRequest: (request, reply, done) => {
        reply.header('deprecation', 'true');
        reply.header('link', `<${linkBase(request, ctx.publicUrl)}/api/messages>; rel="successor-version"`);
        done();
      },
    },
    async (request) => ok(await workspaceApi(ctx, request).sendToChatName(request.body)),
  );

  app.post(
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
        body: SendToChatInput,
        response: responses(SendResult),
      },
      config: CHECKED_IN_WRITE,
    },
    async (request) => ok(await workspaceApi(ctx, request).sendToChat(request.params.id, request.body)),
  );

  app.get(
    '/messages/:uid',
    {
      schema: {
        tags,
        operationId: 'getMessage',
        summary: 'Get a message with its status (Pending, Sending, Sent, Failed)',
        params: uidParams,
        response: responses(MessageDto),
      },
    },
    async (request) => ok(await workspaceApi(ctx, request).getMessage(request.params.uid)),
  );
};
