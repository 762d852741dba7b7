// The bench scripts' PostgreSQL: a fresh database per run on the server SVC_BENCH_PG_URL names, and the CPU
// time of the backends serving one database (from /proc: the server runs on this machine).
import pg from 'pg';
import { cpuMs } from './lib.mjs';

export const adminUrl = process.env.SVC_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function withAdmin(fn) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** An empty database named after `label` and this process; `drop()` removes it, connections and all. */
export async function freshDatabase(label) {
  const name = `svc_bench_${label}_${process.pid}`.toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 63);
  await withAdmin(async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${name}`);
    await c.query(`CREATE DATABASE ${name}`);
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)) };
}

/** CPU ms so far of every PostgreSQL backend connected to the database `name`, by pid. */
async function backendsCpuMs(name) {
  const { rows } = await withAdmin((c) => c.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [name]));
  return new Map(rows.map((row) => [row.pid, cpuMs(row.pid)]));
}

/**
 * Starts counting the CPU of the PostgreSQL backends serving the database `name`; the returned function gives the
 * ms they used since (a backend that connected meanwhile counts from its start).
 */
export async function backendsCpuMeter(name) {
  const before = await backendsCpuMs(name);
  return async () => {
    let used = 0;
    for (const [pid, ms] of await backendsCpuMs(name)) used += ms - (before.get(pid) ?? 0);
    return used;
  };
}
