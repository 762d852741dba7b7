import { existsSync } from 'node:fs';
import { redactDatabaseUrl } from '../../client/store-description.js';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { ConfigSource } from '../../client/config.js';
import type { CliContext } from '../context.js';
import { reportError } from '../errors.js';
import { rowIfPresent } from '../output.js';
import { warnProfileSetAside } from '../profile-warnings.js';

const SOURCE_WORDS: Record<ConfigSource, string> = {
  flag: 'from a flag',
  env: 'from the environment',
  profile: 'from the profile',
  default: 'by default',
};

/**
 * `svc status`: which target and workspace a command would use, and why (flag, environment, profile or
 * default). It answers even when the target is unreachable: the problem is part of the status, and the exit
 * code says so, as `gh auth status` does.
 */
export function registerStatus(program: Command, ctx: CliContext): void {
  program
    .command('status')
    .description('show which instance and workspace commands use, and where each setting comes from')
    .action(async () => {
      const config = ctx.config();
      warnProfileSetAside(ctx, config);
      const remote = config.baseUrl !== undefined;
      const base = {
        target: remote ? 'remote' : 'local',
        base_url: config.baseUrl ?? null,
        data_dir: remote || config.databaseUrl !== undefined ? null : config.dataDir,
        // Shown without its password, like everywhere else svc prints it.
        database: remote || config.databaseUrl === undefined ? null : redactDatabaseUrl(config.databaseUrl),
        profile: config.profileExists ? config.profileName : null,
        sources: remote
          ? { base_url: config.sources.baseUrl, token: config.sources.token }
          : config.databaseUrl !== undefined
            ? { database: config.sources.databaseUrl }
            : { data_dir: config.sources.dataDir },
        has_token: config.token !== undefined,
        partner: {
          target: config.partnerBaseUrl ?? (remote ? null : 'local'),
          partner_id: config.partnerId ?? null,
        },
      };
      let workspace: { id: number; name: string } | null = null;
      let problem: { code: string; message: string; hint?: string } | null = null;
      if (!remote && config.databaseUrl === undefined && !existsSync(join(config.dataDir, 'svc.db'))) {
        problem = { code: 'not_created', message: `no data in ${config.dataDir} yet`, hint: 'the first command (for example `svc sim connect`) creates it' };
      } else {
        try {
          const found = await (await ctx.client()).getWorkspace();
          workspace = { id: found.id, name: found.name };
        } catch (error) {
          const reported = reportError(error, ctx.target());
          problem = { code: reported.code, message: reported.message, ...(reported.hint ? { hint: reported.hint } : {}) };
          ctx.exitCode = reported.exitCode;
        }
      }
      const data = { ...base, workspace, problem };
      const where = remote
        ? `remote instance ${config.baseUrl} (${SOURCE_WORDS[config.sources.baseUrl]})`
        : config.databaseUrl !== undefined
          ? `local engine on ${redactDatabaseUrl(config.databaseUrl)} (${SOURCE_WORDS[config.sources.databaseUrl]})`
          : `local engine in ${config.dataDir} (${SOURCE_WORDS[config.sources.dataDir]})`;
      ctx.output.result(data, {
        kind: 'record',
        rows: [
          ['target', where],
          ['profile', base.profile ?? '(none saved)'],
          ...rowIfPresent('token', !remote ? undefined : config.token === undefined ? 'missing: pass --token or run `svc login`' : `set (${SOURCE_WORDS[config.sources.token]})`),
          ['workspace', workspace === null ? '(unknown)' : `${workspace.name} (${workspace.id})`],
          ['partner API', base.partner.target === null ? '(not set)' : base.partner.target === 'local' ? 'the local engine' : base.partner.target],
          ['partner id', base.partner.partner_id ?? '(not set)'],
          ...rowIfPresent('problem', problem === null ? undefined : `${problem.message}${problem.hint ? `; ${problem.hint}` : ''}`),
        ],
      });
    });
}
