/**
 * PostgreSQL's migration lock, held by another session (a replica migrating, or a stuck session holding
 * svc's advisory lock): a command says once on stderr that it waits for another process's migration, gives up
 * with a clear error after the bound (SVC_MIGRATION_WAIT_MS here, 60 s by default), goes on as soon as the
 * lock is released, and does not wait at all when the schema is already current.
 */
import { spawn } from 'node:child_process';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migratePostgres } from '../../src/store/postgres/pg-migrate.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { BIN, pollUntil, ProcessSandbox } from '../support/svc-process.js';

// The key of src/store/postgres/pg-migrate.ts: any session may take it, which is the point of this test.
const MIGRATION_LOCK_KEY = 7_310_492_001;
/** How many times svc said on stderr that it waits. */
const notices = (stderr: string): number => stderr.match(/^warning: waiting for another process's migration/gm)?.length ?? 0;

describe('process: the PostgreSQL migration lock held by another session', () => {
  let box: ProcessSandbox;
  let database: TestDatabase;
  let holder: pg.Client;
  let holderPid: number;

  beforeEach(async () => {
    box = new ProcessSandbox();
    database = await createTestDatabase('miglock');
    holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  });
  afterEach(async () => {
    await holder.end().catch(() => undefined);
    await box.cleanup();
    await database.drop();
  });

  const hold = () => holder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);

  it('a command on a database to migrate says it waits, once, then gives up after the bound with what to do', async () => {
    await hold();
    const started = Date.now();
    const run = await box.run(['chats', 'list', '--database', database.url], { env: { SVC_MIGRATION_WAIT_MS: '3000' }, timeoutMs: 15_000 });
    const ms = Date.now() - started;
    expect(run.code, run.stdout).toBe(1);
    expect(notices(run.stderr)).toBe(1);
    expect(run.stderr).toMatch(/gave up after 3 s waiting for another process's migration/i);
    expect(run.stderr).toContain(`session ${holderPid}`);
    expect(run.stderr).toMatch(/hint: .*pg_terminate_backend\(\d+\)/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(ms).toBeGreaterThanOrEqual(3000); // and it ended: the run is killed (and fails) after 15 s
  });

  it('the command goes on as soon as the lock is released', async () => {
    await hold();
    const child = spawn(process.execPath, [BIN, 'chats', 'list', '--database', database.url, '--json'], { env: box.env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    try {
      await pollUntil('the waiting notice', async () => (notices(stderr) > 0 ? true : undefined), { timeoutMs: 15_000, intervalMs: 50 });
      const released = Date.now();
      await holder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
      expect(await exited, stderr).toBe(0);
      expect(Date.now() - released).toBeLessThan(8000);
      expect(notices(stderr)).toBe(1);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('a command on a database already current does not wait for the lock at all', async () => {
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    await migratePostgres(pool);
    await pool.end();
    await hold();
    // Waiting would print the notice; waiting for ever (as before) gets the run killed after 15 s.
    const run = await box.run(['chats', 'list', '--database', database.url, '--json'], { timeoutMs: 15_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(notices(run.stderr)).toBe(0);
  });
});
