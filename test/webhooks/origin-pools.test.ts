import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { sendWebhook } from '../../src/webhooks/http-sender.js';
import { OriginPools } from '../../src/webhooks/origin-pools.js';
import { startReceiver, type Receiver } from '../support/webhook-helpers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

/** A receiver that holds requests while `gate.closed`, answering them when it opens. */
async function gatedReceiver(): Promise<Receiver & { open(): void; closeGate(): void; ports: Set<number> }> {
  let closed = false;
  const held: ServerResponse[] = [];
  const ports = new Set<number>();
  const r = await startReceiver((_req, res) => {
    ports.add(res.socket?.remotePort ?? 0);
    if (closed) held.push(res);
    else res.end('ok');
  });
  cleanups.push(() => r.close());
  return {
    ...r,
    ports,
    closeGate: () => void (closed = true),
    open: () => {
      closed = false;
      for (const res of held.splice(0)) if (!res.destroyed) res.end('ok');
    },
  };
}

describe('OriginPools', () => {
  it('keeps its connections after a burst of timed-out requests: 1,000 deliveries in 8 lanes reuse a few sockets', async () => {
    const receiver = await gatedReceiver();
    const pools = new OriginPools();
    cleanups.push(() => pools.close());
    let connects = 0;
    pools.on('connect', () => (connects += 1));
    const post = (timeoutMs: number) => sendWebhook({ url: `${receiver.url}/hook`, headers: {}, body: '{}', dispatcher: pools, timeoutMs });

    // Eight lanes whose first requests hang until they time out, their connections dropped as a slow receiver's
    // are; each lane goes straight on while those connections are still closing, and the gate opens later.
    receiver.closeGate();
    setTimeout(() => receiver.open(), 350);
    let next = 0;
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const first = await post(200);
        expect(first.error).toBe('timed out after 200 ms');
        const mine = [];
        while (next < 1000) {
          next += 1;
          mine.push(await post(5000));
        }
        return mine;
      }),
    );
    expect(outcomes.flat().filter((o) => !o.ok)).toEqual([]);
    // 8 sockets for the hung requests and 8 after them; undici's Agent was measured opening one per delivery.
    expect(connects).toBeLessThanOrEqual(24);
    expect(receiver.ports.size).toBeLessThanOrEqual(24);
  });

  it('passes connection events on and, once closed, refuses new requests', async () => {
    const receiver = await gatedReceiver();
    const pools = new OriginPools();
    const seen: string[] = [];
    pools.on('connect', (origin) => seen.push(`connect ${origin.origin}`));
    expect((await sendWebhook({ url: receiver.url, headers: {}, body: '{}', dispatcher: pools })).ok).toBe(true);
    expect(seen).toEqual([`connect ${receiver.url}`]);
    expect(pools.origins).toEqual([receiver.url]);
    await pools.close();
    const after = await sendWebhook({ url: receiver.url, headers: {}, body: '{}', dispatcher: pools });
    expect(after).toMatchObject({ ok: false, statusCode: null, error: 'the webhook connection pools are closed' });
  });

  it('closes a pool nobody used for the idle time, and makes a new one on demand', async () => {
    const receiver = await gatedReceiver();
    const pools = new OriginPools({}, 100);
    cleanups.push(() => pools.close());
    expect((await sendWebhook({ url: receiver.url, headers: {}, body: '{}', dispatcher: pools })).ok).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(pools.origins).toEqual([]);
    expect((await sendWebhook({ url: receiver.url, headers: {}, body: '{}', dispatcher: pools })).ok).toBe(true);
    expect(pools.origins).toEqual([receiver.url]);
  });
});
