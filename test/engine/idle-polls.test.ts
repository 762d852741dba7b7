// Polls that slow down while they find nothing (a PostgreSQL replica's, where NOTIFY carries every wake-up):
// the send dispatcher's loop (createWorkerRunner) and the webhook worker (DeliveryWorker.start), with real timers.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/engine/context.js';
import type { DeliveryOutbox } from '../../src/store/webhooks/delivery-outbox.js';
import { DeliveryWorker } from '../../src/webhooks/delivery-worker.js';
import { systemClock } from '../../src/wire/clock.js';
import { createWorkerRunner, type JobRunner } from '../../src/workers/worker-runner.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const gapsOf = (times: readonly number[]) => times.slice(1).map((t, i) => t - times[i]!);

/** A runner that never finds work; when each run started. */
function idleRunner(): JobRunner & { runs: number[] } {
  const runs: number[] = [];
  return { name: 'send', runs, runDue: async () => (runs.push(performance.now()), 0), nextDueAt: () => null };
}

/** A webhook worker whose outbox never has anything due; when each poll (and each woken claim) asked. */
function idleWorker() {
  const polls: number[] = [];
  const woken: number[] = [];
  const outbox = {
    claimDue: async () => (polls.push(performance.now()), []),
    claimQueued: async () => (woken.push(performance.now()), []),
    nextDueAt: async () => null,
  } as unknown as DeliveryOutbox;
  const worker = new DeliveryWorker({ outbox, clock: systemClock, owner: 'idle', send: async () => ({ ok: true, statusCode: 200, durationMs: 1, error: null }) });
  return { worker, polls, woken };
}

describe('polls that slow down while idle', () => {
  it('the worker loop waits twice as long after each look that found nothing, up to idlePollMs; without it, every pollMs', async () => {
    const slowing = idleRunner();
    const steady = idleRunner();
    const a = createWorkerRunner([slowing], systemClock, silentLogger, { pollMs: 20, idlePollMs: 640 });
    const b = createWorkerRunner([steady], systemClock, silentLogger, { pollMs: 20 });
    a.start();
    b.start();
    await sleep(1_500);
    await Promise.all([a.stop(), b.stop()]);
    // 20, 40, 80, 160, 320, 640: seven looks in 1.5 s, against one every 20 ms.
    expect(slowing.runs.length).toBeLessThanOrEqual(9);
    expect(steady.runs.length).toBeGreaterThan(30);
    expect(Math.max(...gapsOf(slowing.runs))).toBeGreaterThanOrEqual(600);
  });

  it('a wake-up brings the worker loop back to pollMs', async () => {
    // Finds work only when woken.
    const runs: number[] = [];
    const found: JobRunner = { name: 'send', runDue: async (woken) => (runs.push(performance.now()), woken === true ? 1 : 0), nextDueAt: () => null };
    const workers = createWorkerRunner([found], systemClock, silentLogger, { pollMs: 25, idlePollMs: 800 });
    workers.start();
    await sleep(1_000);
    const before = runs.length;
    const woke = performance.now();
    workers.wake('send');
    await sleep(300);
    await workers.stop();
    const after = runs.slice(before);
    // The woken run at once, then polls about 25 ms apart again (at least one more within 300 ms, not 800).
    expect(after.length).toBeGreaterThanOrEqual(3);
    expect(after[0]! - woke).toBeLessThan(200);
  });

  it('the webhook worker polls less and less while its outbox has nothing due, and a wake-up makes the next poll soon', async () => {
    const slowing = idleWorker();
    const steady = idleWorker();
    slowing.worker.start(20, 640);
    steady.worker.start(20);
    await sleep(1_500);
    expect(slowing.polls.length).toBeLessThanOrEqual(9);
    expect(steady.polls.length).toBeGreaterThan(30);
    expect(Math.max(...gapsOf(slowing.polls))).toBeGreaterThanOrEqual(600);
    const before = slowing.polls.length;
    const woke = performance.now();
    slowing.worker.wake();
    await sleep(300);
    await Promise.all([slowing.worker.stop(), steady.worker.stop()]);
    // The wake-up's claim at once; the poll after it 20 ms later, not up to 640 ms.
    expect(slowing.woken.some((t) => t >= woke && t - woke < 200)).toBe(true);
    const next = slowing.polls.slice(before);
    expect(next.length).toBeGreaterThanOrEqual(1);
    expect(next[0]! - woke).toBeLessThan(200);
  });
});
