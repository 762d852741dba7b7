import { resolveConfig, sameApiBase, type ResolvedConfig } from '../client/config.js';
import { describeStore } from '../client/store-description.js';
import type { CliContext } from './context.js';

/**
 * `--data`, `SVC_HOME`, `--database` or `SVC_DATABASE_URL` select the local engine even after `svc login`
 * (docs/cli.md, Configuration): say so where it surprises, or a user reads the local engine's answers as the server's.
 */
export function warnProfileSetAside(ctx: CliContext, config: ResolvedConfig): void {
  const by = config.profileSetAsideBy;
  if (by === undefined) return;
  const saved = ctx.profiles.get(config.profileName);
  const server = saved?.base_url ?? saved?.partner_base_url;
  const fix = by.startsWith('--') ? `drop ${by}` : `unset ${by}`;
  ctx.output.warn(`${by} selects the local engine (${describeStore(config)}): the server saved in profile "${config.profileName}" (${server}) is not used; ${fix} to use it`);
}

/**
 * After `svc login` saved `saved` in profile `name`: warns when this shell's settings (or this invocation's
 * `--data`/`--database`) would still send later commands elsewhere, as a flag or variable beats a profile.
 */
export function warnLoginOverridden(ctx: CliContext, name: string, saved: { baseUrl?: string; token?: string }): void {
  const { data, database } = ctx.globals;
  const next = resolveConfig({ data, database }, ctx.io.env, ctx.profiles);
  if (next.profileName !== name) {
    ctx.output.warn(`SVC_PROFILE is set to "${next.profileName}": commands in this shell use that profile, not "${name}"; unset SVC_PROFILE`);
    return;
  }
  if (next.profileSetAsideBy !== undefined) {
    warnProfileSetAside(ctx, next);
    return;
  }
  if (saved.baseUrl === undefined) return;
  if (next.baseUrl !== undefined && !sameApiBase(next.baseUrl, saved.baseUrl)) {
    ctx.output.warn(`SVC_BASE_URL is set: commands in this shell go to ${next.baseUrl}, not ${saved.baseUrl}; unset SVC_BASE_URL`);
  } else if (next.sources.token === 'env') {
    ctx.output.warn('SVC_TOKEN is set: commands in this shell send it instead of the token just saved; unset SVC_TOKEN');
  }
}
