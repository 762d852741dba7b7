// Checks the capacity model of docs/scaling-out.md#sizing on one machine: each svc replica and the PostgreSQL
// backends serving it are held to a CPU quota of their own (the cgroup v1 `cpu` controller, a CFS quota), as if
// each ran on a machine of its own with that many cores. The first run (1 replica) gives the CPU each request
// costs in a replica and in the backends; the model then predicts 1 and 2 replicas,
//   min(N × replica cores / replica CPU per send, database cores / database CPU per send),
// and the bench measures both; with 8 workspaces also 2 replicas that each take their own half of the workspaces
// (a balancer routing by token). wrk loads from its own process, outside the quotas.
//
//   node bench/capacity.mjs      # needs root and /sys/fs/cgroup/cpu (cgroup v1); says so and stops otherwise
//   BENCH_REPLICA_CORES (0.4), BENCH_DB_CORES (0.7), BENCH_SECONDS (8), BENCH_CONNECTIONS (32), SVC_BENCH_PG_URL
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { cpuMs, startServer } from './lib.mjs';
import { adminUrl, backendsCpuMeter, freshDatabase } from './pg-admin.mjs';
import { prepareWorkspace } from './stores.mjs';
import { wrk } from './wrk.mjs';

const CPU_CGROUPS = '/sys/fs/cgroup/cpu';
const PERIOD_US = 100_000;

/** A cgroup limited to `cores` CPUs; `add(pid)` moves a process (all its threads) into it. */
function quotaGroup(name, cores) {
  const dir = join(CPU_CGROUPS, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
  writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(Math.round(cores * PERIOD_US)));
  return {
    cores,
    add: (pid) => {
      try {
        writeFileSync(join(dir, 'cgroup.procs'), String(pid));
      } catch {
        // the process has already exited
      }
    },
    throttledMs: () => Number(/throttled_time (\d+)/.exec(readFileSync(join(dir, 'cpu.stat'), 'utf8'))?.[1] ?? 0) / 1e6,
    remove: () => {
      // Whatever is left (a backend still closing) goes back to the root group, so the group can go.
      for (const pid of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
        try {
          writeFileSync(join(CPU_CGROUPS, 'cgroup.procs'), pid);
        } catch {
          // exited meanwhile
        }
      }
      rmdirSync(dir);
    },
  };
}

/** Keeps every backend connected to `database` in `group` (the replicas' pools open connections as load grows). */
function holdBackends(database, group) {
  const client = new pg.Client({ connectionString: adminUrl });
  let timer;
  const sweep = async () => {
    const { rows } = await client.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
    for (const row of rows) group.add(row.pid);
  };
  return {
    start: async () => {
      await client.connect();
      await sweep();
      timer = setInterval(() => void sweep().catch(() => undefined), 100);
    },
    stop: async () => {
      clearInterval(timer);
      await client.end();
    },
  };
}

const serveArgs = (svc, url) => [svc, 'serve', '--port', '0', '--database', url, '--rate-limit', '100000000', '--log-format', 'none'];

/** `replicas` servers, each in its own quota group, loaded with sends of `tenants` workspaces. */
async function measure(svc, { replicas, tenants, routing = 'shared', replicaCores, dbCores, seconds, connections }, tag) {
  const database = await freshDatabase(`capacity_${tag}`);
  const groups = [];
  const servers = [];
  try {
    const dbGroup = quotaGroup(`svc-capacity-${process.pid}-${tag}-db`, dbCores);
    groups.push(dbGroup);
    const workspaces = Array.from({ length: tenants }, (_, n) => prepareWorkspace(svc, ['--database', database.url], n));
    for (let i = 0; i < replicas; i += 1) {
      const group = quotaGroup(`svc-capacity-${process.pid}-${tag}-r${i}`, replicaCores);
      groups.push(group);
      const server = await startServer(process.execPath, serveArgs(svc, database.url));
      group.add(server.pid);
      servers.push(server);
    }
    const backends = holdBackends(database.name, dbGroup);
    await backends.start();
    const body = JSON.stringify({ phone: '+14155550123', text: 'Hello from the capacity bench' });
    // `shared`: every replica takes every workspace's sends (a round-robin balancer); `split`: each replica
    // takes the sends of its own share of the workspaces (a balancer routing by token), one wrk per replica.
    const run = async (secs) => {
      if (routing === 'shared') {
        return wrk({
          url: `${servers[0].url}/api/messages`, seconds: secs, connections, body, threads: replicas,
          spreadOver: servers.map((s) => s.url), headers: { 'content-type': 'application/json' },
          rotate: { header: 'authorization', values: workspaces.map((w) => `Bearer ${w.token}`) },
        });
      }
      const parts = await Promise.all(servers.map((server, i) => wrk({
        url: `${server.url}/api/messages`, seconds: secs, connections: connections / replicas, body,
        headers: { 'content-type': 'application/json' },
        rotate: { header: 'authorization', values: workspaces.filter((_, n) => n % replicas === i).map((w) => `Bearer ${w.token}`) },
      })));
      const sum = (key) => parts.reduce((total, part) => total + part[key], 0);
      return { requests_per_second: sum('requests_per_second'), total_requests: sum('total_requests'), non_2xx: sum('non_2xx'), errors: sum('errors') };
    };
    try {
      await run(2); // warm-up: pools open, JIT settles
      const replicaBefore = servers.map((s) => cpuMs(s.pid));
      const backendsUsed = await backendsCpuMeter(database.name);
      const throttledBefore = groups.map((g) => g.throttledMs());
      const result = await run(seconds);
      const replicaMs = servers.reduce((sum, s, i) => sum + cpuMs(s.pid) - replicaBefore[i], 0);
      const backendMs = await backendsUsed();
      const perRequest = (ms) => Math.round((ms * 1000) / Math.max(1, result.total_requests));
      return {
        replicas, tenants, routing, requests_per_second: result.requests_per_second, non_2xx: result.non_2xx, errors: result.errors,
        replica_cpu_us_per_send: perRequest(replicaMs), // all replicas together
        database_cpu_us_per_send: perRequest(backendMs),
        // Share of the run each quota held its group back: near 100 % is the bottleneck.
        database_throttled_pct: Math.round((100 * (groups[0].throttledMs() - throttledBefore[0])) / (seconds * 1000)),
        replicas_throttled_pct: groups.slice(1).map((g, i) => Math.round((100 * (g.throttledMs() - throttledBefore[i + 1])) / (seconds * 1000))),
      };
    } finally {
      await backends.stop();
    }
  } finally {
    for (const server of servers) await server.stop();
    await database.drop();
    for (const group of groups) {
      try {
        group.remove();
      } catch (error) {
        console.error(`could not remove a cgroup: ${error.message}`);
      }
    }
  }
}

