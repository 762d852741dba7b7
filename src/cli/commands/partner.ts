import type { Command } from 'commander';
import { PARTNER_EVENTS } from '../../wire/webhook-events.js';
import type { CliContext } from '../context.js';
import { usageError } from '../errors.js';
import { allOption, fetchPages, notePage, pageOption, type PageOptions } from '../pagination.js';
import { nonNegativeInt, positiveInt } from '../parse.js';
import { apiTokenView, disconnectView, partnerUsersTable, partnerWorkspaceView } from '../partner-views.js';
import { registerPartnerQr } from './partner-qr.js';
import { registerTrigger } from './trigger.js';
import { registerWebhookCommands } from './webhook-commands.js';
import { addListenCommand } from './webhooks-listen.js';

const PARTNER_EVENTS_HELP =
  'messenger_account:connected, messenger_account:disconnected, api-token:rotated, ' +
  'workspace:quota_near_full, workspace:quota_full, workspace:seats_full';

/**
 * `svc partner ...`: the Partner API, on the local engine or a remote server (SVC_PARTNER_BASE_URL), with the
 * Partner ID and Secret of `svc login --partner` or SVC_PARTNER_ID / SVC_PARTNER_SECRET.
 */
export function registerPartner(program: Command, ctx: CliContext): void {
  const partner = program.command('partner').description('provision workspaces, users and QR links as a partner');

  const workspace = partner.command('workspace').description('workspaces of the partner (there is no list)');
  workspace
    .command('create')
    .description('create a workspace with a seat allocation')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--seats <n>', 'seats purchased', nonNegativeInt)
    .action(async (opts: { name: string; seats: number }) => {
      const created = await (await ctx.partnerClient()).createWorkspace({ display_name: opts.name, seats_purchased: opts.seats });
      ctx.output.result(created, partnerWorkspaceView(created));
    });
  workspace
    .command('get')
    .argument('<ws>', 'workspace id', positiveInt)
    .description('show a workspace: name, seats and quota')
    .action(async (ws: number) => {
      const found = await (await ctx.partnerClient()).getWorkspace(ws);
      ctx.output.result(found, partnerWorkspaceView(found));
    });
  workspace
    .command('update')
    .argument('<ws>', 'workspace id', positiveInt)
    .description('rename a workspace or change its seats (never below the seats in use)')
    .option('--name <name>', 'new display name')
    .option('--seats <n>', 'seats purchased', nonNegativeInt)
    .action(async (ws: number, opts: { name?: string; seats?: number }) => {
      if (opts.name === undefined && opts.seats === undefined) throw usageError('nothing to change: pass --name or --seats');
      const updated = await (await ctx.partnerClient()).updateWorkspace(ws, {
        ...(opts.name === undefined ? {} : { display_name: opts.name }),
        ...(opts.seats === undefined ? {} : { seats_purchased: opts.seats }),
      });
      ctx.output.result(updated, partnerWorkspaceView(updated));
    });

  const users = partner.command('users').description('users of a workspace, one seat each');
  users
    .command('create')
    .argument('<ws>', 'workspace id', positiveInt)
    .description('create users in batch, all or none')
    .option('--count <n>', 'how many', positiveInt, 1)
    .action(async (ws: number, opts: { count: number }) => {
      const created = await (await ctx.partnerClient()).createUsers(ws, opts.count);
      ctx.output.result(created, partnerUsersTable(created));
    });
  users
    .command('list')
    .argument('<ws>', 'workspace id', positiveInt)
    .description('list users with their messenger account, 50 a page')
    .addOption(pageOption())
    .addOption(allOption())
    .action(async (ws: number, opts: PageOptions) => {
      const source = await ctx.partnerClient();
      const list = await fetchPages(opts, (n) => source.listUsers(ws, n));
      ctx.output.result(list, partnerUsersTable(list.items));
      notePage(ctx.output, list, `svc partner users list ${ws}`);
    });

  registerPartnerQr(partner, ctx);

  partner
    .command('account')
    .description("a user's messenger account")
    .command('disconnect')
    .argument('<ws>', 'workspace id', positiveInt)
    .argument('<user>', 'user id', positiveInt)
    .description("disconnect the user's messenger account (a no-op when none is connected)")
    .option('--yes', 'do not ask for confirmation (required without a terminal)')
    .action(async (ws: number, user: number, opts: { yes?: boolean }) => {
      await ctx.confirm(`Disconnect the messenger account of user ${user} in workspace ${ws}`, opts.yes);
      const result = await (await ctx.partnerClient()).disconnectAccount(ws, user);
      ctx.output.result(result, disconnectView(result));
    });

  const token = partner.command('token').description("a workspace's Public API token");
  token
    .command('get')
    .argument('<ws>', 'workspace id', positiveInt)
    .description('print the token (valid until rotated)')
    .action(async (ws: number) => {
      const current = await (await ctx.partnerClient()).getApiToken(ws);
      ctx.output.result(current, apiTokenView(current));
    });
  token
    .command('rotate')
    .argument('<ws>', 'workspace id', positiveInt)
    .description('issue a new token; the old one stops working at once')
    .option('--yes', 'do not ask for confirmation (required without a terminal)')
    .action(async (ws: number, opts: { yes?: boolean }) => {
      await ctx.confirm(`Rotate the API token of workspace ${ws}; the current token stops working at once`, opts.yes);
      const rotated = await (await ctx.partnerClient()).rotateApiToken(ws);
      ctx.output.result(rotated, apiTokenView(rotated));
      ctx.output.note('the previous token no longer works');
    });

  const help = {
    command: 'svc partner webhooks',
    events: PARTNER_EVENTS_HELP,
    eventTypes: PARTNER_EVENTS,
    local: () => ctx.config().partnerBaseUrl === undefined,
  };
  const client = async () => (await ctx.partnerClient()).webhooks;
  const webhooks = partner.command('webhooks').description("the partner's webhook subscriptions and their deliveries");
  registerWebhookCommands(webhooks, ctx, client, help);
  addListenCommand(webhooks, ctx, {
    events: PARTNER_EVENTS,
    listenClient: async () => (await ctx.partnerClient()).listen,
    remote: () => ctx.config().partnerBaseUrl !== undefined,
  });
  registerTrigger(partner, ctx, client, help);
}
