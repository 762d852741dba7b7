import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/postgres.js';
import { pollUntil, ProcessSandbox, REPO_ROOT, type SvcServer } from '../support/svc-process.js';

// `svc serve` says which release serves which store, on both stores, without ever printing a password.

const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** The start-up lines, once the last of them (the Partner API address) is out. */
const startup = (server: SvcServer): Promise<string[]> =>
  pollUntil('the start-up lines', async () => (server.output().includes('Partner API') ? server.output().split('\n') : undefined), {
    timeoutMs: 5000,
    intervalMs: 20,
  });

async function stop(server: SvcServer): Promise<void> {
  server.child.kill('SIGTERM');
  expect((await server.exited).code).toBe(0);
}

describe('svc serve start-up lines', () => {
  let box: ProcessSandbox;
  beforeEach(() => {
    box = new ProcessSandbox();
  });
  afterEach(() => box.cleanup());

  it('SQLite: "listening on" first, then svc\'s version and the absolute path of the database file it opened', async () => {
    const dataDir = box.tempDir('svc-proc-startup-');
    const server = await box.serve(dataDir);
    const lines = await startup(server);
    expect(lines[0]).toBe(`listening on ${server.url}`);
    expect(lines).toContain(`  svc          ${VERSION}`);
    expect(lines).toContain(`  Store        SQLite ${join(dataDir, 'svc.db')}`);
    await stop(server);
  });

  it('PostgreSQL: the URL it opened, with the password masked and nowhere in the output', async () => {
    const database = await createTestDatabase('startup');
    try {
      // The machine's server trusts local connections, so the password is carried but not needed.
      const url = new URL(database.url);
      url.password = 'hunter2-not-shown';
      const server = await box.serve(box.tempDir('svc-proc-startup-'), { database: url.toString() });
      url.password = '***';
      expect(await startup(server)).toContain(`  Store        PostgreSQL ${url.toString()}`);
      expect(server.output()).not.toContain('hunter2-not-shown');
      await stop(server);
    } finally {
      await database.drop();
    }
  });
});
