import { DEFAULT_PROFILE } from '../../client/config.js';
import type { CliContext } from '../context.js';
import { usageError } from '../errors.js';
import { warnLoginOverridden } from '../profile-warnings.js';

/** Options of `svc login --partner`. */
export interface PartnerLoginOptions {
  partnerBaseUrl?: string;
  partnerId?: string;
  partnerSecret?: string;
}

const nonEmpty = (value: string | undefined): string | undefined => (value === '' ? undefined : value);

/**
 * `svc login --partner`: checks a Partner ID and Secret (against SVC_PARTNER_BASE_URL, or the local engine
 * when none is given) and saves them in the profile, a file only its user can read. The secret is asked for
 * hidden on a terminal and never printed.
 */
export async function loginPartner(ctx: CliContext, opts: PartnerLoginOptions): Promise<void> {
  const { globals, io, profiles } = ctx;
  const name = globals.profile ?? nonEmpty(io.env['SVC_PROFILE']) ?? profiles.current ?? DEFAULT_PROFILE;
  const existing = profiles.get(name);
  const baseUrl = opts.partnerBaseUrl ?? nonEmpty(io.env['SVC_PARTNER_BASE_URL']) ?? existing?.partner_base_url;
  if (baseUrl !== undefined && !/^https?:\/\/[^/]/.test(baseUrl)) {
    throw usageError(`"${baseUrl}" is not an http(s) URL`, 'pass e.g. --partner-base-url http://127.0.0.1:8080/partner');
  }
  const partnerId =
    opts.partnerId ??
    nonEmpty(io.env['SVC_PARTNER_ID']) ??
    (await ctx.ask({ kind: 'input', message: 'Partner ID:' }, '`svc login --partner` needs --partner-id ID (or SVC_PARTNER_ID)'));
  const partnerSecret =
    opts.partnerSecret ??
    nonEmpty(io.env['SVC_PARTNER_SECRET']) ??
    (await ctx.ask({ kind: 'password', message: 'Partner Secret:' }, '`svc login --partner` needs SVC_PARTNER_SECRET or a terminal to ask on'));

  const client = await ctx.partnerClient({ baseUrl, partnerId, partnerSecret });
  const partner = await client.describe();
  profiles.save(name, { partner_id: partnerId, partner_secret: partnerSecret, ...(baseUrl === undefined ? {} : { partner_base_url: baseUrl }) });
  profiles.use(name);
  warnLoginOverridden(ctx, name, {});
  const result = { profile: name, partner_id: partner.partner_id, name: partner.name, partner_base_url: baseUrl ?? null };
  ctx.output.result(result, {
    kind: 'lines',
    lines: [`logged in as partner "${partner.name}" (${partner.partner_id}) on ${client.target}; saved as profile "${name}"`],
  });
}
