import type { Command } from 'commander';
import type { PartnerClient } from '../../client/partner-client.js';
import type { PartnerUserAccountDto, QrLinkDto } from '../../wire/partner-types.js';
import { renderTerminalQr } from '../terminal-qr.js';
import type { CliContext } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { positiveInt, seconds } from '../parse.js';
import { pollUntil } from '../poll.js';

const POLL_MS = 1000;

interface QrOptions {
  embed?: boolean;
  expiresInHours?: number;
  wait?: boolean;
  timeout: number;
  lightBackground?: boolean;
}

/** `svc partner qr WS USER`: a QR link for the user, printed and drawn in the terminal; `--wait` until it is scanned. */
export function registerPartnerQr(partner: Command, ctx: CliContext): void {
  partner
    .command('qr')
    .argument('<ws>', 'workspace id', positiveInt)
    .argument('<user>', 'user id', positiveInt)
    .description('create a QR link for connecting the user\'s messenger account (revokes the previous link)')
    .option('--embed', 'print the link for an iframe (display_mode=embedding)')
    .option('--expires-in-hours <n>', 'link lifetime, 1 to 168 hours (default 24)', positiveInt)
    .option('--wait', 'wait until the account connects, then print its phone')
    .option('--timeout <seconds>', 'longest wait with --wait', seconds, 600)
    .option('--light-background', 'draw the QR for a terminal with a light background')
    .action(async (ws: number, user: number, opts: QrOptions) => {
      const client = await ctx.partnerClient();
      const accountOf = userAccountReader(client, ws, user);
      const before = await accountOf();
      const link = await client.createQrLink(ws, user, opts.expiresInHours === undefined ? {} : { expires_in_hours: opts.expiresInHours });
      const shown = opts.embed === true ? embeddingLink(link.qr_link) : link.qr_link;
      const result: QrLinkDto & { embed_link?: string } = opts.embed === true ? { ...link, embed_link: shown } : link;
      // With --wait and --json, the one JSON result comes after the scan; otherwise the link is shown now.
      if (!ctx.output.json || opts.wait !== true) {
        // The drawing is for eyes only: piped, the output is the link alone, ready for a script.
        const qr = ctx.io.stdoutIsTTY ? ['', renderTerminalQr(shown, { lightBackground: opts.lightBackground === true }).replace(/\n+$/, '')] : [];
        ctx.output.result(result, { kind: 'lines', lines: [shown, ...qr] });
        ctx.output.note(`expires at ${link.expires_at}; a new link for this user revokes this one`);
      }
      if (opts.wait !== true) return;
      const account = await waitForConnection(ctx, accountOf, ws, user, before, opts.timeout * 1000);
      ctx.output.result({ ...result, phone: account.phone, connected_at: account.connected_at }, {
        kind: 'lines',
        lines: [`connected ${account.phone}`],
      });
    });
}

/** The link with `display_mode=embedding`, for an iframe. */
const embeddingLink = (link: string): string => {
  const url = new URL(link);
  url.searchParams.set('display_mode', 'embedding');
  return url.toString();
};

/**
 * Reads a user's account from the users list (50 a page). It remembers the page the user was found on, so
 * each poll while waiting for a scan reads that one page rather than walking the list again.
 */
function userAccountReader(client: PartnerClient, ws: number, user: number): () => Promise<PartnerUserAccountDto | null> {
  let knownPage: number | undefined;
  return async () => {
    if (knownPage !== undefined) {
      const found = (await client.listUsers(ws, knownPage)).items.find((u) => u.user_id === user);
      if (found !== undefined) return found.messenger_account;
    }
    for (let page = 1; ; page++) {
      const { items, has_more_pages } = await client.listUsers(ws, page);
      const found = items.find((u) => u.user_id === user);
      if (found !== undefined) {
        knownPage = page;
        return found.messenger_account;
      }
      if (!has_more_pages) return null;
    }
  };
}

/**
 * Polls the user list until the user has a connected account that was not there before the link was made.
 * Ctrl-C stops with exit 130; the link stays valid.
 */
async function waitForConnection(
  ctx: CliContext,
  accountOf: () => Promise<PartnerUserAccountDto | null>,
  ws: number,
  user: number,
  before: PartnerUserAccountDto | null,
  timeoutMs: number,
): Promise<PartnerUserAccountDto> {
  const isNew = (account: PartnerUserAccountDto | null): account is PartnerUserAccountDto =>
    account !== null && account.status === 'connected' && (before?.status !== 'connected' || account.connected_at !== before.connected_at);
  const { value: account } = await pollUntil(ctx, {
    read: accountOf,
    done: isNew,
    intervalMs: POLL_MS,
    timeoutMs,
    label: () => 'waiting for the phone to scan…',
    interrupted: () => new CliError('interrupted', 'stopped waiting for the scan', 'the link stays valid until it expires', EXIT.interrupted),
  });
  if (isNew(account)) return account;
  throw new CliError('timeout', `user ${user} did not connect within ${Math.round(timeoutMs / 1000)} s`, `\`svc partner users list ${ws}\` shows the account once connected`);
}
