import { randomBytes } from 'node:crypto';
import {
  CONNECT_PAGE_CSS,
  CONNECT_PAGE_SCRIPT,
  CONNECT_PAGE_SCRIPT_HASH,
  CONNECT_PAGE_STYLE_HASH,
} from './connect-page-assets.js';
import type { QrLinkState } from './pairing.js';

export { renderQrSvg } from './qr-svg.js';

/** Standalone full page, or the compact transparent page for an iframe (`?display_mode=embedding`). */
export type ConnectPageMode = 'standalone' | 'embedding';

/** What the connect page of one link is rendered from. */
export interface ConnectPageInput {
  code: string;
  mode: ConnectPageMode;
  state: QrLinkState;
  /** The QR of the current pairing payload (renderQrSvg); required while waiting. */
  initialQrSvg?: string | null;
  initialPairingPayload?: string | null;
  /** Where the page follows its Server-Sent Events, normally `/connect/{code}/events`. */
  eventsUrl: string;
  /** The connected phone, shown in the connected state. */
  phone?: string | null;
  /** Per-response CSP nonce; the constant assets are also allowed by hash, so it is optional. */
  nonce?: string;
}

/** The mode asked for by the `display_mode` query parameter; anything but `embedding` is standalone. */
export const connectPageMode = (displayMode: unknown): ConnectPageMode =>
  displayMode === 'embedding' ? 'embedding' : 'standalone';

/** A fresh CSP nonce for one response. */
export const generateCspNonce = (): string => randomBytes(16).toString('base64');

/** Text made safe for HTML content and attribute values. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** The full HTML of `/connect/{code}`: no external assets, the QR inline, state switched by the inline script. */
export function renderConnectPage(input: ConnectPageInput): string {
  if (input.state === 'waiting' && (!input.initialQrSvg || !input.initialPairingPayload)) {
    throw new Error('a waiting connect page needs initialQrSvg and initialPairingPayload');
  }
  const nonce = input.nonce === undefined ? '' : ` nonce="${escapeHtml(input.nonce)}"`;
  const qr = input.state === 'waiting' ? (input.initialQrSvg ?? '') : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<link rel="icon" href="data:,">
<title>Connect your messenger account</title>
<style${nonce}>${CONNECT_PAGE_CSS}</style>
</head>
<body data-mode="${input.mode}" data-state="${input.state}" data-events-url="${escapeHtml(input.eventsUrl)}">
<main>
<h1>Connect your messenger account</h1>
<section class="state state-waiting" aria-live="polite">
<div id="svc-qr" class="qr" data-payload="${escapeHtml(input.initialPairingPayload ?? '')}">${qr}</div>
<ol class="steps">
<li>Open the messenger app on your phone.</li>
<li>Go to Settings, then Linked devices, then Link a device.</li>
<li>Point your phone at this code.</li>
</ol>
<p class="note">The code changes every few seconds; this page updates by itself.</p>
<p class="offline" role="alert">Lost contact with the server. Reload the page to get a fresh code.</p>
</section>
<section class="state state-connected" aria-live="polite">
<p class="big">Connected</p>
<p>The account <strong id="svc-phone">${escapeHtml(input.phone ?? '')}</strong> is connected. You can close this page.</p>
</section>
<section class="state state-expired" aria-live="polite">
<p class="big">This link has expired</p>
<p>Ask for a new connection link.</p>
</section>
<section class="state state-revoked" aria-live="polite">
<p class="big">This link is no longer valid</p>
<p>A newer connection link has replaced it.</p>
</section>
</main>
<script${nonce}>${CONNECT_PAGE_SCRIPT}</script>
</body>
</html>
`;
}

/**
 * The Content-Security-Policy to send with the page: nothing external, the inline assets by hash (and nonce
 * when given), events from the same origin. Only the embedding mode may be framed, by any site, since
 * partners' origins are not registered.
 */
export function connectPageCsp(options: { mode: ConnectPageMode; nonce?: string }): string {
  const nonce = options.nonce === undefined ? '' : ` 'nonce-${options.nonce}'`;
  return [
    "default-src 'none'",
    `script-src ${CONNECT_PAGE_SCRIPT_HASH}${nonce}`,
    `style-src ${CONNECT_PAGE_STYLE_HASH}${nonce}`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${options.mode === 'embedding' ? '*' : "'none'"}`,
  ].join('; ');
}

/**
 * Every header the HTTP layer should set on the page. The link code is a credential in the URL, so the page
 * is never cached and never sent as a referrer.
 */
export function connectPageHeaders(options: { mode: ConnectPageMode; nonce?: string }): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': connectPageCsp(options),
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    ...(options.mode === 'standalone' ? { 'x-frame-options': 'DENY' } : {}),
  };
}
