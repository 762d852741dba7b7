import { createHash } from 'node:crypto';

// The stylesheet and script are constants, identical for every link and both modes (the body's data attributes
// carry what differs), so the CSP can allow them by hash and needs no 'unsafe-inline'.

/**
 * Inline stylesheet of the connect page and of the other pages people see (`GET /`, a link that does not work):
 * `body[data-mode]` picks standalone (a card) or compact iframe layout.
 */
export const CONNECT_PAGE_CSS = `
:root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; color: #1f2328; }
body[data-mode="standalone"] { min-height: 100vh; display: flex; align-items: center; justify-content: center;
  background: #f3f5f7; padding: 24px; }
body[data-mode="embedding"] { background: transparent; padding: 8px; }
main { text-align: center; }
body[data-mode="standalone"] main { background: #fff; border-radius: 16px; padding: 32px;
  box-shadow: 0 4px 24px rgba(0, 0, 0, 0.08); max-width: 440px; width: 100%; }
body[data-mode="embedding"] main { max-width: 320px; margin: 0 auto; }
h1 { font-size: 1.35rem; margin: 0 0 20px; }
body[data-mode="embedding"][data-state] h1, body[data-mode="embedding"] .steps { display: none; }
.state { display: none; }
body[data-state="waiting"] .state-waiting, body[data-state="connected"] .state-connected,
body[data-state="expired"] .state-expired, body[data-state="revoked"] .state-revoked { display: block; }
.qr { background: #fff; padding: 12px; border-radius: 12px; margin: 0 auto; width: 100%; max-width: 280px; }
body[data-mode="embedding"] .qr { max-width: 240px; padding: 8px; }
.qr svg { display: block; width: 100%; height: auto; }
.steps { text-align: left; margin: 20px 0 0; padding-left: 1.4em; line-height: 1.6; }
.note { color: #59636e; font-size: 0.85rem; margin: 12px 0 0; }
.big { font-size: 1.25rem; font-weight: 600; margin: 8px 0; }
.state-connected .big { color: #1a7f37; }
.state-expired .big, .state-revoked .big { color: #9a6700; }
.offline { display: none; color: #cf222e; font-size: 0.85rem; margin: 12px 0 0; }
body[data-offline="true"][data-state="waiting"] .offline { display: block; }
.warn { color: #9a6700; }
body[data-mode="standalone"] main.wide { max-width: 600px; }
a { color: #0969da; }
.links { list-style: none; text-align: left; margin: 12px 0 0; padding: 0; }
.links li { padding: 10px 0; border-top: 1px solid #eaeef2; }
.links .label { display: block; color: #59636e; font-size: 0.85rem; margin-bottom: 2px; }
.links a { word-break: break-all; }
`;

/**
 * Inline script: follows the server's Server-Sent Events, swaps the QR, switches state without a reload,
 * and in embedding mode reports each step to the parent window with postMessage.
 */
export const CONNECT_PAGE_SCRIPT = `
(function () {
  'use strict';
  var body = document.body;
  var embedded = body.getAttribute('data-mode') === 'embedding';
  var qrBox = document.getElementById('svc-qr');
  var phoneEl = document.getElementById('svc-phone');
  // '*' because the partner's origin is not known here; the messages carry nothing the link does not already give.
  function tell(message) {
    if (embedded && window.parent && window.parent !== window) window.parent.postMessage(message, '*');
  }
  function setState(state) { body.setAttribute('data-state', state); }
  function showQr(svg, payload) {
    // Each new stream (first open, reconnect) starts with the current code; the parent hears only changes.
    if (payload === qrBox.getAttribute('data-payload') && body.getAttribute('data-state') === 'waiting') return;
    if (svg) qrBox.innerHTML = svg;
    qrBox.setAttribute('data-payload', payload);
    setState('waiting');
    tell({ type: 'svc:qr', data: payload });
  }
  function showConnected(phone) {
    phoneEl.textContent = phone;
    setState('connected');
    tell({ type: 'svc:connected', phone: phone });
  }
  function showEnded(state) {
    setState(state);
    tell({ type: 'svc:expired', reason: state });
  }
  var initial = body.getAttribute('data-state');
  if (initial === 'connected') return tell({ type: 'svc:connected', phone: phoneEl.textContent });
  if (initial !== 'waiting') return tell({ type: 'svc:expired', reason: initial });
  tell({ type: 'svc:qr', data: qrBox.getAttribute('data-payload') });
  if (typeof EventSource !== 'function') return body.setAttribute('data-offline', 'true');

  var source = new EventSource(body.getAttribute('data-events-url'));
  function read(event) { try { return JSON.parse(event.data); } catch (e) { return {}; } }
  // A finished link has nothing more to say: closing stops EventSource from reconnecting forever.
  function end() { source.close(); }
  source.addEventListener('open', function () { body.removeAttribute('data-offline'); });
  source.addEventListener('error', function () {
    if (source.readyState === EventSource.CLOSED) body.setAttribute('data-offline', 'true');
  });
  source.addEventListener('qr', function (event) { var data = read(event); showQr(data.svg, data.payload); });
  source.addEventListener('connected', function (event) { showConnected(read(event).phone || ''); end(); });
  source.addEventListener('expired', function () { showEnded('expired'); end(); });
  source.addEventListener('revoked', function () { showEnded('revoked'); end(); });
})();
`;

const cspHash = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** CSP source expression allowing exactly the inline stylesheet. */
export const CONNECT_PAGE_STYLE_HASH = cspHash(CONNECT_PAGE_CSS);
/** CSP source expression allowing exactly the inline script. */
export const CONNECT_PAGE_SCRIPT_HASH = cspHash(CONNECT_PAGE_SCRIPT);
