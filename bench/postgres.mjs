// POST /api/messages on the two stores, side by side in one run: svc serve on SQLite (--data), on PostgreSQL
// with one replica, and with two replicas on the same database behind wrk spreading its threads round robin;
// each once with every send in one workspace and once spread over 8 workspaces (tenants), since one
// workspace's sends take turns on its quota row on PostgreSQL.
// Each PostgreSQL run gets a fresh database on the machine's server (SVC_BENCH_PG_URL overrides), dropped after.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { peakRssMiB, startServer } from './lib.mjs';
import { freshDatabase } from './pg-admin.mjs';
import { prepareWorkspace } from './post-messages.mjs';
import { wrk } from './wrk.mjs';

const body = JSON.stringify({ phone: '+14155550123', text: 'Hello from the bench' });
const round = (n) => Math.round(n * 100) / 100;

const serveArgs = (svc, target) => [svc, 'serve', '--port', '0', ...target, '--rate-limit', '100000000'];

const TENANTS = 8;

/** `replicas` servers on `target`, loaded by wrk (one thread per replica) with sends of `tenants` workspaces. */
async function run(svc, target, { replicas, tenants }, load) {
  const tokens = Array.from({ length: tenants }, () => prepareWorkspace(svc, target).token);
  const servers = [];
  try {
    for (let i = 0; i < replicas; i += 1) servers.push(await startServer(process.execPath, serveArgs(svc, target)));
    const result = await wrk({
      url: `${servers[0].url}/api/messages`, seconds: load.seconds, connections: load.connections, body, threads: replicas,
      spreadOver: servers.map((s) => s.url),
      headers: { 'content-type': 'application/json' },
      rotate: { header: 'authorization', values: tokens.map((token) => `Bearer ${token}`) },
    });
    return { ...result, peak_rss_mib: servers.map((s) => peakRssMiB(s.pid)) };
  } finally {
    for (const server of servers) await server.stop();
  }
}

async function onSqlite(svc, shape, load) {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  try {
    return await run(svc, ['--data', dataDir], shape, load);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function onPostgres(svc, shape, load) {
  const database = await freshDatabase(`r${shape.replicas}t${shape.tenants}`);
  try {
    return await run(svc, ['--database', database.url], shape, load);
  } finally {
    await database.drop();
  }
}

/** Each shape on SQLite (one server), then on PostgreSQL with 1 and with 2 replicas; same wrk settings (section `replicas`). */
export async function measureReplicas(svc, load) {
  const results = {};
  for (const tenants of [1, TENANTS]) {
    const sqlite = await onSqlite(svc, { replicas: 1, tenants }, load);
    const postgres1 = await onPostgres(svc, { replicas: 1, tenants }, load);
    const postgres2 = await onPostgres(svc, { replicas: 2, tenants }, load);
    results[`${tenants}_workspace${tenants === 1 ? '' : 's'}`] = {
      sqlite,
      postgres_1_replica: postgres1,
      postgres_2_replicas: postgres2,
      postgres_1_vs_sqlite: round(postgres1.requests_per_second / sqlite.requests_per_second),
      postgres_2_vs_1: round(postgres2.requests_per_second / postgres1.requests_per_second),
    };
  }
  return results;
}
