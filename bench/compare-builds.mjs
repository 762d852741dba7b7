// POST /api/messages on `svc serve --data` for two or more built checkouts of svc, side by side: rounds
// alternate the order, each round also loads a bare node:http server, and every server is loaded by wrk from
// a process of its own. Besides req/s it reports the server's CPU time per request (all its threads, from
// /proc), which swings less than throughput when other work shares the 2 cores.
//
//   git worktree add ../svc-before <commit> && (cd ../svc-before && npm ci && npm run build)
//   node bench/compare-builds.mjs ../svc-before .        # BENCH_ROUNDS (6), BENCH_SECONDS (8)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from './lib.mjs';
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

/** CPU time (user + system, every thread) a process has used so far, in ms. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * (1000 / 100);
}

async function measureBuild(dir) {
  const svc = join(dir, 'bin', 'svc.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-compare-'));
  try {
    const created = prepareWorkspace(svc, ['--data', dataDir]);
    const server = await startServer(process.execPath, [svc, 'serve', '--port', '0', '--data', dataDir, '--rate-limit', '100000000']);
    const before = cpuMs(server.pid);
    const result = await loadSends(server, created.token, { seconds, connections });
    const cpuUsPerRequest = Math.round(((cpuMs(server.pid) - before) * 1000) / result.total_requests);
    await server.stop();
    return { requests_per_second: result.requests_per_second, cpu_us_per_request: cpuUsPerRequest, non_2xx: result.non_2xx };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
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
    const measured = await measureBuild(dir);
    results[dir].push(measured);
    console.error(`round ${round + 1}: ${dir} ${measured.requests_per_second} req/s, ${measured.cpu_us_per_request} us CPU/request`);
  }
}
const bareMedian = median(results.bare.map((r) => r.requests_per_second));
const summary = Object.fromEntries(
  Object.entries(results).map(([name, runs]) => {
    const rps = runs.map((r) => r.requests_per_second);
    const cpu = runs.map((r) => r.cpu_us_per_request).filter((v) => v !== undefined);
    return [name, { rounds_req_per_s: rps, median_req_per_s: median(rps), vs_bare: Math.round((median(rps) / bareMedian) * 100) / 100, ...(cpu.length > 0 ? { rounds_cpu_us_per_request: cpu, median_cpu_us_per_request: median(cpu) } : {}) }];
  }),
);
console.log(JSON.stringify(summary, null, 2));
