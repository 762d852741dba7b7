import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { allOption, fetchPages, notePage, pageOption, type PageOptions } from '../pagination.js';
import { readUpload } from '../upload.js';
import { fileView, filesTable } from '../views.js';

/** `svc files upload PATH | list | get UID | delete UID`. */
export function registerFiles(program: Command, ctx: CliContext): void {
  const files = program.command('files').description('upload and manage attachments');

  files
    .command('upload <path>')
    .description('upload a file; its uid can be sent with `svc send --file-uid UID`')
    .action(async (path: string) => {
      const input = await readUpload(path);
      const file = await (await ctx.client()).uploadFile(input);
      ctx.output.result(file, fileView(file));
    });

  files
    .command('list')
    .description('list uploaded files, 50 a page')
    .addOption(pageOption())
    .addOption(allOption())
    .action(async (opts: PageOptions) => {
      const source = await ctx.client();
      const page = await fetchPages(opts, (n) => source.listFiles(n));
      ctx.output.result(page, filesTable(page));
      notePage(ctx.output, page, 'svc files list');
    });

  files
    .command('get <uid>')
    .description('show a file with a download link valid for 15 minutes')
    .action(async (uid: string) => {
      const file = await (await ctx.client()).getFile(uid);
      ctx.output.result(file, fileView(file));
    });

  files
    .command('delete <uid>')
    .description('delete an uploaded file')
    .option('--yes', 'do not ask for confirmation (required without a terminal)')
    .action(async (uid: string, opts: { yes?: boolean }) => {
      await ctx.confirm(`Delete file ${uid}`, opts.yes);
      const result = await (await ctx.client()).deleteFile(uid);
      ctx.output.result(result, { kind: 'lines', lines: [`deleted ${result.uid}`] });
    });
}
