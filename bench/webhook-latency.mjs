// Webhook latency under the mixed load, on both stores and for one or more builds, side by side in one run:
// about 400 requests/s of sends, incoming messages and reads over 4 workspaces whose subscriptions all point at
// one healthy receiver (bench/receiver.mjs); p50/p99 from a send (or an incoming message) being posted to its
// first webhook arriving, and how many deliveries are still queued when the load stops.
//
//   node bench/webhook-latency.mjs [BUILT_CHECKOUT ...]   # default: this checkout
//   BENCH_SECONDS (10), BENCH_MIXED_RATE (400), BENCH_ROUNDS (1), BENCH_STORES (sqlite,postgres),
//   BENCH_WARMUP (0): seconds of the same load (on workspaces of its own) before the measured one. A fresh
//   PostgreSQL replica answers its first half-second of load in 100-200 ms (new backends plan and cache, code not
//   yet optimised), which alone makes the p99 of a 10 s run; a warm-up shows the replica as it runs after that.
// Rounds alternate the builds and the stores. PostgreSQL runs get a fresh database (SVC_BENCH_PG_URL names the
// server), dropped after. Loopback only, bounded in time.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { request } from 'undici';
import { call, cpuMs, machineBusy, percentile, startServer, waitFor } from './lib.mjs';
import { freshDatabase } from './pg-admin.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const run = promisify(execFile);
const round2 = (n) => Math.round(n * 100) / 100;

/** The server's /metrics text. */
const scrape = async (server) => (await request(`${server.url}/metrics`)).body.text();
/** Workspace deliveries pending, from /metrics text. */
const pendingDeliveries = (metrics) => Number(/svc_queue_depth\{queue="webhook_workspace",state="pending"\} (\d+)/.exec(metrics)?.[1] ?? NaN);

