/**
 * The event loop's lag figures of `GET /metrics` (`svc_nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds`,
 * prom-client's names), as lag. prom-client hands on Node's `monitorEventLoopDelay` histogram as it is, and Node
 * records there the whole time between two callbacks of its sampling timer, the interval included: an idle server
 * sampled every 100 ms showed p50, min and max of 0.100 s, which reads as a loop 100 ms late on a dashboard. Here
 * the interval is taken off every figure but the spread (a shift of every sample), so an idle server shows about 0
 * and a stall its own length.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { Gauge, type Registry } from 'prom-client';

const FIGURES = {
  min: 'The shortest event loop delay since the last scrape',
  max: 'The longest event loop delay since the last scrape',
  mean: 'The mean event loop delay since the last scrape',
  stddev: 'The standard deviation of the event loop delays since the last scrape',
  p50: 'The 50th percentile of the event loop delays since the last scrape',
  p90: 'The 90th percentile of the event loop delays since the last scrape',
  p99: 'The 99th percentile of the event loop delays since the last scrape',
} as const;
type Figure = keyof typeof FIGURES;

/** Each figure in seconds of lag, from a histogram of timer intervals `sampleMs` long when nothing delays them. */
function figures(histogram: IntervalHistogram, sampleMs: number): Record<Figure, number> {
  const lag = (ns: number) => Math.max(0, ns / 1e9 - sampleMs / 1000);
  return {
    min: lag(histogram.min),
    max: lag(histogram.max),
    mean: lag(histogram.mean),
    stddev: histogram.stddev / 1e9,
    p50: lag(histogram.percentile(50)),
    p90: lag(histogram.percentile(90)),
    p99: lag(histogram.percentile(99)),
  };
}

/**
 * Puts these figures in `registry` in place of prom-client's (registered there by `collectDefaultMetrics` with the
 * same `prefix`), sampling every `sampleMs`. Each scrape reports the samples since the previous one, as prom-client's
 * did; the first `sampleMs` after a scrape is not observed (Node's reset forgets when the last sample was taken).
 * Returns the function that stops the sampling (its timer would otherwise wake the process for good).
 */
export function registerEventLoopLag(registry: Registry, prefix: string, sampleMs: number): () => void {
  const histogram = monitorEventLoopDelay({ resolution: sampleMs });
  histogram.enable();
  const gauges = new Map<Figure, Gauge>();
  const collect = () => {
    // No sample since the last scrape (scrapes closer than `sampleMs`): the last figures stand.
    if (histogram.count === 0) return;
    for (const [figure, value] of Object.entries(figures(histogram, sampleMs))) gauges.get(figure as Figure)!.set(value);
    histogram.reset();
  };
  for (const [index, [figure, help]] of (Object.entries(FIGURES) as Array<[Figure, string]>).entries()) {
    const name = `${prefix}nodejs_eventloop_lag_${figure}_seconds`;
    registry.removeSingleMetric(name);
    // The first gauge's collect sets them all: a registry collects its metrics in the order they were registered.
    gauges.set(figure, new Gauge({ name, help: `${help}, in seconds`, registers: [registry], ...(index === 0 ? { collect } : {}) }));
  }
  return () => histogram.disable();
}
