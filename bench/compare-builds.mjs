// POST /api/messages on `svc serve --data` for two or more built checkouts of svc, side by side: rounds
// alternate the order, each round also loads a bare node:http server, and every server is loaded by wrk from
// a process of its own. Besides req/s it reports the server's CPU time per request (all its threads, from
// /proc), which swings less than throughput when other work shares the 2 cores.
//
//   git worktree add ../svc-before <commit> && (cd ../svc-before && npm ci && npm run build)
//   node bench/compare-builds.mjs ../svc-before .        # BENCH_ROUNDS (6), BENCH_SECONDS (8)
//   BENCH_STORE=postgres node bench/compare-builds.mjs ../svc-before .   # each server on a fresh PostgreSQL
//                                                        # database (SVC_BENCH_PG_URL), its backends' CPU counted too
// (bench/stores.mjs compares builds on both stores, for sends and incoming messages.)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMs, startServer } from './lib.mjs';
import { backendsCpuMeter, freshDatabase } from './pg-admin.mjs';
import { loadSends, prepareWorkspace } from './post-messages.mjs';
import { wrk } from './wrk.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const builds = process.argv.slice(2).map((dir) => resolve(dir));
if (builds.length < 2) {
  console.error('usage: node bench/compare-builds.mjs BUILT_CHECKOUT_A BUILT_CHECKOUT_B [...]');
  process.exit(2);
}
const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const connections = 32;
const body = JSON.stringify({ phone: '+14155550123', text: 'Hello from the bench' });

const onPostgres = process.env.BENCH_STORE === 'postgres';

async function measureBuild(dir, round) {
  const svc = join(dir, 'bin', 'svc.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-compare-'));
  const database = onPostgres ? await freshDatabase(`compare_${round}`) : undefined;
  try {
    const target = database !== undefined ? ['--database', database.url] : ['--data', dataDir];
    const created = prepareWorkspace(svc, target);
    const server = await startServer(process.execPath, [svc, 'serve', '--port', '0', ...target, '--rate-limit', '100000000', '--log-format', 'none']);
    const before = cpuMs(server.pid);
    const backendsUsed = database !== undefined ? await backendsCpuMeter(database.name) : undefined;
    const result = await loadSends(server, created.token, { seconds, connections });
    const perRequest = (ms) => Math.round((ms * 1000) / result.total_requests);
    const cpuUsPerRequest = perRequest(cpuMs(server.pid) - before);
    const postgres = backendsUsed === undefined ? {} : { postgres_cpu_us_per_request: perRequest(await backendsUsed()) };
    await server.stop();
    return { requests_per_second: result.requests_per_second, cpu_us_per_request: cpuUsPerRequest, ...postgres, non_2xx: result.non_2xx };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const results = Object.fromEntries([['bare', []], ...builds.map((dir) => [dir, []])]);
for (let round = 0; round < rounds; round += 1) {
  const bare = await startServer(process.execPath, [join(root, 'bench', 'bare-server.mjs')]);
  const baseline = await wrk({ url: `${bare.url}/api/messages`, seconds, connections, body, headers: { 'content-type': 'application/json' } });
  await bare.stop();
  results.bare.push({ requests_per_second: baseline.requests_per_second });
  for (const dir of round % 2 === 0 ? builds : [...builds].reverse()) {
    const measured = await measureBuild(dir, `${round}_${builds.indexOf(dir)}`);
    results[dir].push(measured);
    console.error(`round ${round + 1}: ${dir} ${measured.requests_per_second} req/s, ${measured.cpu_us_per_request} us CPU/request` +
      (measured.postgres_cpu_us_per_request === undefined ? '' : `, PostgreSQL ${measured.postgres_cpu_us_per_request} us/request`));
  }
}
const bareMedian = median(results.bare.map((r) => r.requests_per_second));
const summary = Object.fromEntries(
  Object.entries(results).map(([name, runs]) => {
    const rps = runs.map((r) => r.requests_per_second);
    const cpu = runs.map((r) => r.cpu_us_per_request).filter((v) => v !== undefined);
    const pgCpu = runs.map((r) => r.postgres_cpu_us_per_request).filter((v) => v !== undefined);
    return [name, {
      rounds_req_per_s: rps, median_req_per_s: median(rps), vs_bare: Math.round((median(rps) / bareMedian) * 100) / 100,
      ...(cpu.length > 0 ? { rounds_cpu_us_per_request: cpu, median_cpu_us_per_request: median(cpu) } : {}),
      ...(pgCpu.length > 0 ? { median_postgres_cpu_us_per_request: median(pgCpu) } : {}),
    }];
  }),
);
console.log(JSON.stringify(summary, null, 2));
