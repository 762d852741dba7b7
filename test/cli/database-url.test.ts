/** `--database URL` (SVC_DATABASE_URL): every command that opens an engine opens it on that PostgreSQL database. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServeOptions } from '../../src/cli/io.js';
import { createClient } from '../../src/client/create-client.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { interrupts, runSvc, tempDir } from '../support/run-cli.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase('cli');
});
afterAll(async () => {
  await database.drop();
});

describe('svc --database URL', () => {
  it('admin workspace create, then workspace and send with its token: all on PostgreSQL, nothing in the data directory', async () => {
    const home = tempDir('svc-pg-home-');
    const env = { SVC_HOME: home };
    const created = await runSvc(['admin', 'workspace', 'create', '--database', database.url, '--name', 'On PG', '--json'], { env });
    expect(created.code, created.stderr).toBe(0);
    const { token } = created.json<{ workspace_id: number; token: string }>();

    const local = { env: { ...env, SVC_DATABASE_URL: database.url }, io: { createClient } };
    const workspace = await runSvc(['workspace', '--token', token, '--json'], local);
    expect(workspace.code, workspace.stderr).toBe(0);
    expect(workspace.json()).toMatchObject({ name: 'On PG' });
    const connected = await runSvc(['sim', 'connect', '--token', token, '--phone', '+15550002001', '--json'], local);
    expect(connected.code, connected.stderr).toBe(0);
    const sent = await runSvc(['send', '--token', token, '--phone', '+14155550123', '--text', 'Hi', '--no-wait', '--json'], local);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.json()).toMatchObject({ status: 'Pending' });

    // A token of this database means nothing to the SQLite database of the data directory.
    const sqlite = await runSvc(['workspace', '--token', token, '--json'], { env, io: { createClient } });
    expect(sqlite.code).toBe(4);
  });

  it('a refused token: the answer holds no database password', async () => {
    const url = new URL(database.url);
    url.username = 'postgres';
    url.password = 'not-the-password-0123';
    const run = await runSvc(['workspace', '--database', url.toString(), '--token', 'svc_wrong_token_0123456789', '--json'], { io: { createClient } });
    expect(run.code).toBe(4);
    expect(run.stdout + run.stderr).not.toContain('not-the-password-0123');
  });

  it('status: names the database (password masked) and the workspace a --workspace picks there', async () => {
    const url = new URL(database.url);
    url.password = 'status-secret-0123';
    const run = await runSvc(['status', '--database', url.toString(), '--workspace', '1', '--json'], { io: { createClient } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('status-secret-0123');
    expect(run.json()).toMatchObject({ target: 'local', data_dir: null, database: expect.stringContaining(':***@'), sources: { database: 'flag' }, workspace: { id: 1 } });
  });

  it('serve: --database reaches the server options', async () => {
    const signals = interrupts();
    let options: ServeOptions | undefined;
    const serve = async (opts: ServeOptions) => {
      options = opts;
      setTimeout(() => signals.fire('SIGTERM'), 5);
      return { url: 'http://127.0.0.1:43210', close: async () => undefined };
    };
    const run = await runSvc(['serve', '--port', '0', '--database', database.url], { io: { serve, onInterrupt: signals.onInterrupt } });
    expect(run.code, run.stderr).toBe(0);
    expect(options).toMatchObject({ databaseUrl: database.url });
    const plain = await runSvc(['serve', '--port', '0'], { io: { serve, onInterrupt: signals.onInterrupt } });
    expect(plain.code, plain.stderr).toBe(0);
    expect(options).not.toHaveProperty('databaseUrl');
  });
});
