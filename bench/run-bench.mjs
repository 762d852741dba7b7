// `npm run bench`: svc against bare baselines, side by side in one run, on loopback only.
// Prints one JSON document on stdout and a table on stderr. Every load loop is bounded in time.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, startServer } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const svc = join(root, 'bin', 'svc.js');
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);

async function messagesThroughput() {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  try {
    const created = JSON.parse(
      execFileSync(process.execPath, [svc, 'admin', 'workspace', 'create', '--data', dataDir, '--name', 'Bench', '--quota', '100000000', '--json'], { encoding: 'utf8' }),
    );
    execFileSync(process.execPath, [svc, 'sim', 'connect', '--phone', '+15550009999', '--data', dataDir, '--token', created.token, '--json']);
    const body = JSON.stringify({ phone: '+14155550123', text: 'Hello from the bench' });
    const bare = await startServer(process.execPath, [join(root, 'bench', 'bare-server.mjs')]);
    const bareResult = await load({ url: `${bare.url}/api/messages`, seconds, connections, body, headers: { 'content-type': 'application/json' } }).finally(bare.stop);
    const server = await startServer(process.execPath, [svc, 'serve', '--port', '0', '--data', dataDir, '--rate-limit', '100000000']);
    const svcResult = await load({
      url: `${server.url}/api/messages`, seconds, connections, body,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${created.token}` },
    }).finally(server.stop);
    return { bare_node_http: bareResult, svc: svcResult, ratio: round(svcResult.requests_per_second / bareResult.requests_per_second) };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const round = (n) => Math.round(n * 100) / 100;

const results = {
  machine: { node: process.version, cpus: (await import('node:os')).cpus().length },
  settings: { seconds, connections },
  post_messages: await messagesThroughput(),
};
console.log(JSON.stringify(results, null, 2));
const p = results.post_messages;
console.error(`\n| POST /api/messages | req/s | p50 ms | p99 ms |\n|---|---|---|---|`);
console.error(`| bare node:http | ${p.bare_node_http.requests_per_second} | ${p.bare_node_http.latency_p50_ms} | ${p.bare_node_http.latency_p99_ms} |`);
console.error(`| svc serve (durable queue) | ${p.svc.requests_per_second} | ${p.svc.latency_p50_ms} | ${p.svc.latency_p99_ms} |`);
console.error(`ratio svc / bare: ${p.ratio}`);
