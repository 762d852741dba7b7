// The two stores side by side in one run: svc serve on SQLite (--data) and on PostgreSQL (one replica, fresh
// database), alternating in every round, for sends (POST /api/messages) and incoming messages (POST
// /sim/messages), with one workspace and with 8. wrk loads from a process of its own. Besides req/s each run
// reports CPU time per request (from /proc) of the svc process and of the PostgreSQL backends serving it,
// which swings less than throughput when other work shares the machine and feeds the capacity model.
//
//   node bench/stores.mjs [BUILT_CHECKOUT ...]     # several builds: each measured on both stores, same rounds
//   BENCH_ROUNDS (2), BENCH_SECONDS (8), BENCH_CONNECTIONS (32), SVC_BENCH_PG_URL,
//   BENCH_STORES (sqlite,postgres: which stores to run, e.g. postgres to compare builds on it alone),
//   BENCH_KINDS (sends,incoming,webhooks), BENCH_TENANTS (1,8): a subset of the shapes, to judge one change
//   quickly. `webhooks` is bench/stores-webhooks.mjs: a delivery drain and the mixed load's latency on each store
//   (BENCH_WEBHOOK_EVENTS, BENCH_MIXED_SECONDS, BENCH_MIXED_RATE, BENCH_WARMUP).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMs, median, startServer } from './lib.mjs';
import { backendsCpuMeter, freshDatabase } from './pg-admin.mjs';
import { measureStoreWebhooks, storeWebhookRows } from './stores-webhooks.mjs';
import { wrk } from './wrk.mjs';

const TENANTS = 8;
let databases = 0;

/** A workspace with a connected sim account, made with the CLI as an operator would. */
export function prepareWorkspace(svc, target, n) {
  const created = JSON.parse(
    execFileSync(process.execPath, [svc, 'admin', 'workspace', 'create', ...target, '--name', `Bench ${n}`, '--quota', '100000000', '--json'], { encoding: 'utf8' }),
  );
  const phone = `+1555${String(1_000_000 + ((Date.now() + n * 7919) % 9_000_000))}`;
  execFileSync(process.execPath, [svc, 'sim', 'connect', '--phone', phone, ...target, '--token', created.token]);
  return { token: created.token, phone };
}

const REQUESTS = {
  sends: { path: '/api/messages', body: () => JSON.stringify({ phone: '+14155550123', text: 'Hello from the bench' }) },
  incoming: { path: '/sim/messages', body: (w) => JSON.stringify({ from: '+4915112345678', to: w.phone, text: 'Hello from a contact' }) },
};

/** One server on `target`, loaded with `kind` requests spread over `tenants` workspaces. */
async function runOne(svc, target, kind, tenants, load, pgName) {
  const workspaces = Array.from({ length: tenants }, (_, n) => prepareWorkspace(svc, target, n));
  const server = await startServer(process.execPath, [svc, 'serve', '--port', '0', ...target, '--rate-limit', '100000000', '--log-format', 'none']);
  try {
    const request = REQUESTS[kind];
    const cpuBefore = cpuMs(server.pid);
    const backendsUsed = pgName === undefined ? undefined : await backendsCpuMeter(pgName);
    const result = await wrk({
      url: `${server.url}${request.path}`, seconds: load.seconds, connections: load.connections, body: request.body(workspaces[0]),
      headers: { 'content-type': 'application/json' },
      rotate: { header: 'authorization', values: workspaces.map((w) => `Bearer ${w.token}`), bodies: workspaces.map((w) => request.body(w)) },
    });
    const perRequest = (ms) => Math.round((ms * 1000) / Math.max(1, result.total_requests));
    const out = { ...result, svc_cpu_us_per_request: perRequest(cpuMs(server.pid) - cpuBefore) };
    if (backendsUsed !== undefined) out.postgres_cpu_us_per_request = perRequest(await backendsUsed());
    return out;
  } finally {
    await server.stop();
  }
}

