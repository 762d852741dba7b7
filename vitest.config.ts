import { defineConfig } from 'vitest/config';
import { testKinds } from './test/support/test-kinds.js';

// Three projects: `unit` (one process, SQLite, fake clocks; `npm run test:unit`, a process per core), `integration`
// (processes, PostgreSQL, the browser, the built package; two files at a time) and `timed` (bounds on elapsed or
// CPU time; one file at a time). test/support/test-kinds.ts decides from what each file uses.
const kinds = testKinds(import.meta.dirname);

const shared = {
  testTimeout: 30_000,
  hookTimeout: 30_000,
  pool: 'forks' as const,
  globalSetup: ['test/support/global-setup.ts'],
};

export default defineConfig({
  test: {
    projects: [
      { test: { ...shared, name: 'unit', include: kinds.unit } },
      { test: { ...shared, name: 'integration', include: kinds.integration } },
      { test: { ...shared, name: 'timed', include: kinds.timed } },
    ],
  },
});
