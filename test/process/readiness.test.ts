/**
 * Health and load on PostgreSQL replicas. `/healthz` is liveness (200 while the process serves, during a
 * database outage too); `/readyz` is readiness (200 while the database answers, 503 `unavailable` while it
 * does not). A request that waits for a pooled connection is not an outage: three replicas with a pool of 2
 * each, hit by 300 concurrent sends to one workspace whose quota runs out, answer 200, 403 quota_exceeded
 * or 429 busy with Retry-After, never 503, and the quota holds exactly.
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres.js';
import { pollUntil, ProcessSandbox, type SvcServer } from '../support/svc-process.js';

const get = async (server: SvcServer, path: string) => {
  const res = await fetch(`${server.url}${path}`, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as { status: string; error_code?: string } };
};

describe('process: /healthz and /readyz', () => {
  let box: ProcessSandbox;
  let server: PrivatePostgres | undefined;
  beforeEach(() => {
    box = new ProcessSandbox();
  });
  afterEach(async () => {
    await box.cleanup();
    server?.destroy();
  });

  it('SQLite: both 200', async () => {
    const svc = await box.serve(box.tempDir('svc-proc-ready-'));
    expect(await get(svc, '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await get(svc, '/readyz')).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('PostgreSQL stopped: /readyz 503 unavailable, /healthz still 200; both 200 again after the restart', { timeout: 90_000 }, async () => {
    server = await startPrivatePostgres();
    const svc = await box.serve(box.tempDir('svc-proc-ready-'), { database: await server.createDatabase('svc') });
    expect(await get(svc, '/readyz')).toMatchObject({ status: 200, body: { status: 'ok' } });

    server.stop();
    const down = await get(svc, '/readyz');
    expect(down).toMatchObject({ status: 503, body: { status: 'error', error_code: 'unavailable' } });
    expect(down.retryAfter).not.toBeNull();
    expect(await get(svc, '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });

    server.start();
    await pollUntil('/readyz 200 after the restart', async () => ((await get(svc, '/readyz')).status === 200 ? true : undefined), { timeoutMs: 15_000, intervalMs: 200 });
    expect(await get(svc, '/healthz')).toMatchObject({ status: 200 });
  });
});

describe('process: replicas whose pool is exhausted answer busy, not unavailable', () => {
  let box: ProcessSandbox;
  let database: TestDatabase;
  beforeEach(async () => {
    box = new ProcessSandbox();
    database = await createTestDatabase('poolbusy');
  });
  afterEach(async () => {
    await box.cleanup();
    await database.drop();
  });

  it('3 replicas with a pool of 2, 300 concurrent sends to one workspace of quota 100: no 503, exactly 100 accepted', { timeout: 120_000 }, async () => {
    const target = ['--database', database.url];
    const created = JSON.parse((await box.ok(['admin', 'workspace', 'create', ...target, '--name', 'Busy', '--quota', '100', '--json'])).stdout) as { token: string };
    await box.ok(['sim', 'connect', '--phone', '+15550009001', ...target, '--token', created.token]);
    const dataDir = box.tempDir('svc-proc-busy-');
    const start = () => box.serve(dataDir, { database: database.url, env: { SVC_DATABASE_POOL_SIZE: '2' } });
    const replicas = [await start(), await start(), await start()];

    const answers = await Promise.all(
      Array.from({ length: 300 }, async (_, i) => {
        const res = await fetch(`${replicas[i % 3]!.url}/api/messages`, {
          method: 'POST',
          headers: { authorization: `Bearer ${created.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ phone: `+1415557${String(i).padStart(4, '0')}`, text: `busy ${i}` }),
          signal: AbortSignal.timeout(30_000),
        });
        const body = (await res.json()) as { error_code?: string };
        return { status: res.status, code: body.error_code, retryAfter: res.headers.get('retry-after') };
      }),
    );
    const counts = new Map<string, number>();
    for (const a of answers) counts.set(`${a.status} ${a.code ?? ''}`.trim(), (counts.get(`${a.status} ${a.code ?? ''}`.trim()) ?? 0) + 1);
    console.log(`pool of 2 x 3 replicas, 300 sends: ${[...counts].map(([k, n]) => `${n} x ${k}`).join(', ')}`);
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(100);
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect([`403 quota_exceeded`, `429 rate_limit_exceeded`]).toContain(`${a.status} ${a.code}`);
      if (a.status === 429) expect(a.retryAfter).not.toBeNull();
    }
    const check = new pg.Client({ connectionString: database.url });
    await check.connect();
    try {
      const row = (await check.query('SELECT quota_used, (SELECT SUM(delta) FROM credit_ledger) AS ledger FROM workspaces WHERE quota_total = 100')).rows[0];
      expect(Number(row.quota_used)).toBe(100);
      expect(Number(row.ledger)).toBe(100);
    } finally {
      await check.end();
    }
  });
});
