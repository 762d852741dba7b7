/**
 * Issue 2, "Shown by": kill a server process mid-queue; after a restart every accepted message still reaches
 * Sent or Failed, and the credits ledger adds up (one debit per message, one restore per Failed message).
 *
 * The queue is made short (Business plan, 200 ms between sends) so it drains in seconds, and the send lease
 * (SVC_SEND_LEASE_MS) is 1 s, so a send the killed server had claimed is taken over quickly after restart.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  api,
  ledgerByMessage,
  openDatabaseReadOnly,
  pollUntil,
  ProcessSandbox,
  quotaAndLedgerSum,
  type SvcServer,
} from '../support/svc-process.js';

interface MessageDto {
  uid: string;
  status: 'Pending' | 'Sending' | 'Sent' | 'Failed';
  failure_reason: string | null;
}

const ACCOUNTS = ['+15550001001', '+15550001002'];
const PER_ACCOUNT = 12;
const UNREACHABLE = '+4915100000666';
const INVALID = '+1234'; // accepted (it looks like a phone), then refused by the network: not a valid number
const LEASE_MS = 1000;

/** What each message should end as: recipients cycle through valid, invalid and unreachable numbers. */
function recipientFor(i: number): { phone: string; expect: 'Sent' | 'Failed'; reason?: string } {
  if (i % 6 === 2) return { phone: INVALID, expect: 'Failed', reason: 'invalid_number' };
  if (i % 6 === 5) return { phone: UNREACHABLE, expect: 'Failed', reason: 'unreachable' };
  return { phone: `+1415555${String(1000 + i).padStart(4, '0')}`, expect: 'Sent' };
}

describe('process: kill the server mid-queue', () => {
  let box: ProcessSandbox;
  beforeEach(() => {
    box = new ProcessSandbox();
  });
  afterEach(async () => {
    await box.cleanup();
  });

  it('every accepted message reaches Sent or Failed after SIGKILL and restart; the ledger adds up', { timeout: 120_000 }, async () => {
    const dataDir = box.tempDir('svc-proc-kill-');
    const env = { SVC_SEND_LEASE_MS: String(LEASE_MS) };
    const { workspace_id: ws, token } = await box.createWorkspace(dataDir, 'Kill mid-queue', 1000);
    await box.ok(['admin', 'workspace', 'update', String(ws), '--data', dataDir, '--plan', 'business', '--send-interval', '200']);

    let server: SvcServer = await box.serve(dataDir, { env });
    for (const phone of ACCOUNTS) {
      const res = await api(server, token, 'POST', '/sim/accounts/connect', { phone });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    expect((await api(server, token, 'PUT', `/sim/numbers/${encodeURIComponent(UNREACHABLE)}/unreachable`, { unreachable: true })).status).toBe(200);

    // Fire all sends at once, spread over the accounts, and keep every accepted uid.
    const plan = Array.from({ length: PER_ACCOUNT * ACCOUNTS.length }, (_, i) => ({ i, account: ACCOUNTS[i % ACCOUNTS.length]!, ...recipientFor(i) }));
    const responses = await Promise.all(
      plan.map((p) =>
        api<{ status: string; data: { message_uid: string; status: string } }>(server, token, 'POST', '/api/messages', {
          phone: p.phone,
          text: `kill test ${p.i}`,
          messenger_account_phone: p.account,
        }),
      ),
    );
    for (const res of responses) expect(res.status, JSON.stringify(res.body)).toBe(200);
    const accepted = responses.map((res, k) => ({ uid: res.body.data.message_uid, ...plan[k]! }));
    expect(new Set(accepted.map((a) => a.uid)).size).toBe(accepted.length);

    // Let the queue make some progress, then kill the server while it is still non-empty.
    const statuses = async () =>
      (await Promise.all(accepted.map((a) => api<{ data: MessageDto }>(server, token, 'GET', `/api/messages/${a.uid}`)))).map(
        (r) => r.body.data.status,
      );
    const before = await pollUntil(
      'the queue to start draining',
      async () => {
        const now = await statuses();
        return now.filter((s) => s === 'Sent' || s === 'Failed').length >= 4 ? now : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 50 },
    );
    const unfinished = before.filter((s) => s === 'Pending' || s === 'Sending');
    expect(unfinished.length, 'the queue drained before the kill; the test proves nothing').toBeGreaterThan(0);

    const killed = await box.stop(server, 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');

    // What the dead server left behind, straight from the database: accepted work that was not finished.
    const afterKill = openDatabaseReadOnly(dataDir);
    let leftBehind: number;
    let jobsLeft: number;
    try {
      leftBehind = afterKill
        .prepare<[number], { n: number }>(`SELECT COUNT(*) AS n FROM messages WHERE workspace_id = ? AND status IN ('Pending', 'Sending')`)
        .get(ws)!.n;
      jobsLeft = afterKill.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM jobs WHERE kind = 'send'`).get()!.n;
    } finally {
      afterKill.close();
    }
    expect(leftBehind).toBeGreaterThan(0);
    expect(jobsLeft).toBeGreaterThanOrEqual(leftBehind);

    // Restart on the same directory; everything accepted goes on to Sent or Failed.
    server = await box.serve(dataDir, { env });
    const final = new Map<string, MessageDto>();
    await pollUntil(
      'every accepted message to reach Sent or Failed',
      async () => {
        const pending = accepted.filter((a) => !final.has(a.uid));
        const now = await Promise.all(pending.map((a) => api<{ data: MessageDto }>(server, token, 'GET', `/api/messages/${a.uid}`)));
        for (const res of now) {
          expect(res.status).toBe(200);
          if (res.body.data.status === 'Sent' || res.body.data.status === 'Failed') final.set(res.body.data.uid, res.body.data);
        }
        return final.size === accepted.length ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 300 },
    );
    for (const a of accepted) {
      const message = final.get(a.uid)!;
      expect(message.status, `${a.uid} to ${a.phone}`).toBe(a.expect);
      if (a.reason !== undefined) expect(message.failure_reason).toBe(a.reason);
    }

    const workspace = await api<{ data: { messaging_quota: { used: number } } }>(server, token, 'GET', '/api/workspace');
    const sentCount = accepted.filter((a) => a.expect === 'Sent').length;
    expect(workspace.body.data.messaging_quota.used).toBe(sentCount);

    const stopped = await box.stop(server, 'SIGTERM');
    expect(stopped.code, stopped.stderr).toBe(0);

    // The ledger, read-only after the final stop.
    const db = openDatabaseReadOnly(dataDir);
    try {
      const rows = new Map(ledgerByMessage(db, ws).map((row) => [row.uid, row]));
      expect(rows.size).toBe(accepted.length);
      for (const a of accepted) {
        const row = rows.get(a.uid)!;
        expect(row, a.uid).toMatchObject({ status: a.expect, credits: 1, debits: 1, debit_sum: 1 });
        if (a.expect === 'Failed') expect(row, a.uid).toMatchObject({ restores: 1, restore_sum: -1 });
        else expect(row, a.uid).toMatchObject({ restores: 0, restore_sum: 0 });
      }
      const { used, ledgerSum } = quotaAndLedgerSum(db, ws);
      expect(used).toBe(ledgerSum);
      expect(used).toBe(sentCount);
      expect(db.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM jobs WHERE kind = 'send'`).get()!.n).toBe(0);
    } finally {
      db.close();
    }
  });
});
