// The webhook half of the stores comparison (bench/stores.mjs runs it after sends and incoming messages): on
// SQLite (--data) and on one PostgreSQL replica, alternating in every round, each on a fresh store,
//  - drain: a queue of deliveries (incoming messages behind a receiver that holds every request) drained once
//    the receiver opens, in deliveries/s;
//  - mixed load: the 400 req/s of bench/webhook-latency.mjs (after a warm-up of the same load), send and
//    incoming message to webhook p50/p99 and deliveries queued at stop;
// each with the CPU per delivery (drain) or per request (mixed) of the svc process and of the PostgreSQL
// backends serving it. The receiver and the loader run in processes of their own. Loopback only, bounded.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMs, median, startServer } from './lib.mjs';
import { backendsCpuMeter } from './pg-admin.mjs';
import { benchWorkspace, freshStore, mixedLoad } from './webhook-latency.mjs';
import { drainOnce } from './webhooks.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
let storesMade = 0;

/** CPU (ms) of the svc process and, on PostgreSQL, of its backends, from now until the returned function is called. */
async function cpuMeter(pid, pgName) {
  const svcBefore = cpuMs(pid);
  const backendsUsed = pgName === undefined ? undefined : await backendsCpuMeter(pgName);
  return async () => {
    const out = { svc: cpuMs(pid) - svcBefore };
    if (backendsUsed !== undefined) out.postgres = await backendsUsed();
    return out;
  };
}

const perUnit = (ms, units) => (ms === undefined ? undefined : Math.round((ms * 1000) / Math.max(1, units)));

/** One store: a drain of `events` deliveries, then the mixed load, on one server. */
async function runStore(svc, store, { events, seconds, rate, warmup }, round) {
  storesMade += 1;
  const fresh = await freshStore(store, `store_hooks_${storesMade}`);
  const receiver = await startServer(process.execPath, [join(here, 'receiver.mjs')]);
  let server;
  try {
    server = await startServer(process.execPath, [svc, 'serve', '--port', '0', '--dev', ...fresh.target, '--rate-limit', '100000000', '--log-format', 'none']);
    const one = await benchWorkspace(svc, fresh.target, server, 'Drain', '+15550007001', ['message:received:new'], receiver.url);
    const drainCpu = await cpuMeter(server.pid, fresh.pgName);
    const drained = await drainOnce(server, one, receiver, events, round, seconds);
    const drainUsed = await drainCpu();
    // The meter spans the queueing too: CPU per delivery is that of the incoming message and its delivery.
    if (warmup > 0) await mixedLoad(svc, fresh.target, server, receiver, { seconds: warmup, rate, phones: '+1555000820' });
    const mixedCpu = await cpuMeter(server.pid, fresh.pgName);
    const mixed = await mixedLoad(svc, fresh.target, server, receiver, { seconds, rate });
    const mixedUsed = await mixedCpu();
    return {
      drain_per_second: Math.round(drained),
      drain_cpu_us: { svc: perUnit(drainUsed.svc, events), postgres: perUnit(drainUsed.postgres, events) },
      mixed: {
        achieved_per_second: mixed.achieved_per_second,
        send_p50_ms: mixed.send_to_webhook_ms.p50, send_p99_ms: mixed.send_to_webhook_ms.p99,
        incoming_p50_ms: mixed.incoming_to_webhook_ms.p50, incoming_p99_ms: mixed.incoming_to_webhook_ms.p99,
        queued_at_stop: mixed.deliveries_queued_when_load_stopped,
        machine_busy_percent: mixed.machine_busy_percent,
        machine_tasks_waiting: mixed.machine_tasks_waiting,
        cpu_us: { svc: perUnit(mixedUsed.svc, mixed.requests), postgres: perUnit(mixedUsed.postgres, mixed.requests) },
      },
    };
  } finally {
    await server?.stop();
    await receiver.stop();
    await fresh.drop();
  }
}

