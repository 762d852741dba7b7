import type { QrLinkCreateInput, QrLinkDto, SimScanInput, SimScanResult } from '../../wire/partner-types.js';
import {
  codeFromQrLink,
  generateLinkCode,
  pairingLookupKey,
  qrLinkExpiresAt,
  qrLinkState,
  qrLinkUrl,
  resolvePairingPayload,
  type QrLinkFacts,
} from '../../partner/pairing.js';
import type { QrLinkRow } from '../../store/qr-link-store.js';
import { connectAccount } from '../accounts.js';
import { isoTime } from '../../wire/clock.js';
import { inWriteTransaction, type EngineContext } from '../context.js';
import { conflict, invalid, notFound } from '../../wire/errors.js';
import { partnerUser } from './users.js';

/** What a connect page shows for a link: its facts and the phone once connected. */
export interface ConnectSnapshot {
  link: QrLinkFacts;
  phone: string | null;
}

/** A new QR link for a user; the previous live link of the user is revoked in the same transaction. */
export async function createQrLink(
  ctx: EngineContext,
  partnerId: number,
  workspaceId: number,
  userId: number,
  input: QrLinkCreateInput,
  linkBase: string,
): Promise<QrLinkDto> {
  const now = ctx.clock.now();
  const expiresAt = qrLinkExpiresAt(now, input.expires_in_hours);
  const code = generateLinkCode();
  await inWriteTransaction(ctx, async (tx) => {
    await partnerUser(tx, partnerId, workspaceId, userId);
    await tx.stores.qrLinks.revokeLive(userId, now);
    await tx.stores.qrLinks.insert({ code, pairingKey: pairingLookupKey(code), workspaceId, userId, expiresAt, now });
    // Connection pages of the revoked link show it at once, on every replica.
    tx.wake(CONNECT_WAKE);
  });
  return { user_id: userId, qr_link: qrLinkUrl(linkBase, code), expires_at: isoTime(expiresAt) };
}

/** The wake-up connection pages follow (`Engine.onWake`): a link was revoked or scanned. */
export const CONNECT_WAKE = 'connect';

/** The state of a link for its page and event stream, or null for an unknown code. */
export async function connectSnapshot(ctx: EngineContext, code: string): Promise<ConnectSnapshot | null> {
  const link = await ctx.stores.qrLinks.byCode(code);
  if (link === undefined) return null;
  const phone = link.connected_account_id === null ? null : ((await ctx.stores.accounts.byId(link.connected_account_id))?.phone ?? null);
  return { link, phone };
}

/**
 * The simulated phone scans a link (its URL, or the rotating payload its page shows): connects the phone
 * as the user's messenger account and marks the link used, in one transaction. connectAccount emits the
 * workspace's `messenger:account:connected` and the partner's `messenger_account:connected`.
 */
export function scanQrLink(ctx: EngineContext, input: SimScanInput): Promise<SimScanResult> {
  return inWriteTransaction(ctx, async (tx) => {
    const now = tx.clock.now();
    const link = await findLink(tx, input, now);
    const state = qrLinkState(link, now);
    if (state !== 'waiting') throw conflict(`This QR link is ${state}`, `ask for a new link (\`svc partner qr ${link.workspace_id} ${link.user_id}\`)`);
    const current = await tx.stores.accounts.byUser(link.user_id);
    if (current !== undefined && current.status !== 'disconnected' && current.phone !== input.phone) {
      throw conflict(`User ${link.user_id} already has ${current.phone} connected`, `disconnect it first (\`svc partner account disconnect ${link.workspace_id} ${link.user_id} --yes\`)`);
    }
    const account = await connectAccount(tx, link.workspace_id, { phone: input.phone, userId: link.user_id });
    await tx.stores.qrLinks.markConnected(link.id, account.id, now);
    tx.wake(CONNECT_WAKE);
    return { phone: account.phone, status: 'connected', workspace_id: link.workspace_id, user_id: link.user_id };
  });
}

async function findLink(ctx: EngineContext, input: SimScanInput, now: number): Promise<QrLinkRow> {
  let code: string | null;
  if (input.qr_link !== undefined) {
    code = codeFromQrLink(input.qr_link);
    if (code === null) throw invalid('qr_link is not a connection link', 'pass the link `svc partner qr WS USER` printed');
  } else if (input.payload !== undefined) {
    code = await resolvePairingPayload(input.payload, now, async (key) => (await ctx.stores.qrLinks.byPairingKey(key))?.code ?? null);
    if (code === null) throw notFound('QR code', 'scan the code the page shows right now; it changes every 20 s');
  } else {
    throw invalid('pass qr_link or payload');
  }
  const link = await ctx.stores.qrLinks.byCode(code);
  if (link === undefined) throw notFound('QR link');
  return link;
}
