import type { Command } from 'commander';
import type { Engine, InstanceSettingsDto, InstanceSettingsUpdate } from '../../runtime/open-engine.js';
import type { CliContext } from '../context.js';
import { usageError } from '../errors.js';
import { secondsListToMs } from '../parse.js';
import { existingInstance } from './admin-database.js';

interface InstanceFlags {
  strict?: boolean;
  devUrls?: boolean;
  webhookRetryDelays?: number[] | 'default';
}

/**
 * `svc admin instance`: the rules of the instance itself, which every process opening it follows (a server,
 * a local command): whether webhook URLs must be public https, and the webhook retry schedule.
 */
export function registerAdminInstance(
  admin: Command,
  ctx: CliContext,
  withEngine: <T>(ctx: CliContext, run: (engine: Engine) => Promise<T>) => Promise<T>,
): void {
  admin
    .command('instance')
    .description('show or change the rules every process on this instance follows (webhook URLs, retries)')
    .option('--strict', 'webhook URLs must be public https for every process, local commands included')
    .option('--dev-urls', 'allow http and private webhook URLs again (a local sandbox); a server without --dev makes it strict again')
    .option('--webhook-retry-delays <seconds>', 'delays before webhook retries, e.g. 5,30; "default" restores them', retryDelays)
    .action(async (opts: InstanceFlags) => {
      if (opts.strict === true && opts.devUrls === true) throw usageError('--strict and --dev-urls contradict each other', 'pass one of them');
      const update: InstanceSettingsUpdate = {
        ...(opts.strict === true ? { strict: true } : {}),
        ...(opts.devUrls === true ? { strict: false } : {}),
        ...(opts.webhookRetryDelays === undefined ? {} : { webhookRetryDelaysMs: opts.webhookRetryDelays === 'default' ? null : opts.webhookRetryDelays }),
      };
      const changing = Object.keys(update).length > 0;
      // A mistyped --data must not become a new instance (marked strict, say) that reports success.
      const { dataDir, databaseUrl } = ctx.config();
      if (ctx.globals.baseUrl === undefined && databaseUrl === undefined) await existingInstance(dataDir);
      const settings = await withEngine(ctx, (engine) => (changing ? engine.admin.updateInstanceSettings(update) : engine.admin.instanceSettings()));
      ctx.output.result(settings, { kind: 'record', rows: rows(settings) });
      if (changing) ctx.output.note('processes already running keep the rules they started with: restart them');
    });
}

const rows = (s: InstanceSettingsDto): Array<[string, unknown]> => [
  ['webhook_urls', s.webhook_urls === 'strict' ? 'strict (public https only, for every process)' : 'local (http and private addresses allowed)'],
  ['webhook_retry_delays', `${s.webhook_retry_delays_ms.map((ms) => `${ms / 1000} s`).join(', ')}${s.webhook_retry_delays_default ? ' (default)' : ''}`],
];

// Commander turns a parser's null into '', so "default" stays a word here and becomes null in the action.
function retryDelays(value: string): number[] | 'default' {
  return value === 'default' ? 'default' : secondsListToMs(value);
}