/** Every build on both stores, `rounds` times, the stores' (and builds') order alternating from round to round. */
export async function measureStoreWebhooks(builds, { seconds = 10, rounds = 2, stores = ['sqlite', 'postgres'], log = () => undefined } = {}) {
  const options = {
    events: Number(process.env.BENCH_WEBHOOK_EVENTS ?? 5000),
    seconds,
    rate: Number(process.env.BENCH_MIXED_RATE ?? 400),
    warmup: Number(process.env.BENCH_WARMUP ?? 3),
  };
  const runs = {};
  for (let r = 0; r < rounds; r += 1) {
    const order = builds.flatMap((build) => stores.map((store) => ({ build, store })));
    for (const { build, store } of r % 2 === 0 ? order : order.reverse()) {
      const result = await runStore(build.svc, store, options, r);
      (runs[`${build.label}|${store}`] ??= []).push(result);
      log(`round ${r + 1} ${build.label}|${store}: drain ${result.drain_per_second}/s, mixed send p50 ${result.mixed.send_p50_ms} ms p99 ${result.mixed.send_p99_ms} ms, incoming p50 ${result.mixed.incoming_p50_ms} ms p99 ${result.mixed.incoming_p99_ms} ms, machine ${result.mixed.machine_busy_percent} % busy, ${result.mixed.machine_tasks_waiting} tasks waiting`);
    }
  }
  const summary = {};
  for (const [key, results] of Object.entries(runs)) {
    const pick = (f) => median(results.map(f));
    summary[key] = {
      rounds: results,
      drain_per_second: pick((x) => x.drain_per_second),
      drain_cpu_us: { svc: pick((x) => x.drain_cpu_us.svc), postgres: pick((x) => x.drain_cpu_us.postgres ?? 0) },
      mixed_send_p50_ms: pick((x) => x.mixed.send_p50_ms), mixed_send_p99_ms: pick((x) => x.mixed.send_p99_ms),
      mixed_incoming_p50_ms: pick((x) => x.mixed.incoming_p50_ms), mixed_incoming_p99_ms: pick((x) => x.mixed.incoming_p99_ms),
      mixed_queued_at_stop: Math.max(...results.map((x) => x.mixed.queued_at_stop)),
      mixed_machine_busy_percent: pick((x) => x.mixed.machine_busy_percent),
      mixed_machine_tasks_waiting: pick((x) => x.mixed.machine_tasks_waiting),
      mixed_cpu_us: { svc: pick((x) => x.mixed.cpu_us.svc), postgres: pick((x) => x.mixed.cpu_us.postgres ?? 0) },
    };
  }
  return summary;
}

/** Markdown rows for run-bench's table (what, throughput or latency, detail, CPU). */
export function storeWebhookRows(summary) {
  return Object.entries(summary).flatMap(([key, s]) => {
    const [label, store] = key.split('|');
    const name = `${label} ${store === 'sqlite' ? 'SQLite (--data)' : 'PostgreSQL, 1 replica'}`;
    const cpu = (c) => `svc ${c.svc} us${store === 'postgres' ? `, PostgreSQL ${c.postgres} us` : ''}`;
    return [
      [`${name}: webhook drain (a queued backlog)`, `${s.drain_per_second} deliveries/s`, `rounds: ${s.rounds.map((x) => x.drain_per_second).join(', ')}`, `${cpu(s.drain_cpu_us)} a delivery (with its incoming message)`],
      [`${name}: mixed load, send -> webhook`, `p50 ${s.mixed_send_p50_ms} ms, p99 ${s.mixed_send_p99_ms} ms`, `incoming -> webhook p50 ${s.mixed_incoming_p50_ms} ms, p99 ${s.mixed_incoming_p99_ms} ms; queued at stop ${s.mixed_queued_at_stop}; machine ${s.mixed_machine_busy_percent} % busy, ${s.mixed_machine_tasks_waiting} tasks waiting for a core`, `${cpu(s.mixed_cpu_us)} a request`],
    ];
  });
}
