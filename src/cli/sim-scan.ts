import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { apiBaseOfQrLink } from '../client/qr-link-server.js';
import { isSvcError, SvcError } from '../wire/errors.js';
import type { SimScanResult } from '../wire/partner-types.js';
import type { CliContext } from './context.js';

/**
 * `svc sim scan LINK`: the link says which server it belongs to. A configured server (`--base-url`, a profile)
 * is asked as configured. Otherwise the local engine is asked first when it has data (its own links name
 * http://127.0.0.1:8080 too, the default of --public-url), and the server the link names when the local engine
 * does not know the link, so a link printed by a running `svc serve` connects there.
 */
export async function scanQrLink(ctx: CliContext, link: string, phone: string): Promise<SimScanResult> {
  const input = { qr_link: link, phone };
  const config = ctx.config();
  const server = apiBaseOfQrLink(link);
  if (config.baseUrl !== undefined || server === null) return (await ctx.client()).sim.scan(input);

  const localHasData = config.databaseUrl !== undefined || existsSync(join(config.dataDir, 'svc.db'));
  if (localHasData) {
    try {
      return await (await ctx.client()).sim.scan(input);
    } catch (error) {
      if (!isSvcError(error) || error.code !== 'not_found') throw error;
    }
  }
  const origin = new URL(server).origin;
  try {
    return await (await ctx.client({ remote: { baseUrl: server, token: '' } })).sim.scan(input);
  } catch (error) {
    if (!isSvcError(error) || error.code !== 'unavailable') throw error;
    const local = localHasData ? 'the local engine does not know this link, and ' : '';
    const reason = /\(([^()]+)\)$/.exec(error.message)?.[1] ?? 'connection failed';
    throw new SvcError('unavailable', `${local}the server the link names, ${origin}, cannot be reached (${reason})`, {
      hint: `start \`svc serve\` there, or pass --base-url with the Public API of the server that printed the link`,
      cause: error,
    });
  }
}