/** Webhook attempts that did not succeed (retried or failed), from /metrics text: a retry waits its delay queued. */
const unsuccessfulAttempts = (metrics) =>
  [...metrics.matchAll(/^svc_webhook_attempts_total\{outcome="([^"]+)"\} (\d+)$/gm)].reduce((n, m) => (m[1] === 'succeeded' ? n : n + Number(m[2])), 0);

/** A histogram of /metrics text: its cumulative count at each bucket bound (seconds), summed over its labels. */
function histogramCounts(metrics, name) {
  const byBound = new Map();
  for (const m of metrics.matchAll(new RegExp(`^${name}_bucket\\{[^}]*le="([^"]+)"[^}]*\\} (\\d+)$`, 'gm'))) {
    const bound = m[1] === '+Inf' ? Infinity : Number(m[1]);
    byBound.set(bound, (byBound.get(bound) ?? 0) + Number(m[2]));
  }
  return byBound;
}

/**
 * The bucket bound (ms) at which a histogram passes p % of what it counted between the scrapes `before` and
 * `after` (so a warm-up's observations stay out): a coarse percentile.
 */
function histogramMs(before, after, name, p) {
  const earlier = histogramCounts(before, name);
  const buckets = [...histogramCounts(after, name)].map(([bound, n]) => [bound, n - (earlier.get(bound) ?? 0)]).sort((a, b) => a[0] - b[0]);
  const total = buckets.at(-1)?.[1] ?? 0;
  const hit = buckets.find(([, n]) => n >= (p / 100) * total);
  return hit === undefined || total === 0 ? null : `<= ${hit[0] * 1000}`;
}


/** A workspace with a high quota, sends unspaced (Business plan), one connected account and subscriptions to `events`. */
export async function benchWorkspace(svc, target, server, name, phone, events, receiverUrl) {
  const cli = (...args) => execFileSync(process.execPath, [svc, ...args, ...target], { encoding: 'utf8' });
  const { workspace_id: ws, token } = JSON.parse(cli('admin', 'workspace', 'create', '--name', name, '--quota', '100000000', '--json'));
  cli('admin', 'workspace', 'update', String(ws), '--plan', 'business', '--send-interval', '0');
  await call(`${server.url}/sim/accounts/connect`, { method: 'POST', token, body: { phone } });
  for (const event_type of events) await call(`${server.url}/api/webhooks`, { method: 'POST', token, body: { event_type, url: `${receiverUrl}/hook` } });
  return { ws, token, phone };
}

/**
 * The mixed load against a running `svc serve` (on `target`, the flags naming its store) into `receiver`.
 * Returns the latencies and the deliveries still pending when the load stopped.
 */
export async function mixedLoad(svc, target, server, receiver, { seconds, rate, phones = '+1555000810' }) {
  const tenants = [];
  for (let i = 0; i < 4; i += 1) {
    tenants.push(await benchWorkspace(svc, target, server, `Mixed ${i}`, `${phones}${i}`, ['message:new', 'message:received:new', 'message:sent:new', 'chat:created'], receiver.url));
  }
  await call(`${receiver.url}/__reset`, { method: 'POST' });
  // The server renders /metrics at most once a second; the workspaces' set-up above took longer than that.
  const before = await scrape(server);
  const cpuBefore = cpuMs(server.pid);
  const busyDuringLoad = machineBusy();
  const loader = JSON.parse((await run(process.execPath, [join(here, 'mixed-loader.mjs'), server.url, tenants.map((t) => t.token).join(','), String(rate), String(seconds)],
    { env: { ...process.env, ACCOUNTS: tenants.map((t) => t.phone).join(',') }, maxBuffer: 64 * 1024 * 1024 })).stdout);
  const machine = busyDuringLoad();
  const queuedAtStop = pendingDeliveries(await scrape(server));
  const texts = Object.keys(loader.sent);
  const arrivals = await waitFor(async () => {
    const seen = await call(`${receiver.url}/__arrivals`);
    return texts.every((t) => t in seen) ? seen : undefined;
  }, performance.now() + 3 * seconds * 1000) ?? (await call(`${receiver.url}/__arrivals`));
  // Until every delivery queued by the load has arrived (or the wait ran out): CPU per request of the load.
  await waitFor(async () => (pendingDeliveries(await scrape(server)) === 0 ? true : undefined), performance.now() + 3 * seconds * 1000);
  const cpu = cpuMs(server.pid) - cpuBefore;
  const after = await scrape(server);
  const inServer = {
    // From the event's outbox row being written to its successful attempt finishing (the server's histogram, coarse).
    queued_to_recorded_ms: { p50: histogramMs(before, after, 'svc_webhook_delivery_latency_seconds', 50), p99: histogramMs(before, after, 'svc_webhook_delivery_latency_seconds', 99) },
    http_request_ms: { p50: histogramMs(before, after, 'svc_http_request_duration_seconds', 50), p99: histogramMs(before, after, 'svc_http_request_duration_seconds', 99) },
    // From a send's acceptance to the network taking it: the send queue's part of send -> webhook.
    accepted_to_sent_ms: { p50: histogramMs(before, after, 'svc_send_latency_seconds', 50), p99: histogramMs(before, after, 'svc_send_latency_seconds', 99) },
  };
  const delivered = (await call(`${receiver.url}/__stats`)).count;
  const latency = (prefix) => {
    const mine = texts.filter((t) => t.startsWith(prefix));
    const ms = mine.filter((t) => t in arrivals).map((t) => arrivals[t] - loader.sent[t]);
    // Where the time went: the request until its answer (its commit), and the answer until the webhook arrived.
    const answeredMs = mine.filter((t) => t in loader.answered).map((t) => loader.answered[t] - loader.sent[t]);
    const afterAnswer = mine.filter((t) => t in arrivals && t in loader.answered).map((t) => arrivals[t] - loader.answered[t]);
    return {
      count: ms.length, of: mine.length, p50: round2(percentile(ms, 50)), p99: round2(percentile(ms, 99)),
      answered_p50: round2(percentile(answeredMs, 50)), answered_p99: round2(percentile(answeredMs, 99)),
      answer_to_webhook_p50: round2(percentile(afterAnswer, 50)), answer_to_webhook_p99: round2(percentile(afterAnswer, 99)),
    };
  };
  return {
    requested_per_second: rate,
    achieved_per_second: loader.achieved_per_second,
    requests: loader.requests,
    non_2xx: loader.non_2xx,
    errors: loader.errors,
    deliveries_queued_when_load_stopped: queuedAtStop,
    deliveries: delivered,
    attempts_not_succeeded: unsuccessfulAttempts(after) - unsuccessfulAttempts(before),
    // How busy the machine's cores were while the load ran (the server, its database, the loader, the receiver),
    // and how many tasks waited for one on average.
    machine_busy_percent: machine.busyPercent,
    machine_tasks_waiting: machine.tasksWaiting,
    // The server's CPU (every thread) over the load and the drain after it, per request of the load.
    server_cpu_us_per_request: Math.round((cpu * 1000) / loader.requests),
    in_server: inServer,
    // A send's first webhook fires once the message is Sent (Business plan, no spacing); an incoming message's at once.
    send_to_webhook_ms: latency('lat-s'),
    incoming_to_webhook_ms: latency('lat-i'),
  };
}

/** A fresh store for one run: a data directory, or a PostgreSQL database (`pgName`) dropped after. */
export async function freshStore(store, label) {
  if (store === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-latency-'));
    return { target: ['--data', dir], drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const database = await freshDatabase(`latency_${label}`);
  return { target: ['--database', database.url], pgName: database.name, drop: database.drop };
}

/** One mixed-load run of the build in `dir` on a fresh `store`. */
export async function measureMixedLoad(dir, store, { seconds, rate, warmup = 0, label = 'x' }) {
  const svc = join(dir, 'bin', 'svc.js');
  const fresh = await freshStore(store, label);
  const receiver = await startServer(process.execPath, [join(here, 'receiver.mjs')]);
  let server;
  try {
    server = await startServer(process.execPath, [svc, 'serve', '--port', '0', '--dev', ...fresh.target, '--rate-limit', '100000000']);
    if (warmup > 0) await mixedLoad(svc, fresh.target, server, receiver, { seconds: warmup, rate, phones: '+1555000820' });
    return { warmup_seconds: warmup, ...(await mixedLoad(svc, fresh.target, server, receiver, { seconds, rate })) };
  } finally {
    await server?.stop();
    await receiver.stop();
    await fresh.drop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const builds = process.argv.length > 2 ? process.argv.slice(2).map((d) => resolve(d)) : [resolve(here, '..')];
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const rate = Number(process.env.BENCH_MIXED_RATE ?? 400);
  const warmup = Number(process.env.BENCH_WARMUP ?? 0);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
  const stores = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',');
  const results = [];
  for (let r = 0; r < rounds; r += 1) {
    const order = r % 2 === 0 ? builds : [...builds].reverse();
    for (const store of stores) {
      for (const [i, dir] of order.entries()) {
        const result = await measureMixedLoad(dir, store, { seconds, rate, warmup, label: `r${r}b${i}` });
        results.push({ round: r, build: dir, store, ...result });
        const s = result.send_to_webhook_ms;
        const n = result.incoming_to_webhook_ms;
        console.error(`| ${dir} | ${store} | ${result.achieved_per_second} req/s | send→hook p50 ${s.p50} p99 ${s.p99} (${s.count}/${s.of}) | incoming→hook p50 ${n.p50} p99 ${n.p99} (${n.count}/${n.of}) | queued at stop ${result.deliveries_queued_when_load_stopped} | ${result.deliveries} deliveries, ${result.attempts_not_succeeded} attempts not succeeded | machine ${result.machine_busy_percent} % busy, ${result.machine_tasks_waiting} tasks waiting for a core | server CPU ${result.server_cpu_us_per_request} µs/request | in server: queued→recorded p50 ${result.in_server.queued_to_recorded_ms.p50} p99 ${result.in_server.queued_to_recorded_ms.p99}, HTTP p50 ${result.in_server.http_request_ms.p50} p99 ${result.in_server.http_request_ms.p99}, accepted→sent p50 ${result.in_server.accepted_to_sent_ms.p50} p99 ${result.in_server.accepted_to_sent_ms.p99} |`);
      }
    }
  }
  console.log(JSON.stringify(results, null, 2));
}
