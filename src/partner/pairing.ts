import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { invalid } from '../wire/errors.js';

/** Default lifetime of a QR link, in hours (docs/api-behaviour.md). */
export const QR_LINK_DEFAULT_HOURS = 24;
/** Longest lifetime a QR link may be given, in hours (one week). */
export const QR_LINK_MAX_HOURS = 168;
/** How long one pairing payload is shown before the next replaces it. */
export const PAIRING_WINDOW_MS = 20_000;

const PAYLOAD_PREFIX = 'svc1';
const MAC_BYTES = 16;
const HOUR_MS = 3_600_000;

/** A new QR link code: 192 random bits, URL-safe, so the link itself is the credential to the connect page. */
export const generateLinkCode = (): string => randomBytes(24).toString('base64url');

/**
 * When a link made at `now` expires, from the request's `expires_in_hours` (integer 1..168, default 24).
 * Throws validation_error for anything else, including numeric strings, so a typo is not silently accepted.
 */
export function qrLinkExpiresAt(now: number, expiresInHours: unknown): number {
  if (expiresInHours === undefined || expiresInHours === null) return now + QR_LINK_DEFAULT_HOURS * HOUR_MS;
  if (typeof expiresInHours !== 'number' || !Number.isInteger(expiresInHours)) {
    throw invalid('expires_in_hours must be an integer', `Use a whole number of hours, 1 to ${QR_LINK_MAX_HOURS}.`);
  }
  if (expiresInHours < 1 || expiresInHours > QR_LINK_MAX_HOURS) {
    throw invalid(`expires_in_hours must be between 1 and ${QR_LINK_MAX_HOURS}`);
  }
  return now + expiresInHours * HOUR_MS;
}

/** The stored facts of a QR link that decide what its page shows. */
export interface QrLinkFacts {
  expires_at: number;
  revoked_at: number | null;
  connected_account_id: number | null;
}

/** What a QR link's page shows. */
export type QrLinkState = 'waiting' | 'connected' | 'expired' | 'revoked';

/**
 * The state of a link at `now`. Connected wins over expiry so a page reopened later still shows the phone;
 * revocation wins over everything because a newer link replaced this one.
 */
export function qrLinkState(link: QrLinkFacts, now: number): QrLinkState {
  if (link.revoked_at !== null && link.revoked_at <= now) return 'revoked';
  if (link.connected_account_id !== null) return 'connected';
  if (now >= link.expires_at) return 'expired';
  return 'waiting';
}

/** A link as the revocation rule sees it. */
export interface QrLinkOwner {
  id: number;
  workspace_id: number;
  user_id: number;
  revoked_at: number | null;
}

/**
 * The rule "a new link revokes the previous one": every not-yet-revoked link of the same user in the same
 * workspace, other than the new one. The store applies it in the transaction that inserts the new link.
 */
export function linksRevokedBy<T extends QrLinkOwner>(newLink: QrLinkOwner, existing: readonly T[]): T[] {
  return existing.filter(
    (link) =>
      link.id !== newLink.id &&
      link.workspace_id === newLink.workspace_id &&
      link.user_id === newLink.user_id &&
      link.revoked_at === null,
  );
}

/** The pairing window a time falls in. */
export const pairingWindow = (now: number): number => Math.floor(now / PAIRING_WINDOW_MS);

/** When the window of `now` ends and the next payload should be pushed. */
export const nextPairingRotationAt = (now: number): number => (pairingWindow(now) + 1) * PAIRING_WINDOW_MS;

/**
 * A public handle of a link, stored beside the code so a scanned payload finds its link by index. It is a
 * one-way digest: seeing payloads (and so this key) never reveals the code that opens the page.
 */
export const pairingLookupKey = (code: string): string =>
  createHash('sha256').update(`svc-pairing-key:${code}`).digest('base64url').slice(0, 22);

const pairingMac = (code: string, window: number): Buffer =>
  createHmac('sha256', code).update(`svc-pairing:${window}`).digest().subarray(0, MAC_BYTES);

/**
 * The text encoded in the QR at `now`: `svc1.<lookup key>.<window>.<mac>` with mac = HMAC(code, window).
 * It changes every 20 s, so a photo of the screen stops working within 40 s.
 */
export function pairingPayload(code: string, now: number): string {
  const window = pairingWindow(now);
  return [PAYLOAD_PREFIX, pairingLookupKey(code), window, pairingMac(code, window).toString('base64url')].join('.');
}

/** A scanned payload taken apart, before it is checked against a link. */
export interface ParsedPairingPayload {
  lookupKey: string;
  window: number;
  mac: Buffer;
}

/** Splits a scanned payload, or returns null when it is not one of ours. */
export function parsePairingPayload(payload: string): ParsedPairingPayload | null {
  const match = /^svc1\.([A-Za-z0-9_-]{22})\.(\d{1,15})\.([A-Za-z0-9_-]{22})$/.exec(payload.trim());
  if (!match?.[1] || !match[2] || !match[3]) return null;
  return { lookupKey: match[1], window: Number(match[2]), mac: Buffer.from(match[3], 'base64url') };
}

/**
 * True when `payload` was made for `code` in the current or the previous window (a scan just after a
 * rotation still works). Constant-time on the MAC.
 */
export function pairingPayloadMatches(code: string, payload: ParsedPairingPayload, now: number): boolean {
  const current = pairingWindow(now);
  if (payload.window !== current && payload.window !== current - 1) return false;
  if (payload.lookupKey !== pairingLookupKey(code) || payload.mac.length !== MAC_BYTES) return false;
  return timingSafeEqual(payload.mac, pairingMac(code, payload.window));
}

/**
 * Maps a scanned payload back to its link code: `codeForKey` is the store's lookup by `pairingLookupKey`.
 * Returns null for a foreign, stale or forged payload; link state (expired, revoked) is the caller's check.
 */
export async function resolvePairingPayload(
  payload: string,
  now: number,
  codeForKey: (lookupKey: string) => string | null | Promise<string | null>,
): Promise<string | null> {
  const parsed = parsePairingPayload(payload);
  if (!parsed) return null;
  const code = await codeForKey(parsed.lookupKey);
  return code !== null && pairingPayloadMatches(code, parsed, now) ? code : null;
}

/** The path of a link's connect page (docs/api-behaviour.md). */
export const connectPath = (code: string): string => `/connect/${encodeURIComponent(code)}`;

/** The QR link handed to the partner: `base` is `--public-url` or the request's origin (a path prefix is kept). */
export function qrLinkUrl(base: string, code: string, embedding = false): string {
  const url = new URL(`connect/${encodeURIComponent(code)}`, base.endsWith('/') ? base : `${base}/`);
  if (embedding) url.searchParams.set('display_mode', 'embedding');
  return url.toString();
}

/** The code inside a QR link (what `svc sim scan LINK` starts from), or null when the URL is not one. */
export function codeFromQrLink(link: string): string | null {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return null;
  }
  const match = /\/connect\/([A-Za-z0-9_-]{16,128})\/?$/.exec(url.pathname);
  return match?.[1] ?? null;
}
