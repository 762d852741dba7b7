/**
 * `svc_nodejs_eventloop_lag_*` report lag, not the sampling interval: prom-client's figures of an idle server were
 * all 0.100 s (Node records the whole time between two samples), so a dashboard showed a loop 100 ms late.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createServerMetrics } from '../../src/runtime/metrics.js';

/** The value of the unlabelled metric `name` in Prometheus text. */
function valueOf(text: string, name: string): number {
  const line = text.split('\n').find((each) => each.startsWith(`${name} `));
  if (line === undefined) throw new Error(`${name} is not in the metrics`);
  return Number(line.slice(name.length + 1));
}

/** Holds this thread, and so its event loop, for `ms` (Atomics.wait blocks like a long synchronous task). */
const block = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

describe('the event loop lag metrics', () => {
  it('read about 0 on an idle loop and the length of a stall, each scrape over the samples since the last', async () => {
    const metrics = createServerMetrics({ minRenderIntervalMs: 0 });
    await sleep(550);
    const idle = await metrics.render();
    // Each figure is once per metric name, with its HELP and TYPE lines.
    expect(idle.match(/^svc_nodejs_eventloop_lag_p50_seconds /gm)).toHaveLength(1);
    expect(idle).toContain('# TYPE svc_nodejs_eventloop_lag_max_seconds gauge');
    // prom-client's figures were 0.099-0.101 here; real lag on an idle loop is a few milliseconds at most.
    for (const figure of ['min', 'mean', 'p50']) expect(valueOf(idle, `svc_nodejs_eventloop_lag_${figure}_seconds`)).toBeLessThan(0.05);

    // After a scrape Node's histogram records nothing until its next sample (its reset forgets the last one's time).
    await sleep(150);
    block(300);
    await sleep(250);
    const stalled = await metrics.render();
    expect(valueOf(stalled, 'svc_nodejs_eventloop_lag_max_seconds')).toBeGreaterThan(0.2);
    expect(valueOf(stalled, 'svc_nodejs_eventloop_lag_max_seconds')).toBeLessThan(1);
    expect(valueOf(stalled, 'svc_nodejs_eventloop_lag_min_seconds')).toBeLessThan(0.05);

    // A scrape before the next sample keeps the last figures rather than an empty histogram's.
    const again = await metrics.render();
    expect(valueOf(again, 'svc_nodejs_eventloop_lag_max_seconds')).toBe(valueOf(stalled, 'svc_nodejs_eventloop_lag_max_seconds'));
    expect(valueOf(again, 'svc_nodejs_eventloop_lag_min_seconds')).toBe(valueOf(stalled, 'svc_nodejs_eventloop_lag_min_seconds'));
  });

  it('stop sampling when the metrics are closed: a stall after that is not seen', async () => {
    const metrics = createServerMetrics({ minRenderIntervalMs: 0 });
    await sleep(350);
    const before = await metrics.render();
    metrics.close();
    await sleep(150);
    block(300);
    await sleep(250);
    const after = await metrics.render();
    // Sampling on, the stall would be the new maximum (about 0.3 s).
    expect(valueOf(after, 'svc_nodejs_eventloop_lag_max_seconds')).toBe(valueOf(before, 'svc_nodejs_eventloop_lag_max_seconds'));
  });
});
