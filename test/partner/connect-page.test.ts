import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  connectEventAt,
  connectEventChanged,
  formatConnectEvent,
  isFinalConnectEvent,
} from '../../src/partner/connect-events.js';
import { CONNECT_PAGE_CSS, CONNECT_PAGE_SCRIPT } from '../../src/partner/connect-page-assets.js';
import {
  connectPageCsp,
  connectPageHeaders,
  connectPageMode,
  renderConnectPage,
  renderQrSvg,
} from '../../src/partner/connect-page.js';
import { PAIRING_WINDOW_MS, generateLinkCode, pairingPayload } from '../../src/partner/pairing.js';

const code = generateLinkCode();
const now = PAIRING_WINDOW_MS * 90_000_000;
const waitingLink = { expires_at: now + 3_600_000, revoked_at: null, connected_account_id: null };

async function waitingPage(mode: 'standalone' | 'embedding', nonce?: string) {
  const payload = pairingPayload(code, now);
  return renderConnectPage({
    code,
    mode,
    state: 'waiting',
    initialQrSvg: await renderQrSvg(payload),
    initialPairingPayload: payload,
    eventsUrl: `/connect/${code}/events`,
    ...(nonce === undefined ? {} : { nonce }),
  });
}

describe('renderQrSvg', () => {
  it('renderQrSvg: an inline SVG with an accessible name and no external reference', async () => {
    const svg = await renderQrSvg('svc1.test');
    expect(svg).toMatch(/^<svg role="img" aria-label="[^"]+" xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toMatch(/<\/svg>$/);
    expect(svg).not.toMatch(/href|<image|<script/);
  });
});

