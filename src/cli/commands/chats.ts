import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { allOption, fetchPages, notePage, pageOption, type PageOptions } from '../pagination.js';
import { positiveInt } from '../parse.js';
import { chatView, chatsTable, messagesTable } from '../views.js';

/** `svc chats list|get|messages|assign|unassign`. */
export function registerChats(program: Command, ctx: CliContext): void {
  const chats = program.command('chats').description('list and manage chats');

  chats
    .command('list')
    .description('list chats, 50 a page')
    .addOption(pageOption())
    .addOption(allOption())
    .action(async (opts: PageOptions) => {
      const source = await ctx.client();
      const page = await fetchPages(opts, (n) => source.listChats(n));
      ctx.output.result(page, chatsTable(page));
      notePage(ctx.output, page, 'svc chats list');
    });

  chats
    .command('get')
    .argument('<id>', 'chat id', positiveInt)
    .description('show one chat')
    .action(async (id: number) => {
      const chat = await (await ctx.client()).getChat(id);
      ctx.output.result(chat, chatView(chat));
    });

  chats
    .command('messages')
    .argument('<id>', 'chat id', positiveInt)
    .description('list the messages of a chat, 50 a page')
    .addOption(pageOption())
    .addOption(allOption())
    .action(async (id: number, opts: PageOptions) => {
      const source = await ctx.client();
      const page = await fetchPages(opts, (n) => source.listChatMessages(id, n));
      ctx.output.result(page, messagesTable(page));
      notePage(ctx.output, page, `svc chats messages ${id}`);
    });

  chats
    .command('assign')
    .argument('<id>', 'chat id', positiveInt)
    .description('assign a chat to a team member')
    .requiredOption('--to <email>', 'e-mail of the team member')
    .action(async (id: number, opts: { to: string }) => {
      const chat = await (await ctx.client()).updateChat(id, { responsible: opts.to });
      ctx.output.result(chat, chatView(chat));
    });

  chats
    .command('unassign')
    .argument('<id>', 'chat id', positiveInt)
    .description("remove a chat's assignment")
    .action(async (id: number) => {
      const chat = await (await ctx.client()).updateChat(id, { responsible: '' });
      ctx.output.result(chat, chatView(chat));
    });
}

