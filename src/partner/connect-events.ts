import { nextPairingRotationAt, pairingPayload, qrLinkState, type QrLinkFacts } from './pairing.js';
import { renderQrSvg } from './qr-svg.js';

/** One Server-Sent Event of `/connect/{code}/events`; the page's script understands exactly these. */
export type ConnectEvent =
  | { type: 'qr'; svg: string; payload: string; rotates_at: number }
  | { type: 'connected'; phone: string }
  | { type: 'expired' }
  | { type: 'revoked' };

/** How often the stream should send a comment line so idle proxies keep it open. */
export const CONNECT_EVENTS_HEARTBEAT_MS = 15_000;

/** The first bytes of a stream: the browser's reconnect delay, so a dropped stream resumes quickly. */
export const connectEventsPreamble = (retryMs = 2_000): string => `retry: ${retryMs}\n\n`;

/** A keep-alive comment (ignored by EventSource). */
export const connectEventsHeartbeat = (): string => ': keep-alive\n\n';

/** One event in the text/event-stream format; JSON.stringify never emits a newline, so one data line suffices. */
export function formatConnectEvent(event: ConnectEvent): string {
  const { type, ...data } = event;
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** True for an event after which the stream should end (the page closes its EventSource too). */
export const isFinalConnectEvent = (event: ConnectEvent): boolean => event.type !== 'qr';

/** What the page of a link should show at `now`, as the event that brings it there. */
export async function connectEventAt(input: {
  code: string;
  link: QrLinkFacts;
  phone: string | null;
  now: number;
}): Promise<ConnectEvent> {
  const state = qrLinkState(input.link, input.now);
  if (state === 'connected') return { type: 'connected', phone: input.phone ?? '' };
  if (state !== 'waiting') return { type: state };
  const payload = pairingPayload(input.code, input.now);
  return { type: 'qr', svg: await renderQrSvg(payload), payload, rotates_at: nextPairingRotationAt(input.now) };
}

/**
 * True when `next` differs from what the page already shows, so a stream that re-checks the link every
 * second (or on an engine event) sends only changes: a new payload, or a new state.
 */
export function connectEventChanged(previous: ConnectEvent | null, next: ConnectEvent): boolean {
  if (previous === null || previous.type !== next.type) return true;
  if (previous.type === 'qr' && next.type === 'qr') return previous.payload !== next.payload;
  return false;
}
