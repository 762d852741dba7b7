import { Option, type Command } from 'commander';
import type { AdminWorkspaceUpdateInput, Plan } from '../../wire/types.js';
import type { Engine } from '../../runtime/open-engine.js';
import type { CliContext } from '../context.js';
import { usageError } from '../errors.js';
import { nonNegativeInt, positiveInt } from '../parse.js';
import { workspaceView } from '../views.js';
import { registerAdminDatabase } from './admin-database.js';
import { registerAdminInstance } from './admin-instance.js';

const planOption = () => new Option('--plan <plan>', 'plan of the workspace').choices(['standard', 'business']);

/** `svc admin workspace create|update`: support-side settings, straight on a data directory. */
export function registerAdmin(program: Command, ctx: CliContext): void {
  const admin = program.command('admin').description('support-side settings on a database (--data DIR, or --database URL)');
  const workspace = admin.command('workspace').description('create and configure workspaces');

  workspace
    .command('create')
    .description('create a workspace and print its Public API token')
    .requiredOption('--name <name>', 'display name')
    .option('--quota <n>', 'messaging credits per period', nonNegativeInt)
    .addOption(planOption())
    .option('--seats <n>', 'seats purchased', positiveInt)
    .option('--owner-email <email>', 'e-mail of the owner (failure notices)')
    .action(async (opts: { name: string; quota?: number; plan?: Plan; seats?: number; ownerEmail?: string }) => {
      const created = await withEngine(ctx, (engine) =>
        engine.admin.createWorkspace({
          name: opts.name,
          ...(opts.quota === undefined ? {} : { quota: opts.quota }),
          ...(opts.plan === undefined ? {} : { plan: opts.plan }),
          ...(opts.seats === undefined ? {} : { seats: opts.seats }),
          ...(opts.ownerEmail === undefined ? {} : { owner_email: opts.ownerEmail }),
        }),
      );
      ctx.output.result(created, {
        kind: 'record',
        rows: [
          ['workspace_id', created.workspace_id],
          ['token', created.token],
        ],
      });
      ctx.output.note('keep the token safe: use it with --token or `svc login`');
    });

  workspace
    .command('update')
    .argument('<ws>', 'workspace id', positiveInt)
    .description('change quota, plan, send interval or owner e-mail of a workspace')
    .option('--quota <n>', 'messaging credits per period', nonNegativeInt)
    .addOption(planOption())
    .option('--send-interval <ms>', 'spacing between sends in ms (business plan only); "default" restores ~2 s random', interval)
    .option('--owner-email <email>', 'e-mail of the owner (failure notices); "none" removes it')
    .option('--storage-mb <n>', 'storage quota for files in MiB; "default" restores 1 GiB', storageMb)
    .action(async (ws: number, opts: { quota?: number; plan?: Plan; sendInterval?: number | 'default'; ownerEmail?: string; storageMb?: number | 'default' }) => {
      const input: AdminWorkspaceUpdateInput = {
        ...(opts.quota === undefined ? {} : { quota: opts.quota }),
        ...(opts.plan === undefined ? {} : { plan: opts.plan }),
        ...(opts.sendInterval === undefined ? {} : { send_interval_ms: opts.sendInterval === 'default' ? null : opts.sendInterval }),
        ...(opts.ownerEmail === undefined ? {} : { owner_email: opts.ownerEmail === 'none' ? null : opts.ownerEmail }),
        ...(opts.storageMb === undefined ? {} : { storage_mb: opts.storageMb === 'default' ? null : opts.storageMb }),
      };
      if (Object.keys(input).length === 0) {
        throw usageError('nothing to change: pass --quota, --plan, --send-interval, --owner-email or --storage-mb');
      }
      const updated = await withEngine(ctx, (engine) => engine.admin.updateWorkspace(ws, input));
      ctx.output.result(updated, workspaceView(updated));
    });

  registerAdminPartner(admin, ctx);
  registerAdminDatabase(admin, ctx);
  registerAdminInstance(admin, ctx, withEngine);
}

/** `svc admin partner create`: issues a Partner ID and Secret out of band (docs/api-behaviour.md). */
function registerAdminPartner(admin: Command, ctx: CliContext): void {
  admin
    .command('partner')
    .description('partner records')
    .command('create')
    .description('create a partner and print its Partner ID and Secret (shown this once)')
    .requiredOption('--name <name>', 'partner name')
    .option('--email <email>', 'e-mail for notices about the partner\'s failing webhooks')
    .action(async (opts: { name: string; email?: string }) => {
      const created = await withEngine(ctx, (engine) =>
        engine.admin.createPartner({ name: opts.name, ...(opts.email === undefined ? {} : { email: opts.email }) }),
      );
      const result = { partner_id: created.partner_id, partner_secret: created.partner_secret };
      ctx.output.result(result, { kind: 'record', rows: [['partner_id', result.partner_id], ['partner_secret', result.partner_secret]] });
      ctx.output.note('hand both to the partner; the secret is not shown again (`svc login --partner` stores it)');
    });
}

// Commander turns a parser's null into '', so "default" stays a word here and becomes null in the action.
function interval(value: string): number | 'default' {
  return value === 'default' ? 'default' : nonNegativeInt(value);
}

const storageMb = interval;

/** Opens the engine of the configured data directory for one operation and always closes it. */
async function withEngine<T>(ctx: CliContext, run: (engine: Engine) => Promise<T>): Promise<T> {
  if (ctx.globals.baseUrl !== undefined) {
    throw usageError(
      'admin commands work on a data directory, not on a remote instance',
      'drop --base-url and pass --data DIR (the directory the server was started with)',
    );
  }
  const { dataDir, databaseUrl } = ctx.config();
  const engine = await ctx.io.openEngine({ dataDir, ...(databaseUrl === undefined ? {} : { databaseUrl }) });
  try {
    // Awaited here: the engine must stay open until the operation is done.
    return await run(engine);
  } finally {
    await engine.close();
  }
}
