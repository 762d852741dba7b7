/**
 * PostgreSQL for tests: the server of this machine (127.0.0.1:5432, trust auth; `SVC_TEST_PG_URL` overrides),
 * where every test file makes its own database and drops it afterwards. Names carry the run's prefix so
 * `dropRunDatabases` (the global teardown) removes whatever a killed run left behind.
 */
import pg from 'pg';

export const PG_ADMIN_URL = process.env['SVC_TEST_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** All databases of this test run start with this; vitest's global setup exports it to every worker. */
export const runPrefix = (): string => process.env['SVC_TEST_PG_PREFIX'] ?? `svc_test_${process.pid}`;

let counter = 0;

/** A database URL on the same server as `PG_ADMIN_URL`. */
export const databaseUrl = (name: string): string => {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
};

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** True when the test server answers (tests that need it fail loudly otherwise; CI starts it). */
export async function postgresAvailable(): Promise<boolean> {
  try {
    await admin(async (client) => client.query('SELECT 1'));
    return true;
  } catch {
    return false;
  }
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** Creates an empty database for one test file (or one test). */
export async function createTestDatabase(label = 'db'): Promise<TestDatabase> {
  counter += 1;
  const name = `${runPrefix()}_${process.pid}_${label.replace(/[^a-z0-9]/gi, '').toLowerCase()}_${counter}`.slice(0, 63);
  await admin((client) => client.query(`CREATE DATABASE "${name}"`));
  return {
    name,
    url: databaseUrl(name),
    drop: () => dropDatabase(name),
  };
}

async function dropDatabase(name: string): Promise<void> {
  await admin(async (client) => {
    // Replicas killed by a test may leave sessions behind; they must not keep the database alive.
    await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
    await client.query(`DROP DATABASE IF EXISTS "${name}"`);
  });
}

/** Drops every database this run made (the global teardown; also cleans up after a killed run). */
export async function dropRunDatabases(prefix = runPrefix()): Promise<number> {
  const names = await admin(async (client) => {
    const result = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${prefix}%`]);
    return result.rows.map((row) => row.datname);
  });
  for (const name of names) await dropDatabase(name);
  return names.length;
}
