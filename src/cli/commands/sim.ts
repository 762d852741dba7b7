import type { Command } from 'commander';
import type { SimAccountResult } from '../../wire/types.js';
import type { CliContext } from '../context.js';
import { usageError } from '../errors.js';
import type { View } from '../output.js';
import { positiveInt } from '../parse.js';
import { scanQrLink } from '../sim-scan.js';

interface WorkspaceOption {
  workspace?: number;
}

const WORKSPACE_HELP = 'workspace to act on (default: the local workspace, or the token\'s workspace)';

const accountView = (r: SimAccountResult): View => ({
  kind: 'record',
  rows: [
    ['phone', r.phone],
    ['status', r.status],
  ],
});

/** `svc sim ...`: drives the simulated messenger network (local engine, or `/sim` of a server). */
export function registerSim(program: Command, ctx: CliContext): void {
  const sim = program.command('sim').description('drive the simulated messenger network');
  const client = (opts: WorkspaceOption) => ctx.client(opts.workspace === undefined ? {} : { workspaceId: opts.workspace });

  sim
    .command('connect')
    .description('connect a simulated messenger account')
    .requiredOption('--phone <phone>', 'account number, e.g. +15550001')
    .option('--name <name>', 'display name of the account')
    .option('--email <email>', 'e-mail of the account owner')
    .option('--workspace <id>', WORKSPACE_HELP, positiveInt)
    .action(async (opts: WorkspaceOption & { phone: string; name?: string; email?: string }) => {
      const result = await (await client(opts)).sim.connect({
        phone: opts.phone,
        ...(opts.name === undefined ? {} : { full_name: opts.name }),
        ...(opts.email === undefined ? {} : { email: opts.email }),
      });
      ctx.output.result(result, accountView(result));
    });

  sim
    .command('receive')
    .description('an incoming message from a contact to one of the accounts')
    .requiredOption('--from <phone>', 'contact number')
    .requiredOption('--to <phone>', 'account number that receives it')
    .option('--text <text>', 'message text')
    .option('--file-uid <uid>', 'attachment (an uploaded file)')
    .option('--reply-to <uid>', 'uid of the message it replies to')
    .option('--name <name>', 'contact name')
    .option('--workspace <id>', WORKSPACE_HELP, positiveInt)
    .action(
      async (opts: WorkspaceOption & { from: string; to: string; text?: string; fileUid?: string; replyTo?: string; name?: string }) => {
        if (opts.text === undefined && opts.fileUid === undefined) throw usageError('pass --text or --file-uid');
        const result = await (await client(opts)).sim.receive({
          from: opts.from,
          to: opts.to,
          ...(opts.text === undefined ? {} : { text: opts.text }),
          ...(opts.fileUid === undefined ? {} : { file_uid: opts.fileUid }),
          ...(opts.replyTo === undefined ? {} : { reply_to: opts.replyTo }),
          ...(opts.name === undefined ? {} : { contact_name: opts.name }),
        });
        ctx.output.result(result, { kind: 'record', rows: [['message_uid', result.message_uid], ['chat_id', result.chat_id]] });
      },
    );

  sim
    .command('react')
    .argument('<uid>', 'message uid')
    .description('a contact reacts to a message')
    .requiredOption('--emoji <emoji>', 'the reaction')
    .option('--from <phone>', 'contact who reacts (default: the chat contact)')
    .option('--workspace <id>', WORKSPACE_HELP, positiveInt)
    .action(async (uid: string, opts: WorkspaceOption & { emoji: string; from?: string }) => {
      const result = await (await client(opts)).sim.react({
        message_uid: uid,
        emoji: opts.emoji,
        ...(opts.from === undefined ? {} : { from: opts.from }),
      });
      ctx.output.result(result, { kind: 'record', rows: [['message_uid', result.message_uid], ['reactions', result.reactions]] });
    });

  const change = { disconnect: 'disconnect', suspend: 'suspend syncing of', resume: 'resume syncing of' } as const;
  for (const [action, verb] of Object.entries(change) as Array<[keyof typeof change, string]>) {
    sim
      .command(action)
      .description(`${verb} a simulated account`)
      .requiredOption('--phone <phone>', 'account number')
      .option('--workspace <id>', WORKSPACE_HELP, positiveInt)
      .action(async (opts: WorkspaceOption & { phone: string }) => {
        const result = await (await client(opts)).sim[action](opts.phone);
        ctx.output.result(result, accountView(result));
      });
  }

  sim
    .command('scan')
    .argument('<qr_link>', 'a link printed by `svc partner qr WS USER`')
    .description('the simulated phone scans a partner QR link and connects as that link\'s user')
    .requiredOption('--phone <phone>', 'number of the scanning phone, e.g. +15550001')
    .action(async (link: string, opts: { phone: string }) => {
      // The link, not a workspace, says where the account goes: no --workspace here.
      const result = await scanQrLink(ctx, link, opts.phone);
      ctx.output.result(result, {
        kind: 'record',
        rows: [['phone', result.phone], ['status', result.status], ['workspace_id', result.workspace_id], ['user_id', result.user_id]],
      });
    });

  sim
    .command('unreachable')
    .description('make a contact number unreachable, so sends to it fail (--off to undo)')
    .requiredOption('--phone <phone>', 'contact number')
    .option('--off', 'make it reachable again')
    .option('--workspace <id>', WORKSPACE_HELP, positiveInt)
    .action(async (opts: WorkspaceOption & { phone: string; off?: boolean }) => {
      const result = await (await client(opts)).sim.setUnreachable(opts.phone, opts.off !== true);
      ctx.output.result(result, { kind: 'record', rows: [['phone', result.phone], ['unreachable', result.unreachable]] });
    });
}
