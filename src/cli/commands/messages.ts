import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { messageView } from '../views.js';

/** `svc messages get UID`. */
export function registerMessages(program: Command, ctx: CliContext): void {
  const messages = program.command('messages').description('look up messages');
  messages
    .command('get <uid>')
    .description('show a message and its delivery status')
    .action(async (uid: string) => {
      const message = await (await ctx.client()).getMessage(uid);
      ctx.output.result(message, messageView(message));
    });
}
