/**
 * Vitest global setup: names this run's PostgreSQL databases (workers inherit the prefix through the
 * environment) and drops them all when the run ends, even those of test files that failed half-way.
 */
import { randomBytes } from 'node:crypto';
import { dropRunDatabases, postgresAvailable } from './postgres.js';

export default async function setup(): Promise<() => Promise<void>> {
  const prefix = `svc_test_${randomBytes(3).toString('hex')}`;
  process.env['SVC_TEST_PG_PREFIX'] = prefix;
  return async () => {
    if (await postgresAvailable()) await dropRunDatabases(prefix);
  };
}
