import type { Command } from 'commander';
import type { WebhooksClient } from '../../client/client.js';
import type { TriggeredEventDto } from '../../wire/webhook-types.js';
import type { CliContext } from '../context.js';
import { knownEvent, noteLocalDelivery, type WebhookCommandsHelp } from './webhook-commands.js';

/**
 * `svc trigger EVENT` and `svc partner trigger EVENT`: a sample event ("test": true) through the real signed
 * delivery path to every enabled subscription and listen session that takes it, as `stripe trigger` does.
 */
export function registerTrigger(parent: Command, ctx: CliContext, client: () => Promise<WebhooksClient>, help: WebhookCommandsHelp): void {
  parent
    .command('trigger')
    .argument('<event>', `event identifier: ${help.events}`)
    .description('fire a sample event to every subscription and listen session that takes it')
    .action(async (event: string) => {
      const triggered = await (await client()).trigger(knownEvent(event, help));
      ctx.output.result(triggered, { kind: 'lines', lines: [summary(triggered)] });
      if (triggered.deliveries > 0) noteLocalDelivery(ctx, help);
      if (triggered.deliveries === 0) {
        const listen = help.command === 'svc webhooks' ? ', or run `svc webhooks listen`' : '';
        ctx.output.note(`nobody takes ${triggered.event_type}: add a subscription with \`${help.command} create --event ${triggered.event_type} --url URL\`${listen}`);
      }
    });
}

const summary = (t: TriggeredEventDto): string =>
  t.deliveries === 0
    ? `triggered ${t.event_type}: no delivery queued`
    : `triggered ${t.event_type}: ${t.deliveries} ${t.deliveries === 1 ? 'delivery' : 'deliveries'} queued (webhook-id ${t.webhook_id})`;