/** The model: sends a second of N replicas with the costs measured on one. */
export function predict({ replicas, replicaCores, dbCores, replicaUs, databaseUs }) {
  const replicaSide = (replicas * replicaCores * 1e6) / replicaUs;
  const databaseSide = (dbCores * 1e6) / databaseUs;
  return { sends_per_second: Math.round(Math.min(replicaSide, databaseSide)), bound_by: replicaSide <= databaseSide ? 'replicas' : 'database' };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    readFileSync(join(CPU_CGROUPS, 'cpu.cfs_quota_us'));
  } catch {
    console.error(`bench/capacity.mjs needs the cgroup v1 cpu controller at ${CPU_CGROUPS} and root; not found here.`);
    process.exit(2);
  }
  const svc = fileURLToPath(new URL('../bin/svc.js', import.meta.url));
  const settings = {
    replicaCores: Number(process.env.BENCH_REPLICA_CORES ?? 0.4),
    dbCores: Number(process.env.BENCH_DB_CORES ?? 0.7),
    seconds: Number(process.env.BENCH_SECONDS ?? 8),
    connections: Number(process.env.BENCH_CONNECTIONS ?? 32),
  };
  const rows = [];
  for (const tenants of [8, 1]) {
    const one = await measure(svc, { ...settings, replicas: 1, tenants }, `t${tenants}r1`);
    const two = await measure(svc, { ...settings, replicas: 2, tenants }, `t${tenants}r2`);
    // With several workspaces, also each replica taking its own half of them.
    const split = tenants > 1 ? [await measure(svc, { ...settings, replicas: 2, tenants, routing: 'split' }, `t${tenants}r2s`)] : [];
    const costs = { replicaCores: settings.replicaCores, dbCores: settings.dbCores, replicaUs: one.replica_cpu_us_per_send, databaseUs: one.database_cpu_us_per_send };
    for (const measured of [one, two, ...split]) {
      const model = predict({ ...costs, replicas: measured.replicas });
      rows.push({ ...measured, predicted: model.sends_per_second, bound_by: model.bound_by, measured_vs_predicted: Math.round((100 * measured.requests_per_second) / model.sends_per_second) / 100 });
      console.error(`${tenants} workspace(s), ${measured.replicas} replica(s), ${measured.routing}: ${measured.requests_per_second} sends/s, model ${model.sends_per_second} (${model.bound_by})`);
    }
  }
  console.log(JSON.stringify({ settings, rows }, null, 2));
  console.error([
    `| workspaces | replicas (${settings.replicaCores} core each; database ${settings.dbCores}) | routing | model sends/s | measured | measured / model | CPU µs per send: replicas / database | throttled: replicas / database |`,
    '|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.tenants} | ${r.replicas} | ${r.routing} | ${r.predicted} (${r.bound_by}) | ${r.requests_per_second} | ${r.measured_vs_predicted} | ${r.replica_cpu_us_per_send} / ${r.database_cpu_us_per_send} | ${r.replicas_throttled_pct.join(', ')} % / ${r.database_throttled_pct} % |`),
  ].join('\n'));
}
