/**
 * PostgreSQL's planner statistics are kept abreast of a table that grows fast (src/store/maintenance-store.ts,
 * src/workers/planner-statistics.ts): a table holding several times the rows its statistics say is analyzed,
 * once; one within them is left alone. On a fresh database, plans made while the tables looked empty scanned
 * them whole at every call (a send backlog drained at 254-262 sends/s, 718-778 with the runner).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/runtime/create-engine.js';
import { openDatabase } from '../../src/store/database.js';
import { OUTGROWN_FACTOR, OUTGROWN_MIN_ROWS } from '../../src/store/maintenance-store.js';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';
import { FakeClock } from '../../src/wire/clock.js';
import { postgresForThisFile } from '../support/store-engine.js';
import { fixedRandom } from '../support/test-engine.js';

const pgUrl = postgresForThisFile('planner_stats');
let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: pgUrl() });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
});

/** Adds `n` send jobs and has this session's counts reach the statistics at once (PostgreSQL 15). */
async function addJobs(from: number, n: number): Promise<void> {
  await client.query('BEGIN');
  await client.query(`INSERT INTO jobs (kind, ref_id, queue_key, run_at, created_at)
    SELECT 'send', g, 1, 0, 0 FROM generate_series($1::int, $2::int) AS g`, [from, from + n - 1]);
  await client.query('SELECT pg_stat_force_next_flush()');
  await client.query('COMMIT');
}

const plannerRows = async (): Promise<number> =>
  Number((await client.query(`SELECT reltuples FROM pg_class WHERE oid = 'jobs'::regclass`)).rows[0].reltuples);

describe('planner statistics of tables that outgrow them', () => {
  it('PostgreSQL: a table grown past its statistics is analyzed once; one within them is not', async () => {
    const engine = createEngine({ database: new PgDatabase({ url: pgUrl(), poolSize: 2 }), clock: new FakeClock(), random: fixedRandom() });
    try {
      const refresh = () => engine.context.stores.maintenance.refreshOutgrownStatistics();
      expect(await plannerRows()).toBeLessThan(1); // never analyzed: -1
      await addJobs(1, OUTGROWN_MIN_ROWS - 1);
      expect(await refresh()).toEqual([]); // too few rows to matter
      await addJobs(OUTGROWN_MIN_ROWS, 4_001);
      expect(await refresh()).toEqual(['jobs']);
      expect(await plannerRows()).toBe(5_000);
      expect(await refresh()).toEqual([]);
      // Grown again, but within the factor: left to autovacuum.
      await addJobs(5_001, 5_000 * (OUTGROWN_FACTOR - 1) - 1);
      expect(await refresh()).toEqual([]);
      await addJobs(5_000 * OUTGROWN_FACTOR, 2);
      expect(await refresh()).toEqual(['jobs']);
    } finally {
      await engine.close();
    }
  });

  it('SQLite: nothing to do (without statistics its planner takes every table for a large one)', async () => {
    const engine = createEngine({ database: new SqliteDatabase(openDatabase(':memory:')), clock: new FakeClock(), random: fixedRandom() });
    try {
      expect(await engine.context.stores.maintenance.refreshOutgrownStatistics()).toEqual([]);
    } finally {
      await engine.close();
    }
  });
});
