/** Public API: the workspace, its messenger accounts and its attachment templates. */
import { AttachmentTemplateDto, MessengerAccountDto, TemplateCreateInput, WorkspaceDto } from '../../../wire/types.js';
import { type RouteGroup, ok, workspaceApi } from '../../server/route-context.js';
import { pageOf, pageQuery, responses } from '../../schemas/common-schemas.js';

/** GET /messenger_accounts, GET /workspace, GET/POST /attachment_templates. */
export const publicWorkspaceRoutes: RouteGroup = async (app, ctx) => {
  app.get(
    '/messenger_accounts',
    {
      schema: {
        tags: ['workspace'],
        operationId: 'listMessengerAccounts',
        summary: 'List messenger accounts, 50 a page; the default sender is the most recently connected',
        querystring: pageQuery,
        response: responses(pageOf(MessengerAccountDto)),
      },
    },
    async (request) => ok(await workspaceApi(ctx, request).listAccounts(request.query.page)),
  );

  app.get(
    '/workspace',
    {
      schema: {
        tags: ['workspace'],
        operationId: 'getWorkspace',
        summary: 'Get the workspace: plan, seats and messaging quota',
        response: responses(WorkspaceDto),
      },
    },
    async (request) => ok(await workspaceApi(ctx, request).getWorkspace()),
  );

  app.get(
    '/attachment_templates',
    {
      schema: {
        tags: ['attachment templates'],
        operationId: 'listAttachmentTemplates',
        summary: 'List attachment templates, 50 a page',
        querystring: pageQuery,
        response: responses(pageOf(AttachmentTemplateDto)),
      },
    },
    async (request) => ok(await workspaceApi(ctx, request).listTemplates(request.query.page)),
  );

  app.post(
    '/attachment_templates',
    {
      schema: {
        tags: ['attachment templates'],
        operationId: 'createAttachmentTemplate',
        summary: 'Create an attachment template from an uploaded file',
        body: TemplateCreateInput,
        response: responses(AttachmentTemplateDto),
      },
    },
    async (request) => ok(await workspaceApi(ctx, request).createTemplate(request.body)),
  );
};
