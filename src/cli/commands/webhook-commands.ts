import type { Command } from 'commander';
import type { WebhooksClient } from '../../client/client.js';
import { didYouMean } from '../../wire/suggest.js';
import type { WebhookUpdateInput } from '../../wire/webhook-types.js';
import type { CliContext } from '../context.js';
import { usageError } from '../errors.js';
import { allOption, fetchPages, notePage, pageOption, type PageOptions } from '../pagination.js';
import { positiveInt } from '../parse.js';
import { createdWebhookView, deliveriesTable, deliveryView, webhookView, webhooksTable } from '../webhook-views.js';

/** What differs between `svc webhooks` and `svc partner webhooks`: the command path and the event list. */
export interface WebhookCommandsHelp {
  /** e.g. `svc webhooks`, for follow-up hints. */
  command: string;
  /** The event identifiers the scope accepts, for `create --help`. */
  events: string;
  /** The same identifiers as a list, to refuse a typo before any request. */
  eventTypes: readonly string[];
  /** True when the scope is the local engine, whose commands leave HTTP deliveries to `svc serve`. */
  local?: () => boolean;
}

/** After queueing on the local engine: say who delivers, since the command itself does not. */
export function noteLocalDelivery(ctx: CliContext, help: WebhookCommandsHelp): void {
  if (help.local?.() === true) ctx.output.note('queued: `svc serve` (or `svc dev`) on this data delivers it; a command does not wait for receivers');
}

/**
 * Adds `create|list|get|update|delete|deliveries|redeliver|test` under `webhooks`, over whichever scope's
 * `WebhooksClient` `client` resolves to (a workspace's, or a partner's).
 */
export function registerWebhookCommands(webhooks: Command, ctx: CliContext, client: () => Promise<WebhooksClient>, help: WebhookCommandsHelp): void {
  webhooks
    .command('create')
    .description(`subscribe a URL to an event (${help.events}); prints the signing secret once`)
    .requiredOption('--event <type>', 'event identifier')
    .requiredOption('--url <url>', 'endpoint that receives the POSTs (https on a server without --dev)')
    .option('--disabled', 'create it disabled')
    .action(async (opts: { event: string; url: string; disabled?: boolean }) => {
      const input = { event_type: knownEvent(opts.event, help), url: opts.url, enabled: opts.disabled !== true };
      const created = await (await client()).create(input);
      ctx.output.result(created, createdWebhookView(created, help.command));
    });

  webhooks
    .command('list')
    .description('list webhook subscriptions, 50 a page')
    .addOption(pageOption())
    .addOption(allOption())
    .action(async (opts: PageOptions) => {
      const source = await client();
      const page = await fetchPages(opts, (n) => source.list(n));
      ctx.output.result(page, webhooksTable(page, help.command));
      notePage(ctx.output, page, `${help.command} list`);
    });

  webhooks
    .command('get')
    .argument('<id>', 'webhook id', positiveInt)
    .description('show one subscription')
    .option('--show-secret', 'also print its signing secret')
    .action(async (id: number, opts: { showSecret?: boolean }) => {
      const api = await client();
      const webhook = await api.get(id);
      const shown = opts.showSecret === true ? { ...webhook, secret: (await api.secret(id)).secret } : webhook;
      ctx.output.result(shown, webhookView(shown));
    });

  webhooks
    .command('update')
    .argument('<id>', 'webhook id', positiveInt)
    .description('change a subscription; only the options given change')
    .option('--event <type>', 'new event identifier')
    .option('--url <url>', 'new endpoint')
    .option('--enable', 'enable deliveries')
    .option('--disable', 'disable deliveries')
    .action(async (id: number, opts: { event?: string; url?: string; enable?: boolean; disable?: boolean }) => {
      if (opts.enable === true && opts.disable === true) throw usageError('give --enable or --disable, not both');
      const input: WebhookUpdateInput = {
        ...(opts.event === undefined ? {} : { event_type: knownEvent(opts.event, help) }),
        ...(opts.url === undefined ? {} : { url: opts.url }),
        ...(opts.enable === true ? { enabled: true } : opts.disable === true ? { enabled: false } : {}),
      };
      if (Object.keys(input).length === 0) throw usageError('nothing to update', 'give --event, --url, --enable or --disable');
      const webhook = await (await client()).update(id, input);
      ctx.output.result(webhook, webhookView(webhook));
    });

  webhooks
    .command('delete')
    .argument('<id>', 'webhook id', positiveInt)
    .description('delete a subscription and its pending deliveries')
    .option('--yes', 'do not ask for confirmation (required without a terminal)')
    .action(async (id: number, opts: { yes?: boolean }) => {
      await ctx.confirm(`Delete webhook ${id} and its pending deliveries`, opts.yes);
      const deleted = await (await client()).delete(id);
      ctx.output.result(deleted, { kind: 'lines', lines: [`Deleted webhook ${deleted.id}`] });
    });

  webhooks
    .command('deliveries')
    .argument('<id>', 'webhook id', positiveInt)
    .description('attempt log of a subscription, newest first, 50 a page')
    .addOption(pageOption())
    .addOption(allOption())
    .action(async (id: number, opts: PageOptions) => {
      const source = await client();
      const page = await fetchPages(opts, (n) => source.deliveries(id, n));
      ctx.output.result(page, deliveriesTable(page));
      notePage(ctx.output, page, `${help.command} deliveries ${id}`);
    });

  webhooks
    .command('redeliver')
    .argument('<id>', 'webhook id', positiveInt)
    .argument('<delivery_id>', `delivery id (from \`${help.command} deliveries ID\`)`, positiveInt)
    .description('queue one delivery again; it keeps its webhook-id')
    .action(async (id: number, deliveryId: number) => {
      const delivery = await (await client()).redeliver(id, deliveryId);
      ctx.output.result(delivery, deliveryView(delivery));
      noteLocalDelivery(ctx, help);
    });

  webhooks
    .command('test')
    .argument('<id>', 'webhook id', positiveInt)
    .description('queue a sample event ("test": true) of the subscription\'s type')
    .action(async (id: number) => {
      const delivery = await (await client()).test(id);
      ctx.output.result(delivery, deliveryView(delivery));
      noteLocalDelivery(ctx, help);
      ctx.output.note(`follow it with: \`${help.command} deliveries ${id}\``);
    });
}

/** A typo in --event is a usage error with the closest event named, on the local engine and a server alike. */
export function knownEvent(event: string, help: WebhookCommandsHelp): string {
  if (help.eventTypes.includes(event)) return event;
  throw usageError(`unknown event "${event}"`, didYouMean(event, help.eventTypes) ?? `choose one of: ${help.events}`);
}
