/**
 * Issue 2, "Shown by": many concurrent sends at a small quota never overspend, whether they arrive as
 * concurrent HTTP requests to one server or from several processes writing the same database at once.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  api,
  ledgerByMessage,
  openDatabaseReadOnly,
  ProcessSandbox,
  quotaAndLedgerSum,
  type SvcRun,
} from '../support/svc-process.js';

interface WorkspaceDto {
  messaging_quota: { total: number; used: number; remaining: number };
}

/** The ledger after the server stopped: one debit per accepted message, no restores, quota_used = ledger sum. */
function expectLedger(dataDir: string, ws: number, accepted: number): void {
  const db = openDatabaseReadOnly(dataDir);
  try {
    const rows = ledgerByMessage(db, ws);
    expect(rows).toHaveLength(accepted);
    for (const row of rows) expect(row, row.uid).toMatchObject({ credits: 1, debits: 1, debit_sum: 1, restores: 0 });
    const { used, ledgerSum } = quotaAndLedgerSum(db, ws);
    expect(used).toBe(accepted);
    expect(ledgerSum).toBe(accepted);
  } finally {
    db.close();
  }
}

describe('process: concurrent sends at a small quota', () => {
  let box: ProcessSandbox;
  beforeEach(() => {
    box = new ProcessSandbox();
  });
  afterEach(async () => {
    await box.cleanup();
  });

  it('HTTP: 60 concurrent POST /api/messages at quota 10 -> exactly 10 accepted, 50 quota_exceeded', { timeout: 60_000 }, async () => {
    const dataDir = box.tempDir('svc-proc-quota-http-');
    const { workspace_id: ws, token } = await box.createWorkspace(dataDir, 'Quota 10', 10);
    const server = await box.serve(dataDir);
    expect((await api(server, token, 'POST', '/sim/accounts/connect', { phone: '+15550002001' })).status).toBe(200);

    const responses = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        api<{ status: string; error_code?: string; message?: string }>(server, token, 'POST', '/api/messages', {
          phone: `+1415555${String(2000 + i)}`,
          text: `burst ${i}`,
        }),
      ),
    );
    const accepted = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 403);
    expect(accepted).toHaveLength(10);
    expect(refused).toHaveLength(50);
    for (const r of refused) expect(r.body).toMatchObject({ status: 'error', error_code: 'quota_exceeded' });

    const workspace = await api<{ data: WorkspaceDto }>(server, token, 'GET', '/api/workspace');
    expect(workspace.body.data.messaging_quota).toMatchObject({ total: 10, used: 10, remaining: 0 });

    const stopped = await box.stop(server, 'SIGTERM');
    expect(stopped.code, stopped.stderr).toBe(0);
    expectLedger(dataDir, ws, 10);
  });

  it('processes: 12 concurrent `svc send --no-wait` (local engine and through the server) at quota 5 -> exactly 5 succeed', { timeout: 90_000 }, async () => {
    const dataDir = box.tempDir('svc-proc-quota-cli-');
    const { workspace_id: ws, token } = await box.createWorkspace(dataDir, 'Quota 5', 5);
    await box.ok(['sim', 'connect', '--phone', '+15550003001', '--data', dataDir, '--token', token]);
    const server = await box.serve(dataDir);

    // Every child writes the same database: 8 open the embedded engine on it, 4 go through the server.
    const runs: SvcRun[] = await Promise.all(
      Array.from({ length: 12 }, (_, i) => {
        const target = i % 3 === 2 ? ['--base-url', `${server.url}/api`] : ['--data', dataDir];
        return box.run(['send', '--no-wait', '--phone', `+1415555${String(3000 + i)}`, '--text', `process ${i}`, ...target, '--token', token], {
          timeoutMs: 60_000,
        });
      }),
    );
    const ok = runs.filter((r) => r.code === 0);
    const failed = runs.filter((r) => r.code !== 0);
    expect(ok, runs.map((r) => `${r.code}: ${r.stderr}`).join('\n')).toHaveLength(5);
    expect(failed).toHaveLength(7);
    for (const r of failed) {
      expect(r.code, r.stderr).toBe(1);
      // Through the server, a send can also be refused as busy: svc serve waits 20 ms at most for the write
      // lock the 8 local engines take turns on, then answers 503, having written nothing (by design; a loaded
      // machine makes it happen). Either way, exactly 5 sends got the 5 credits.
      expect(r.stderr).toMatch(/quota exhausted|database is busy: another process holds its write lock; nothing was written/);
      expect(r.stdout).toBe('');
    }
    for (const r of ok) expect(r.stdout).toMatch(/Pending|Sending|Sent/);

    const workspace = await api<{ data: WorkspaceDto }>(server, token, 'GET', '/api/workspace');
    expect(workspace.body.data.messaging_quota).toMatchObject({ total: 5, used: 5, remaining: 0 });

    const stopped = await box.stop(server, 'SIGTERM');
    expect(stopped.code, stopped.stderr).toBe(0);
    expectLedger(dataDir, ws, 5);
  });
});