describe('renderConnectPage', () => {
  it('renderConnectPage: standalone page holds the QR, the payload and the events URL, with no external asset', async () => {
    const html = await waitingPage('standalone');
    expect(html).toContain('data-mode="standalone"');
    expect(html).toContain('data-state="waiting"');
    expect(html).toContain(`data-payload="${pairingPayload(code, now)}"`);
    expect(html).toContain(`data-events-url="/connect/${code}/events"`);
    expect(html).toMatch(/<div id="svc-qr"[^>]*><svg /);
    // The one <link> is an empty data: icon, which spares the browser a /favicon.ico request.
    expect(html.match(/<link [^>]*>/g)).toEqual(['<link rel="icon" href="data:,">']);
    expect(html).not.toMatch(/<script src|<img |@import|url\(/);
    // The only absolute URL is the SVG namespace, which is an identifier, not a fetch.
    expect(html.match(/https?:\/\/[^"\s]+/g)).toEqual(['http://www.w3.org/2000/svg']);
  });

  it('renderConnectPage: embedding mode is compact and transparent and posts to the parent', async () => {
    const html = await waitingPage('embedding');
    expect(html).toContain('data-mode="embedding"');
    expect(CONNECT_PAGE_CSS).toContain('body[data-mode="embedding"] { background: transparent;');
    expect(CONNECT_PAGE_SCRIPT).toContain("window.parent.postMessage(message, '*')");
    for (const type of ['svc:qr', 'svc:connected', 'svc:expired']) expect(CONNECT_PAGE_SCRIPT).toContain(type);
  });

  it('renderConnectPage: connected, expired and revoked pages need no QR and open no event stream', () => {
    const base = { code, mode: 'standalone' as const, eventsUrl: '/e' };
    const connected = renderConnectPage({ ...base, state: 'connected', phone: '+15550001' });
    expect(connected).toContain('data-state="connected"');
    expect(connected).toContain('<strong id="svc-phone">+15550001</strong>');
    expect(renderConnectPage({ ...base, state: 'expired' })).toContain('data-state="expired"');
    expect(renderConnectPage({ ...base, state: 'revoked' })).toContain('data-state="revoked"');
    expect(() => renderConnectPage({ ...base, state: 'waiting' })).toThrow(/initialQrSvg/);
  });

  it('renderConnectPage: escapes what it interpolates', () => {
    const html = renderConnectPage({
      code,
      mode: 'standalone',
      state: 'connected',
      phone: '<img src=x onerror=alert(1)>',
      eventsUrl: '/e?a="b"&c',
      nonce: 'n"o',
    });
    expect(html).not.toContain('<img');
    expect(html).toContain('data-events-url="/e?a=&#34;b&#34;&#38;c"');
    expect(html).toContain('nonce="n&#34;o"');
  });

  it('connectPageMode: only display_mode=embedding embeds', () => {
    expect(connectPageMode('embedding')).toBe('embedding');
    expect(connectPageMode(undefined)).toBe('standalone');
    expect(connectPageMode(['embedding'])).toBe('standalone');
  });
});

describe('connectPageCsp', () => {
  const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

  it('connectPageCsp: allows exactly the inline assets by hash, and the nonce when given', async () => {
    const csp = connectPageCsp({ mode: 'standalone', nonce: 'abc123' });
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`script-src ${hash(CONNECT_PAGE_SCRIPT)} 'nonce-abc123'`);
    expect(csp).toContain(`style-src ${hash(CONNECT_PAGE_CSS)} 'nonce-abc123'`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    // The rendered page must carry the assets byte for byte, or the hashes would not match.
    const html = await waitingPage('standalone', 'abc123');
    expect(html).toContain(`<script nonce="abc123">${CONNECT_PAGE_SCRIPT}</script>`);
    expect(html).toContain(`<style nonce="abc123">${CONNECT_PAGE_CSS}</style>`);
  });

  it('connectPageHeaders: only the embedding page may be framed', () => {
    expect(connectPageHeaders({ mode: 'embedding' })['content-security-policy']).toContain('frame-ancestors *');
    expect(connectPageHeaders({ mode: 'embedding' })).not.toHaveProperty('x-frame-options');
    expect(connectPageHeaders({ mode: 'standalone' })).toMatchObject({
      'x-frame-options': 'DENY',
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
    });
  });
});

describe('connect events', () => {
  it('connectEventAt: a QR event while waiting, rotating with the pairing window', async () => {
    const first = await connectEventAt({ code, link: waitingLink, phone: null, now });
    expect(first).toMatchObject({ type: 'qr', payload: pairingPayload(code, now), rotates_at: now + PAIRING_WINDOW_MS });
    const same = await connectEventAt({ code, link: waitingLink, phone: null, now: now + 5_000 });
    const next = await connectEventAt({ code, link: waitingLink, phone: null, now: now + PAIRING_WINDOW_MS });
    expect(connectEventChanged(first, same)).toBe(false);
    expect(connectEventChanged(first, next)).toBe(true);
    expect(isFinalConnectEvent(first)).toBe(false);
  });

  it('connectEventAt: connected, expired and revoked are final', async () => {
    const connected = await connectEventAt({ code, link: { ...waitingLink, connected_account_id: 3 }, phone: '+1555', now });
    expect(connected).toEqual({ type: 'connected', phone: '+1555' });
    const expired = await connectEventAt({ code, link: waitingLink, phone: null, now: waitingLink.expires_at });
    expect(expired).toEqual({ type: 'expired' });
    const revoked = await connectEventAt({ code, link: { ...waitingLink, revoked_at: now }, phone: null, now });
    expect(revoked).toEqual({ type: 'revoked' });
    expect([connected, expired, revoked].every(isFinalConnectEvent)).toBe(true);
    expect(connectEventChanged(connected, connected)).toBe(false);
  });

  it('formatConnectEvent: one event line and one data line', () => {
    expect(formatConnectEvent({ type: 'connected', phone: '+1555' })).toBe(
      'event: connected\ndata: {"phone":"+1555"}\n\n',
    );
    expect(formatConnectEvent({ type: 'expired' })).toBe('event: expired\ndata: {}\n\n');
  });
});
