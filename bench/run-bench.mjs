// `npm run bench`: svc beside bare baselines, side by side in one run, on loopback only.
// HTTP load comes from wrk (apt), a process of its own. Prints one JSON document on stdout and a Markdown table on stderr. Every load loop is bounded in time.
// BENCH_SECONDS (default 10), BENCH_CONNECTIONS (32), BENCH_MESSAGES (1000000) scale it down for a quick look.
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measurePostMessages } from './post-messages.mjs';
import { measureLatencyVsSize } from './million.mjs';
import { measureStartup } from './startup.mjs';
import { measureReplicas } from './postgres.mjs';
import { measureStores, storeRows } from './stores.mjs';
import { measureStoreWebhooks, storeWebhookRows } from './stores-webhooks.mjs';
import { measureWebhooks } from './webhooks.mjs';
import { machineRow, probeMachine } from './machine-probe.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const svc = join(root, 'bin', 'svc.js');
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const messages = Number(process.env.BENCH_MESSAGES ?? 1_000_000);

// Each section measures one thing and renders its own table rows; BENCH_SECTIONS=a,b runs a subset.
const sections = {
  post_messages: {
    run: () => measurePostMessages(svc, { seconds, connections }),
    rows: (p) => [
      ['POST /api/messages, bare node:http', `${p.bare_node_http.requests_per_second} req/s`, `p50 ${p.bare_node_http.latency_p50_ms} ms, p99 ${p.bare_node_http.latency_p99_ms} ms`, `peak RSS ${p.bare_node_http.peak_rss_mib} MiB`],
      ['POST /api/messages, svc serve (durable queue)', `${p.svc.requests_per_second} req/s (${p.ratio}x bare)`, `p50 ${p.svc.latency_p50_ms} ms, p99 ${p.svc.latency_p99_ms} ms`, `peak RSS ${p.svc.peak_rss_mib} MiB`],
    ],
  },
  stores: {
    // Sends and incoming messages (wrk), then the webhook drain and the mixed load's latency, on both stores.
    run: async () => {
      const builds = [{ label: 'svc', svc }];
      const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
      return { requests: await measureStores(builds, { seconds, connections, rounds }), webhooks: await measureStoreWebhooks(builds, { rounds }) };
    },
    rows: (s) => [...storeRows(s.requests), ...storeWebhookRows(s.webhooks)],
  },
  replicas: {
    run: () => measureReplicas(svc, { seconds, connections }),
    rows: (all) =>
      Object.entries(all).flatMap(([shape, s]) => {
        const of = shape.replace('_', ' ');
        const row = (label, r, extra) => [`POST /api/messages, ${of}, ${label}`, `${r.requests_per_second} req/s${extra}`, `p50 ${r.latency_p50_ms} ms, p99 ${r.latency_p99_ms} ms`, `peak RSS ${[r.peak_rss_mib].flat().join(', ')} MiB`];
        return [
          row('svc serve on SQLite (--data)', s.sqlite, ''),
          row('PostgreSQL, 1 replica', s.postgres_1_replica, ` (${s.postgres_1_vs_sqlite}x SQLite)`),
          row('PostgreSQL, 2 replicas (wrk round robin)', s.postgres_2_replicas, ` (${s.postgres_2_vs_1}x 1 replica)`),
        ];
      }),
  },
  latency_vs_size: {
    run: () => measureLatencyVsSize(svc, { seconds, connections, messages }),
    rows: (sizes) => Object.entries(sizes).map(([label, r]) => [`POST /api/messages, database ${label.replace('_', ' ')}`, `${r.requests_per_second} req/s`, `p50 ${r.latency_p50_ms} ms, p99 ${r.latency_p99_ms} ms`, '']),
  },
  webhooks: {
    run: () => measureWebhooks(svc, { seconds }),
    rows: (w) => [
      [`webhook POSTs, plain undici loop (${w.in_flight} in flight, own process; median of ${w.rounds.length} rounds)`, `${w.plain_undici_posts_per_second} req/s`, `rounds: ${w.rounds.map((r) => r.plain_per_second).join(', ')}`, ''],
      [`webhook deliveries, svc serve draining its outbox (${w.in_flight} in flight; median of ${w.rounds.length} rounds)`, `${w.svc_deliveries_per_second} deliveries/s (${w.ratio}x plain, median ratio)`, `rounds: ${w.rounds.map((r) => `${r.svc_per_second} (${r.ratio}x)`).join(', ')}`, ''],
      [`mixed load ${w.mixed_load.achieved_per_second} req/s, 4 workspaces: send -> first webhook`, `${w.mixed_load.send_to_webhook_ms.count} of ${w.mixed_load.send_to_webhook_ms.of} arrived, ${w.mixed_load.deliveries_queued_when_load_stopped} deliveries queued at stop`, `p50 ${w.mixed_load.send_to_webhook_ms.p50} ms, p99 ${w.mixed_load.send_to_webhook_ms.p99} ms`, ''],
      [`mixed load: incoming message -> webhook`, `${w.mixed_load.incoming_to_webhook_ms.count} of ${w.mixed_load.incoming_to_webhook_ms.of} arrived`, `p50 ${w.mixed_load.incoming_to_webhook_ms.p50} ms, p99 ${w.mixed_load.incoming_to_webhook_ms.p99} ms`, ''],
    ],
  },
  startup: {
    run: async () => measureStartup(svc),
    rows: (s) => [
      ['start-up: node -e 0', `${s.node_e_0.mean_ms} ms`, `p50 ${s.node_e_0.p50_ms} ms`, ''],
      ['start-up: svc --version', `${s.svc_version.mean_ms} ms`, `p50 ${s.svc_version.p50_ms} ms (${(s.svc_version.p50_ms / s.node_e_0.p50_ms).toFixed(2)}x node -e 0)`, ''],
      ['start-up: svc send (local, --no-wait)', `${s.svc_send_local_no_wait.mean_ms} ms`, `p50 ${s.svc_send_local_no_wait.p50_ms} ms`, ''],
      ['startSandbox() of svc/testing, ready to serve', `${s.sandbox_start.warm_p50_ms} ms (first in a process ${s.sandbox_start.cold_ms} ms)`, '', ''],
    ],
  },
};

const selected = (process.env.BENCH_SECTIONS ?? Object.keys(sections).join(',')).split(',').filter((name) => name in sections);
// First, before any server warms the caches: how this machine treats code that has not run for a while.
const results = { machine: { node: process.version, cpus: cpus().length, cold_code: probeMachine() }, settings: { seconds, connections, messages } };
for (const name of selected) results[name] = await sections[name].run();
console.log(JSON.stringify(results, null, 2));
const rows = [machineRow(results.machine.cold_code), ...selected.flatMap((name) => sections[name].rows(results[name]))];
console.error(['| what | throughput / time | latency | memory |', '|---|---|---|---|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n'));
