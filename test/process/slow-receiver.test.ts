/**
 * Issue 5, "Faults": a receiver that answers slowly (4.5 s, inside the 5 s timeout) and one that never answers
 * hold up neither the deliveries to another subscription nor the send queue. Two bursts: the first fills the
 * hostile receivers' backlog, the second is measured while they are still busy with it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fireBurst, GOOD_EVENTS, messageStates, missingEvents, percentile, sentToArrival, setUpWorkspace } from '../support/fault-harness.js';
import { startGoodReceiver, startHostileReceiver, type GoodReceiver, type HostileReceiver } from '../support/fault-receivers.js';
import { pollUntil, ProcessSandbox } from '../support/svc-process.js';

const ACCOUNTS = ['+15550006001', '+15550006002'];
const BURST = 40;
/** Acceptance -> Sent, and Sent -> arrival at the good receiver, for every message. */
const BOUND_MS = 2000;

describe('process: slow and hanging webhook receivers', () => {
  let box: ProcessSandbox;
  const receivers: Array<GoodReceiver | HostileReceiver> = [];
  beforeEach(() => {
    box = new ProcessSandbox();
  });
  afterEach(async () => {
    await box.cleanup();
    for (const rx of receivers.splice(0)) await rx.close();
  });

  it('webhooks: a 4.5 s receiver and a hanging one delay neither another subscription nor the send queue', { timeout: 60_000 }, async () => {
    const good = await startGoodReceiver();
    const slow = await startHostileReceiver('slow', 4500);
    const hang = await startHostileReceiver('hang');
    receivers.push(good, slow, hang);
    const f = await setUpWorkspace(box, { quota: 1000, sendIntervalMs: 0, accounts: ACCOUNTS, good, hostileUrls: [slow.url, hang.url] });
    const { server } = f;

    const first = await fireBurst(server, f.token, { round: 1, size: BURST, accounts: ACCOUNTS, failures: false });
    await pollUntil('both hostile receivers busy', async () => (slow.inFlight > 0 && hang.inFlight > 0 ? true : undefined), {
      timeoutMs: 5_000,
      intervalMs: 20,
    });
    const measuredFrom = Date.now();
    const second = await fireBurst(server, f.token, { round: 2, size: BURST, accounts: ACCOUNTS, failures: false });
    for (const burst of [first, second]) expect(burst).toMatchObject({ lost: 0, refused: [] });
    expect(first.accepted.length + second.accepted.length).toBe(2 * BURST);

    await pollUntil(
      'every event of both bursts at the good receiver',
      async () => {
        const messages = messageStates(f.dataDir, f.ws);
        return messages.every((m) => m.status === 'Sent') && missingEvents(messages, good.deliveries).length === 0 ? true : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 50 },
    );
    // Still busy: the slow one has answered only part of the first burst, the hanging one nothing.
    const slowAnswered = slow.answered;
    expect(slowAnswered).toBeLessThan(BURST);
    expect(hang.answered).toBe(0);
    expect(hang.inFlight).toBeGreaterThan(0);

    const messages = messageStates(f.dataDir, f.ws);
    expect(messages).toHaveLength(2 * BURST);
    const queueDelays = messages.map((m) => m.sent_at! - m.created_at).sort((a, b) => a - b);
    expect(queueDelays.at(-1), 'acceptance -> Sent, worst message').toBeLessThan(BOUND_MS);
    const arrivals = sentToArrival(messages, good.deliveries, [{ start: 0, end: Infinity }], BOUND_MS);
    expect(arrivals).toHaveLength(2 * BURST);
    expect(arrivals.at(-1), 'Sent -> good receiver, worst message').toBeLessThan(BOUND_MS);
    // The second burst, by its uids, came while the hostile receivers were busy. (Counting messages created from
    // `measuredFrom` on counted one of the first burst too when its last batch committed in that millisecond.)
    const secondBurst = new Set(second.accepted);
    const measured = messages.filter((m) => secondBurst.has(m.uid));
    expect(measured.length).toBe(BURST);
    expect(measured.every((m) => m.created_at >= measuredFrom)).toBe(true);
    expect(good.deliveries.filter((d) => d.eventType === GOOD_EVENTS[1]).length).toBeGreaterThanOrEqual(2 * BURST);

    const stopped = await box.stop(server, 'SIGTERM');
    expect(stopped.code, stopped.stderr).toBe(0);
    console.info(
      `slow receivers: queue p99 ${percentile(queueDelays, 99)} ms, Sent -> good p50 ${percentile(arrivals, 50)} ms max ${arrivals.at(-1)} ms; ` +
        `slow receiver answered ${slowAnswered}/${2 * BURST} (max ${slow.maxInFlight} in flight), hanging one held ${hang.maxInFlight}`,
    );
  });
});
