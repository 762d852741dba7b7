import type { Command } from 'commander';
import { DEFAULT_PROFILE, type Profile } from '../../client/config.js';
import type { CliContext } from '../context.js';
import { usageError } from '../errors.js';

const hidden = (value: string | undefined): string => (value === undefined ? '(not set)' : '(set; hidden)');

/** `svc profile list|use|show|delete`: saved connection settings. Tokens are shown only with --show-token. */
export function registerProfile(program: Command, ctx: CliContext): void {
  const profile = program.command('profile').description('saved profiles (created by `svc login`)');

  profile
    .command('list')
    .description('list profiles; * marks the current one')
    .action(() => {
      const { profiles } = ctx;
      const current = profiles.current ?? DEFAULT_PROFILE;
      const entries = Object.entries(profiles.list());
      const data = {
        current,
        profiles: entries.map(([name, p]) => ({ name, base_url: p.base_url ?? null, data_dir: p.data_dir ?? null, has_token: p.token !== undefined })),
      };
      ctx.output.result(data, {
        kind: 'table',
        head: ['', 'name', 'base_url', 'token'],
        rows: data.profiles.map((p) => [p.name === current ? '*' : '', p.name, p.base_url ?? '(local engine)', p.has_token ? 'set' : '']),
        empty: 'no profiles yet; create one with `svc login`',
      });
    });

  profile
    .command('use')
    .argument('<name>', 'profile name')
    .description('make a profile the current one')
    .action((name: string) => {
      requireProfile(ctx, name);
      ctx.profiles.use(name);
      ctx.output.result({ current: name }, { kind: 'lines', lines: [`now using profile "${name}"`] });
    });

  profile
    .command('delete')
    .argument('<name>', 'profile name')
    .description('forget a profile with its token and partner secret')
    .option('--yes', 'do not ask for confirmation (required without a terminal)')
    .action(async (name: string, opts: { yes?: boolean }) => {
      requireProfile(ctx, name);
      await ctx.confirm(`Delete profile "${name}" with its saved token`, opts.yes);
      ctx.profiles.delete(name);
      ctx.output.result({ deleted: true, name }, { kind: 'lines', lines: [`deleted profile "${name}"`] });
    });

  profile
    .command('show')
    .argument('[name]', 'profile name (default: the current one)')
    .description('show a profile')
    .option('--show-token', 'print the token and partner secret instead of hiding them')
    .action((nameArg: string | undefined, opts: { showToken?: boolean }) => {
      const named = nameArg ?? ctx.globals.profile ?? (ctx.io.env['SVC_PROFILE'] || undefined);
      const name = named ?? ctx.profiles.current ?? DEFAULT_PROFILE;
      // The implicit default profile may not be saved yet: it is then simply empty (the local engine).
      const p = named === undefined ? (ctx.profiles.get(name) ?? {}) : requireProfile(ctx, name);
      const reveal = opts.showToken === true;
      const data = {
        name,
        current: name === (ctx.profiles.current ?? DEFAULT_PROFILE),
        base_url: p.base_url ?? null,
        data_dir: p.data_dir ?? null,
        has_token: p.token !== undefined,
        ...(reveal ? { token: p.token ?? null } : {}),
        partner_base_url: p.partner_base_url ?? null,
        partner_id: p.partner_id ?? null,
        ...(reveal ? { partner_secret: p.partner_secret ?? null } : {}),
      };
      ctx.output.result(data, {
        kind: 'record',
        rows: [
          ['name', name],
          ['current', data.current ? 'yes' : 'no'],
          ['base_url', p.base_url ?? '(local engine)'],
          ['data_dir', p.data_dir],
          ['token', reveal ? p.token : hidden(p.token)],
          ['partner_base_url', p.partner_base_url],
          ['partner_id', p.partner_id],
          ['partner_secret', reveal ? p.partner_secret : hidden(p.partner_secret)],
        ],
      });
    });
}

function requireProfile(ctx: CliContext, name: string): Profile {
  const p = ctx.profiles.get(name);
  if (p === undefined) {
    throw usageError(`profile "${name}" does not exist`, `run \`svc profile list\`, or \`svc login --profile ${name}\` to create it`);
  }
  return p;
}
