import type { Command } from 'commander';
import { DEFAULT_PROFILE } from '../../client/config.js';
import { isSvcError, SvcError } from '../../wire/errors.js';
import type { CliContext } from '../context.js';
import { usageError } from '../errors.js';
import { httpUrl } from '../parse.js';
import { warnLoginOverridden } from '../profile-warnings.js';
import { loginPartner, type PartnerLoginOptions } from './login-partner.js';

/** `svc login`: checks a base URL and token against the server and saves them as a profile. */
export function registerLogin(program: Command, ctx: CliContext): void {
  program
    .command('login')
    .description('save a remote instance (--base-url, --token) as a profile (--profile, default "default")')
    .option('--partner', 'save Partner API credentials instead (--partner-id, secret asked for or SVC_PARTNER_SECRET)')
    .option('--partner-base-url <url>', 'Partner API of a remote instance, e.g. http://127.0.0.1:8080/partner (default: the local engine)', httpUrl)
    .option('--partner-id <id>', 'Partner ID (env SVC_PARTNER_ID)')
    .option('--partner-secret <secret>', 'Partner Secret (env SVC_PARTNER_SECRET; prefer the prompt, flags end up in shell history)')
    .action(async (opts: PartnerLoginOptions & { partner?: boolean }) => {
      if (opts.partner === true) return loginPartner(ctx, opts);
      const { globals, io, profiles } = ctx;
      const name = globals.profile ?? nonEmpty(io.env['SVC_PROFILE']) ?? profiles.current ?? DEFAULT_PROFILE;
      const existing = profiles.get(name);

      const baseUrl =
        globals.baseUrl ??
        nonEmpty(io.env['SVC_BASE_URL']) ??
        (await ctx.ask(
          { kind: 'input', message: 'Base URL of the Public API:', default: existing?.base_url ?? 'http://127.0.0.1:8080/api' },
          '`svc login` needs --base-url URL, e.g. http://127.0.0.1:8080/api',
        ));
      if (!/^https?:\/\/[^/]/.test(baseUrl)) throw usageError(`"${baseUrl}" is not an http(s) URL`, 'pass e.g. --base-url http://127.0.0.1:8080/api');
      const token =
        globals.token ??
        nonEmpty(io.env['SVC_TOKEN']) ??
        (await ctx.ask({ kind: 'password', message: 'API token:' }, '`svc login` needs --token T (or SVC_TOKEN)'));

      const client = await ctx.client({ remote: { baseUrl, token } });
      let workspace;
      try {
        workspace = await client.getWorkspace();
      } catch (error) {
        if (isSvcError(error) && error.code === 'unauthorized') {
          throw new SvcError('unauthorized', `${baseUrl} rejected the token`, {
            hint: 'copy the token again (`svc admin workspace create` prints one) and rerun `svc login`',
          });
        }
        throw error;
      }

      profiles.save(name, { base_url: baseUrl, token });
      profiles.use(name);
      warnLoginOverridden(ctx, name, { baseUrl, token });
      const result = { profile: name, base_url: baseUrl, workspace: { id: workspace.id, name: workspace.name } };
      ctx.output.result(result, {
        kind: 'lines',
        lines: [`logged in to ${baseUrl} as workspace "${workspace.name}" (${workspace.id}); saved as profile "${name}"`],
      });
    });
}

/** `svc logout`: forgets the current (or --profile) profile, so commands go back to the local engine. */
export function registerLogout(program: Command, ctx: CliContext): void {
  program
    .command('logout')
    .description('forget the saved server and token of the current profile (or --profile NAME)')
    .action(() => {
      const { globals, io, profiles } = ctx;
      const name = globals.profile ?? nonEmpty(io.env['SVC_PROFILE']) ?? profiles.current ?? DEFAULT_PROFILE;
      const saved = profiles.get(name);
      if (saved === undefined) {
        ctx.output.result({ profile: name, logged_out: false }, { kind: 'lines', lines: [`not logged in (no profile "${name}")`] });
        return;
      }
      profiles.delete(name);
      const from = saved.base_url ?? saved.partner_base_url ?? 'the local engine';
      ctx.output.result(
        { profile: name, logged_out: true },
        { kind: 'lines', lines: [`logged out of ${from}; profile "${name}" deleted`, 'commands now use the local engine unless --base-url or another profile says otherwise'] },
      );
    });
}

const nonEmpty = (value: string | undefined): string | undefined => (value === '' ? undefined : value);
