import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { startConnectFeed, type ConnectFeedSnapshot, type Repeat } from '../../src/partner/connect-feed.js';
import { PAIRING_WINDOW_MS, generateLinkCode, pairingPayload } from '../../src/partner/pairing.js';

/** Collects what the feed writes, and lets the test fire its timers by hand. */
function harness(initial: ConnectFeedSnapshot) {
  const clock = new FakeClock(PAIRING_WINDOW_MS * 88_000_000);
  const code = generateLinkCode();
  const timers = new Map<number, () => void>();
  const repeat: Repeat = (fn, ms) => {
    timers.set(ms, fn);
    return () => timers.delete(ms);
  };
  const chunks: string[] = [];
  let ended = 0;
  let snapshot = initial;
  const feed = startConnectFeed({
    code,
    clock,
    readLink: () => snapshot,
    send: (chunk) => chunks.push(chunk),
    end: () => ended++,
    pollMs: 1_000,
    repeat,
  });
  const events = () => chunks.filter((chunk) => chunk.startsWith('event: ')).map((chunk) => chunk.split('\n')[0]);
  return {
    clock,
    code,
    feed,
    chunks,
    events,
    timers,
    ended: () => ended,
    setSnapshot: (next: ConnectFeedSnapshot) => (snapshot = next),
  };
}

const waiting = (now: number) => ({
  link: { expires_at: now + 3_600_000, revoked_at: null, connected_account_id: null },
  phone: null,
});

describe('startConnectFeed', () => {
  it('startConnectFeed: sends the preamble and the current QR, then only rotations', async () => {
    const h = harness(waiting(PAIRING_WINDOW_MS * 88_000_000));
    await h.feed.check();
    expect(h.chunks[0]).toMatch(/^retry: \d+\n\n$/);
    expect(h.events()).toEqual(['event: qr']);
    expect(h.chunks[1]).toContain(`"payload":"${pairingPayload(h.code, h.clock.now())}"`);

    h.clock.advance(5_000);
    await h.feed.check();
    expect(h.events()).toHaveLength(1);

    h.clock.advance(PAIRING_WINDOW_MS);
    await h.feed.check();
    expect(h.events()).toEqual(['event: qr', 'event: qr']);
    expect(h.chunks.at(-1)).toContain(`"payload":"${pairingPayload(h.code, h.clock.now())}"`);
    h.feed.stop();
  });

  it('startConnectFeed: a connection ends the stream and stops the timers', async () => {
    const h = harness(waiting(PAIRING_WINDOW_MS * 88_000_000));
    await h.feed.check();
    h.setSnapshot({ link: { ...waiting(0).link, expires_at: h.clock.now() + 1, connected_account_id: 9 }, phone: '+15550001' });
    await h.feed.check();
    expect(h.events()).toEqual(['event: qr', 'event: connected']);
    expect(h.chunks.at(-1)).toBe('event: connected\ndata: {"phone":"+15550001"}\n\n');
    expect(h.ended()).toBe(1);
    expect(h.timers.size).toBe(0);
    await h.feed.check();
    expect(h.chunks.filter((chunk) => chunk.startsWith('event: '))).toHaveLength(2);
  });

  it('startConnectFeed: expiry on the clock ends the stream; a deleted link reads as revoked', async () => {
    const h = harness(waiting(PAIRING_WINDOW_MS * 88_000_000));
    await h.feed.check();
    h.clock.advance(3_600_000);
    await h.feed.check();
    expect(h.events()).toEqual(['event: qr', 'event: expired']);
    expect(h.ended()).toBe(1);

    const gone = harness(null);
    await gone.feed.check();
    expect(gone.events()).toEqual(['event: revoked']);
  });

  it('startConnectFeed: the heartbeat timer writes a comment line', async () => {
    const h = harness(waiting(PAIRING_WINDOW_MS * 88_000_000));
    await h.feed.check();
    h.timers.get(15_000)?.();
    expect(h.chunks.at(-1)).toBe(': keep-alive\n\n');
    h.feed.stop();
    expect(h.timers.size).toBe(0);
  });
});
