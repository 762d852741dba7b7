import type { Command } from 'commander';
import { EVENT_TYPES } from '../../wire/webhook-events.js';
import type { CliContext } from '../context.js';
import { registerTrigger } from './trigger.js';
import { registerWebhookCommands } from './webhook-commands.js';

const EVENTS_HELP =
  'message:new, message:received:new, message:sent:new, chat:created, chat:received:created, chat:sent:created, ' +
  'chat:assigned, chat:unassigned, messenger:account:connected|disconnected|suspended|resumed';

/**
 * `svc webhooks create|list|get|update|delete|deliveries|redeliver|test`. Returns the `webhooks` command so
 * `svc webhooks listen` can be added to it; an existing `webhooks` command is reused, whichever registers first.
 */
export function registerWebhooks(program: Command, ctx: CliContext): Command {
  const webhooks =
    program.commands.find((c) => c.name() === 'webhooks') ??
    program.command('webhooks').description('manage webhook subscriptions and their deliveries');
  const help = { command: 'svc webhooks', events: EVENTS_HELP, eventTypes: EVENT_TYPES, local: () => ctx.config().baseUrl === undefined };
  const client = async () => (await ctx.client()).webhooks;
  registerWebhookCommands(webhooks, ctx, client, help);
  registerTrigger(program, ctx, client, help);
  return webhooks;
}
