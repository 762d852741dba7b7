// `npm run bench`: svc beside bare baselines, side by side in one run, on loopback only.
// Prints one JSON document on stdout and a Markdown table on stderr. Every load loop is bounded in time.
// BENCH_SECONDS (default 10), BENCH_CONNECTIONS (32), BENCH_MESSAGES (1000000) scale it down for a quick look.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, peakRssMiB, startServer } from './lib.mjs';
import { measureLatencyVsSize } from './million.mjs';
import { measureStartup } from './startup.mjs';
import { measureWebhooks } from './webhooks.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const svc = join(root, 'bin', 'svc.js');
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const messages = Number(process.env.BENCH_MESSAGES ?? 1_000_000);
const round = (n) => Math.round(n * 100) / 100;

/** POST /api/messages on `svc serve` (queue durable) against a bare node:http server answering the same request. */
async function postMessages() {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  try {
    const created = JSON.parse(
      execFileSync(process.execPath, [svc, 'admin', 'workspace', 'create', '--data', dataDir, '--name', 'Bench', '--quota', '100000000', '--json'], { encoding: 'utf8' }),
    );
    execFileSync(process.execPath, [svc, 'sim', 'connect', '--phone', '+15550009999', '--data', dataDir, '--token', created.token]);
    const body = JSON.stringify({ phone: '+14155550123', text: 'Hello from the bench' });
    const bare = await startServer(process.execPath, [join(root, 'bench', 'bare-server.mjs')]);
    const bareResult = await load({ url: `${bare.url}/api/messages`, seconds, connections, body, headers: { 'content-type': 'application/json' } });
    const bareRss = peakRssMiB(bare.pid);
    await bare.stop();
    const server = await startServer(process.execPath, [svc, 'serve', '--port', '0', '--data', dataDir, '--rate-limit', '100000000']);
    const svcResult = await load({
      url: `${server.url}/api/messages`, seconds, connections, body,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${created.token}` },
    });
    const svcRss = peakRssMiB(server.pid);
    await server.stop();
    return {
      bare_node_http: { ...bareResult, peak_rss_mib: bareRss },
      svc: { ...svcResult, peak_rss_mib: svcRss },
      ratio: round(svcResult.requests_per_second / bareResult.requests_per_second),
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// Each section measures one thing and renders its own table rows; BENCH_SECTIONS=a,b runs a subset.
const sections = {
  post_messages: {
    run: postMessages,
    rows: (p) => [
      ['POST /api/messages, bare node:http', `${p.bare_node_http.requests_per_second} req/s`, `p50 ${p.bare_node_http.latency_p50_ms} ms, p99 ${p.bare_node_http.latency_p99_ms} ms`, `peak RSS ${p.bare_node_http.peak_rss_mib} MiB`],
      ['POST /api/messages, svc serve (durable queue)', `${p.svc.requests_per_second} req/s (${p.ratio}x bare)`, `p50 ${p.svc.latency_p50_ms} ms, p99 ${p.svc.latency_p99_ms} ms`, `peak RSS ${p.svc.peak_rss_mib} MiB`],
    ],
  },
  latency_vs_size: {
    run: () => measureLatencyVsSize(svc, { seconds, connections, messages }),
    rows: (sizes) => Object.entries(sizes).map(([label, r]) => [`POST /api/messages, database ${label.replace('_', ' ')}`, `${r.requests_per_second} req/s`, `p50 ${r.latency_p50_ms} ms, p99 ${r.latency_p99_ms} ms`, '']),
  },
  webhooks: {
    run: () => measureWebhooks(svc, { seconds }),
    rows: (w) => [
      ['webhook POSTs, plain undici loop (16 at once)', `${w.plain_undici_posts_per_second} req/s`, '', ''],
      ['webhook deliveries, svc serve (durable outbox)', `${w.svc_deliveries_per_second} events/s (${w.ratio}x plain)`, '', ''],
      ['send accepted -> message:sent:new received', `${w.send_to_message_sent_new_ms.count} sends`, `p50 ${w.send_to_message_sent_new_ms.p50} ms, p99 ${w.send_to_message_sent_new_ms.p99} ms`, ''],
    ],
  },
  startup: {
    run: async () => measureStartup(svc),
    rows: (s) => [
      ['start-up: node -e 0', `${s.node_e_0.mean_ms} ms`, `p50 ${s.node_e_0.p50_ms} ms`, ''],
      ['start-up: svc --version', `${s.svc_version.mean_ms} ms`, `p50 ${s.svc_version.p50_ms} ms`, ''],
      ['start-up: svc send (local, --no-wait)', `${s.svc_send_local_no_wait.mean_ms} ms`, `p50 ${s.svc_send_local_no_wait.p50_ms} ms`, ''],
    ],
  },
};

const selected = (process.env.BENCH_SECTIONS ?? Object.keys(sections).join(',')).split(',').filter((name) => name in sections);
const results = { machine: { node: process.version, cpus: cpus().length }, settings: { seconds, connections, messages } };
for (const name of selected) results[name] = await sections[name].run();
console.log(JSON.stringify(results, null, 2));
const rows = selected.flatMap((name) => sections[name].rows(results[name]));
console.error(['| what | throughput / time | latency | memory |', '|---|---|---|---|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n'));