async function onSqlite(svc, kind, tenants, load) {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  try {
    return await runOne(svc, ['--data', dataDir], kind, tenants, load);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function onPostgres(svc, kind, tenants, load) {
  databases += 1;
  const database = await freshDatabase(`stores_${databases}`);
  try {
    return await runOne(svc, ['--database', database.url], kind, tenants, load, database.name);
  } finally {
    await database.drop();
  }
}

const round2 = (n) => Math.round(n * 100) / 100;

/**
 * Every build × store × request kind × tenants shape, `rounds` times; within a round the stores (and builds)
 * alternate their order, so a load that other work puts on the machine falls on both alike.
 */
export async function measureStores(builds, { seconds, connections, rounds = 2, stores = ['sqlite', 'postgres'], kinds = ['sends', 'incoming'], shapes = [1, TENANTS], log = () => undefined }) {
  const runs = {};
  for (let r = 0; r < rounds; r += 1) {
    for (const kind of kinds) {
      for (const tenants of shapes) {
        const order = [];
        for (const build of builds) for (const store of stores) order.push({ build, store });
        for (const { build, store } of r % 2 === 0 ? order : order.reverse()) {
          const result = await (store === 'sqlite' ? onSqlite : onPostgres)(build.svc, kind, tenants, { seconds, connections });
          const key = `${build.label}|${kind}|${tenants}|${store}`;
          (runs[key] ??= []).push(result);
          log(`round ${r + 1} ${key}: ${result.requests_per_second} req/s, svc ${result.svc_cpu_us_per_request} us/req` +
            (result.postgres_cpu_us_per_request === undefined ? '' : `, postgres ${result.postgres_cpu_us_per_request} us/req`) +
            (result.non_2xx > 0 ? `, ${result.non_2xx} non-2xx` : ''));
        }
      }
    }
  }
  const summary = {};
  for (const [key, results] of Object.entries(runs)) {
    const [label, kind, tenants, store] = key.split('|');
    const shape = `${label} ${kind}, ${tenants} workspace${tenants === '1' ? '' : 's'}`;
    summary[shape] ??= {};
    summary[shape][store] = {
      rounds_req_per_s: results.map((x) => x.requests_per_second),
      median_req_per_s: median(results.map((x) => x.requests_per_second)),
      median_p50_ms: median(results.map((x) => x.latency_p50_ms)),
      median_p99_ms: median(results.map((x) => x.latency_p99_ms)),
      svc_cpu_us_per_request: median(results.map((x) => x.svc_cpu_us_per_request)),
      ...(store === 'postgres' ? { postgres_cpu_us_per_request: median(results.map((x) => x.postgres_cpu_us_per_request)) } : {}),
      non_2xx: results.reduce((sum, x) => sum + x.non_2xx, 0),
    };
  }
  for (const stores of Object.values(summary)) {
    if (stores.sqlite && stores.postgres) stores.postgres_vs_sqlite = round2(stores.postgres.median_req_per_s / stores.sqlite.median_req_per_s);
  }
  return summary;
}

/** Markdown rows for run-bench's table. */
export function storeRows(summary) {
  return Object.entries(summary).flatMap(([shape, s]) =>
    ['sqlite', 'postgres'].filter((store) => s[store]).map((store) => {
      const r = s[store];
      const cpu = `svc ${r.svc_cpu_us_per_request} us/req${r.postgres_cpu_us_per_request === undefined ? '' : `, PostgreSQL ${r.postgres_cpu_us_per_request} us/req`}`;
      return [`${shape}, ${store === 'sqlite' ? 'SQLite (--data)' : 'PostgreSQL, 1 replica'}`, `${r.median_req_per_s} req/s${store === 'postgres' && s.postgres_vs_sqlite !== undefined ? ` (${s.postgres_vs_sqlite}x SQLite)` : ''}`, `p50 ${r.median_p50_ms} ms, p99 ${r.median_p99_ms} ms`, cpu];
    }),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const dirs = process.argv.length > 2 ? process.argv.slice(2).map((dir) => resolve(dir)) : [root];
  const builds = dirs.map((dir, i) => ({ label: dirs.length === 1 ? 'svc' : `build${i + 1}`, svc: join(dir, 'bin', 'svc.js') }));
  if (builds.length > 1) builds.forEach((b, i) => console.error(`build${i + 1} = ${dirs[i]}`));
  const kinds = (process.env.BENCH_KINDS ?? 'sends,incoming,webhooks').split(',');
  const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
  const stores = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',');
  const log = (line) => console.error(line);
  const requestKinds = kinds.filter((kind) => kind in REQUESTS);
  const summary = requestKinds.length === 0 ? {} : await measureStores(builds, {
    seconds: Number(process.env.BENCH_SECONDS ?? 8),
    connections: Number(process.env.BENCH_CONNECTIONS ?? 32),
    rounds,
    stores,
    kinds: requestKinds,
    shapes: (process.env.BENCH_TENANTS ?? `1,${TENANTS}`).split(',').map(Number),
    log,
  });
  const webhooks = kinds.includes('webhooks') ? await measureStoreWebhooks(builds, { seconds: Number(process.env.BENCH_MIXED_SECONDS ?? 10), rounds, stores, log }) : {};
  console.log(JSON.stringify({ ...summary, webhooks }, null, 2));
  const rows = [...storeRows(summary), ...storeWebhookRows(webhooks)];
  console.error(['| what | throughput | latency | CPU |', '|---|---|---|---|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n'));
}
