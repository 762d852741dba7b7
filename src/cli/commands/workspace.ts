import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { allOption, fetchPages, notePage, pageOption, type PageOptions } from '../pagination.js';
import { accountsTable, templateView, templatesTable, workspaceView } from '../views.js';

/** `svc accounts list`, `svc workspace`, `svc templates list|create`. */
export function registerWorkspace(program: Command, ctx: CliContext): void {
  program
    .command('accounts')
    .description('messenger accounts of the workspace')
    .command('list')
    .description('list connected messenger accounts; the default sender is marked')
    .addOption(pageOption())
    .addOption(allOption())
    .action(async (opts: PageOptions) => {
      const source = await ctx.client();
      const accounts = await fetchPages(opts, (n) => source.listAccounts(n));
      ctx.output.result(accounts, accountsTable(accounts.items));
      notePage(ctx.output, accounts, 'svc accounts list');
    });

  program
    .command('workspace')
    .description('show the workspace: plan, seats and messaging quota')
    .action(async () => {
      const workspace = await (await ctx.client()).getWorkspace();
      ctx.output.result(workspace, workspaceView(workspace));
    });

  const templates = program.command('templates').description('attachment templates');
  templates
    .command('list')
    .description('list attachment templates, 50 a page')
    .addOption(pageOption())
    .addOption(allOption())
    .action(async (opts: PageOptions) => {
      const source = await ctx.client();
      const page = await fetchPages(opts, (n) => source.listTemplates(n));
      ctx.output.result(page, templatesTable(page));
      notePage(ctx.output, page, 'svc templates list');
    });
  templates
    .command('create')
    .description('create an attachment template from an uploaded file')
    .requiredOption('--name <name>', 'template name')
    .requiredOption('--file-uid <uid>', 'uid of an uploaded file (`svc files upload PATH`)')
    .action(async (opts: { name: string; fileUid: string }) => {
      const template = await (await ctx.client()).createTemplate({ name: opts.name, file_uid: opts.fileUid });
      ctx.output.result(template, templateView(template));
    });
}
