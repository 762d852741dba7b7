// Send latency under an unauthenticated /metrics flood, for two or more built checkouts side by side. Each
// round loads every build twice on a fresh SQLite data directory: sends alone, then sends while 8 connections
// scrape GET /metrics as fast as they are answered. The sends come from one wrk process and the scrapes from
// another, so neither loader shares the server's CPU time. Rounds alternate the order of the builds.
//
//   node bench/metrics-flood.mjs ../svc-before .        # BENCH_ROUNDS (4), BENCH_SECONDS (6)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startServer } from './lib.mjs';
import { prepareWorkspace } from './post-messages.mjs';
import { wrk } from './wrk.mjs';

const builds = process.argv.slice(2).map((dir) => resolve(dir));
if (builds.length < 2) {
  console.error('usage: node bench/metrics-flood.mjs BUILT_CHECKOUT_A BUILT_CHECKOUT_B [...]');
  process.exit(2);
}
const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
const seconds = Number(process.env.BENCH_SECONDS ?? 6);
// A light, steady send load: its latency shows what the scrapes cost, not what sends cost each other.
const sendConnections = 2;
const scrapeConnections = 8;
const body = JSON.stringify({ phone: '+14155550123', text: 'Hello from the bench' });

async function measure(dir, flood) {
  const svc = join(dir, 'bin', 'svc.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-metrics-flood-'));
  try {
    const created = prepareWorkspace(svc, ['--data', dataDir]);
    const server = await startServer(process.execPath, [svc, 'serve', '--port', '0', '--data', dataDir, '--rate-limit', '100000000', '--log-format', 'none']);
    try {
      const sends = wrk({
        url: `${server.url}/api/messages`, seconds, connections: sendConnections, body,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${created.token}` },
      });
      // The flood runs a second longer on both ends, so every send is measured under it.
      const scrapes = flood ? wrk({ url: `${server.url}/metrics`, method: 'GET', seconds: seconds + 1, connections: scrapeConnections }) : undefined;
      const [send, scrape] = await Promise.all([sends, scrapes]);
      return {
        send_p50_ms: send.latency_p50_ms,
        send_p99_ms: send.latency_p99_ms,
        sends_per_second: send.requests_per_second,
        ...(scrape === undefined ? {} : { scrapes_per_second: scrape.requests_per_second, scrape_p50_ms: scrape.latency_p50_ms }),
      };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const results = {};
for (let round = 0; round < rounds; round += 1) {
  const order = round % 2 === 0 ? builds : [...builds].reverse();
  for (const flood of [false, true]) {
    for (const dir of order) {
      const key = `${dir} ${flood ? 'flood' : 'quiet'}`;
      const result = await measure(dir, flood);
      (results[key] ??= []).push(result);
      console.error(`round ${round + 1} ${key}: ${JSON.stringify(result)}`);
    }
  }
}
const summary = Object.fromEntries(
  Object.entries(results).map(([key, runs]) => [
    key,
    Object.fromEntries(Object.keys(runs[0]).map((field) => [field, median(runs.map((r) => r[field]))])),
  ]),
);
console.log(JSON.stringify({ rounds, seconds, send_connections: sendConnections, scrape_connections: scrapeConnections, median: summary }, null, 2));
