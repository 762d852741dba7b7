// How fast the send dispatcher drains a backlog, side by side in one run: for each build and store, a fresh
// store, one Business workspace (unspaced: interval 0) with one sim account, `wrk -c32` posting sends for 4 s
// from a process of its own, then the time until the send queue (svc_queue_depth{queue="send"}, read from
// /metrics, which renders at most once a second) is empty. SQLite's dispatcher keeps up with the load, so its
// backlog at stop is 0; PostgreSQL's is drained at the rate printed.
//
//   node bench/send-drain.mjs [BUILT_CHECKOUT ...]   # default: this checkout
//   BENCH_ROUNDS (2), BENCH_STORES (sqlite,postgres), SVC_BENCH_PG_URL. Loopback only, bounded in time.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { call, startServer } from './lib.mjs';
import { freshDatabase } from './pg-admin.mjs';
import { wrk } from './wrk.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const LOAD_SECONDS = 4;
const DRAIN_LIMIT_MS = 120_000;

const queuedSends = async (url) =>
  Number(/svc_queue_depth\{queue="send",state="queued"\} (\d+)/.exec(await (await request(`${url}/metrics`)).body.text())?.[1] ?? NaN);

async function freshStore(store, label) {
  if (store === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-drain-'));
    return { target: ['--data', dir], drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const database = await freshDatabase(`drain_${label}`);
  return { target: ['--database', database.url], drop: database.drop };
}

/** One build on one fresh store: sends accepted during the load, the backlog at its end, and the drain. */
async function drainOnce(build, store, label) {
  const svc = join(build, 'bin', 'svc.js');
  const fresh = await freshStore(store, label);
  const cli = (...args) => execFileSync(process.execPath, [svc, ...args, ...fresh.target], { encoding: 'utf8' });
  let server;
  try {
    const { workspace_id: ws, token } = JSON.parse(cli('admin', 'workspace', 'create', '--name', 'Drain', '--quota', '100000000', '--json'));
    cli('admin', 'workspace', 'update', String(ws), '--plan', 'business', '--send-interval', '0');
    server = await startServer(process.execPath, [svc, 'serve', '--port', '0', '--dev', ...fresh.target, '--rate-limit', '100000000', '--log-format', 'none']);
    await call(`${server.url}/sim/accounts/connect`, { method: 'POST', token, body: { phone: '+15550009999' } });
    const load = await wrk({
      url: `${server.url}/api/messages`, seconds: LOAD_SECONDS, connections: 32, body: JSON.stringify({ phone: '+14155550123', text: 'drain' }),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    });
    const started = performance.now();
    const backlog = await queuedSends(server.url);
    let left = backlog;
    while (left > 0 && performance.now() - started < DRAIN_LIMIT_MS) {
      await new Promise((r) => setTimeout(r, 100));
      left = await queuedSends(server.url);
    }
    const seconds = (performance.now() - started) / 1000;
    return { accepted_per_second: Math.round(load.total_requests / LOAD_SECONDS), backlog_at_stop: backlog, left, drain_seconds: Math.round(seconds * 10) / 10, drained_per_second: backlog === 0 ? null : Math.round(backlog / seconds) };
  } finally {
    await server?.stop();
    await fresh.drop();
  }
}

const builds = process.argv.length > 2 ? process.argv.slice(2).map((d) => resolve(d)) : [resolve(here, '..')];
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const stores = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',');
const results = [];
for (let round = 0; round < rounds; round += 1) {
  for (const store of stores) {
    for (const [i, build] of (round % 2 === 0 ? builds : [...builds].reverse()).entries()) {
      const result = await drainOnce(build, store, `r${round}b${i}`);
      results.push({ round, build, store, ...result });
      console.error(`round ${round} | ${store} | ${build} | accepted ${result.accepted_per_second}/s | backlog at stop ${result.backlog_at_stop} | drained ${result.drained_per_second ?? '-'} sends/s in ${result.drain_seconds} s${result.left > 0 ? `, ${result.left} left` : ''}`);
    }
  }
}
console.log(JSON.stringify(results, null, 2));
