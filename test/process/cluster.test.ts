/**
 * Issue 12, replicas: three `svc serve --database URL` on one PostgreSQL database, bursts of sends spread over
 * them, a random replica SIGKILLed mid-burst each round and started again. Afterwards the fault loop's
 * invariants hold for the cluster as a whole: every acknowledged send is final exactly once (one debit, one
 * restore per Failed, the network saw each Sent once), the ledger equals quota_used, the quota was never
 * overspent although it ran out, one account's sends stayed spaced across replicas, and every Sent message's
 * event reached the webhook receiver at least once.
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { ACCOUNTS, GOOD_EVENTS, missingEvents, recipientFor, seededRandom, type MessageState } from '../support/fault-harness.js';
import { startGoodReceiver, type GoodReceiver } from '../support/fault-receivers.js';
import { api, pollUntil, ProcessSandbox, type SvcServer } from '../support/svc-process.js';

const ROUNDS = 3;
const BURST = 30;
/** Below what the bursts ask for, so sends are refused once it runs out (credits of Failed sends come back). */
const QUOTA = 60;
const SEND_INTERVAL_MS = 400;
const KILL_WINDOW_MS = 1500;
const SEED = Number(process.env.SVC_FAULT_SEED ?? Date.now() % 2 ** 31);
const REPLICA = { env: { SVC_SEND_LEASE_MS: '1000' }, args: ['--dev', '--webhook-retry-delays', '1,1'] };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// BIGINT ids and epoch milliseconds, and SUMs, as numbers (they all fit a double), as svc reads them.
const numbersAsNumbers = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === 20 || oid === 1700 ? Number : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

describe('process: three replicas on one PostgreSQL database, SIGKILLed at random', () => {
  let box: ProcessSandbox;
  let database: TestDatabase;
  let good: GoodReceiver | undefined;
  beforeEach(async () => {
    box = new ProcessSandbox();
    database = await createTestDatabase('cluster');
  });
  afterEach(async () => {
    await box.cleanup();
    await good?.close();
    await database.drop();
  });

  it('every acknowledged send final once, ledger exact, no overspend, spacing held, every event delivered', { timeout: 120_000 }, async () => {
    const random = seededRandom(SEED);
    const target = ['--database', database.url];
    const dataDir = box.tempDir('svc-proc-cluster-'); // unused by the replicas: --database wins
    const created = JSON.parse((await box.ok(['admin', 'workspace', 'create', ...target, '--name', 'Cluster', '--quota', String(QUOTA), '--json'])).stdout) as {
      workspace_id: number;
      token: string;
    };
    await box.ok(['admin', 'workspace', 'update', String(created.workspace_id), ...target, '--plan', 'business', '--send-interval', String(SEND_INTERVAL_MS)]);
    const start = () => box.serve(dataDir, { env: REPLICA.env, args: [...REPLICA.args, ...target] });
    const replicas: SvcServer[] = [await start(), await start(), await start()];

    good = await startGoodReceiver();
    for (const phone of ACCOUNTS) expect((await api(replicas[0]!, created.token, 'POST', '/sim/accounts/connect', { phone })).status).toBe(200);
    for (const event_type of GOOD_EVENTS) {
      const res = await api<{ data: { secret: string } }>(replicas[1]!, created.token, 'POST', '/api/webhooks', { event_type, url: `${good.url}/${event_type}` });
      expect(res.status).toBe(200);
      good.secrets.set(`/${event_type}`, res.body.data.secret);
    }

    const accepted = new Set<string>();
    const refusals: string[] = [];
    let lost = 0;
    const burst = async (round: number) => {
      await Promise.all(
        Array.from({ length: BURST }, async (_, i) => {
          const replica = replicas[i % replicas.length]!;
          try {
            const res = await api<{ data: { message_uid: string }; error_code?: string }>(replica, created.token, 'POST', '/api/messages', {
              phone: recipientFor(round, i),
              text: `cluster ${round}/${i}`,
              messenger_account_phone: ACCOUNTS[i % ACCOUNTS.length],
            });
            if (res.status === 200) accepted.add(res.body.data.message_uid);
            else refusals.push(`${res.status} ${res.body.error_code ?? JSON.stringify(res.body)}`);
          } catch {
            lost += 1; // the replica died under the request
          }
        }),
      );
    };

    for (let round = 0; round < ROUNDS; round += 1) {
      const sending = burst(round);
      await sleep(random() * KILL_WINDOW_MS);
      const victim = Math.floor(random() * replicas.length);
      expect((await box.stop(replicas[victim]!, 'SIGKILL')).signal).toBe('SIGKILL');
      await sending;
      replicas[victim] = await start();
    }
    await burst(ROUNDS);

    const client = new pg.Client({ connectionString: database.url, types: numbersAsNumbers });
    await client.connect();
    try {
      const messages = async () =>
        (await client.query<MessageState & { account_id: number }>(
          `SELECT uid, status, created_at, sent_at, messenger_account_id AS account_id FROM messages WHERE workspace_id = $1 AND direction = 'sent' ORDER BY id`,
          [created.workspace_id],
        )).rows;
      await pollUntil(
        'every message final, no job left, every event at the receiver',
        async () => {
          const rows = await messages();
          const jobs = (await client.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM jobs WHERE kind = 'send'`)).rows[0]!.n;
          const open = rows.filter((m) => m.status !== 'Sent' && m.status !== 'Failed').length;
          return open + jobs + missingEvents(rows, good!.deliveries).length === 0 ? true : undefined;
        },
        { timeoutMs: 45_000, intervalMs: 250 },
      );
      const rows = await messages();
      const byUid = new Map(rows.map((m) => [m.uid, m]));
      for (const uid of accepted) expect(byUid.has(uid), `acknowledged ${uid} is stored`).toBe(true);
      const sent = rows.filter((m) => m.status === 'Sent');
      const failed = rows.filter((m) => m.status === 'Failed');
      expect(sent.length + failed.length).toBe(rows.length);

      // The quota ran out, and every refusal was the quota's.
      expect(refusals.length).toBeGreaterThan(0);
      for (const refusal of refusals) expect(refusal).toBe('403 quota_exceeded');

      // Exactly once: one debit per message, one restore per Failed one, none per Sent one.
      const ledger = await client.query<{ uid: string; status: string; debits: number; restores: number }>(
        `SELECT m.uid, m.status,
           (SELECT COUNT(*)::int FROM credit_ledger l WHERE l.message_id = m.id AND l.reason = 'debit') AS debits,
           (SELECT COUNT(*)::int FROM credit_ledger l WHERE l.message_id = m.id AND l.reason = 'restore') AS restores
         FROM messages m WHERE m.workspace_id = $1 AND m.direction = 'sent'`,
        [created.workspace_id],
      );
      for (const row of ledger.rows) expect(row, row.uid).toMatchObject({ debits: 1, restores: row.status === 'Failed' ? 1 : 0 });
      const network = new Map(
        (await client.query<{ uid: string; n: number }>('SELECT message_uid AS uid, COUNT(*)::int AS n FROM sim_deliveries GROUP BY message_uid')).rows.map((r) => [r.uid, r.n]),
      );
      for (const m of sent) expect(network.get(m.uid), m.uid).toBe(1);
      for (const m of failed) expect(network.get(m.uid), m.uid).toBeUndefined();

      // Ledger exact and never overspent.
      const quota = (await client.query<{ used: number; total: number; ledger: number }>(
        `SELECT quota_used AS used, quota_total AS total, (SELECT COALESCE(SUM(delta), 0) FROM credit_ledger WHERE workspace_id = $1) AS ledger
         FROM workspaces WHERE id = $1`,
        [created.workspace_id],
      )).rows[0]!;
      expect(quota.used).toBe(quota.ledger);
      expect(quota.used).toBe(sent.length);
      expect(quota.used).toBeLessThanOrEqual(quota.total);

      // One account's sends stay spaced, whichever replica claimed them (when the network saw them).
      const times = await client.query<{ account_id: number; at: number }>(
        `SELECT m.messenger_account_id AS account_id, d.delivered_at AS at FROM sim_deliveries d JOIN messages m ON m.uid = d.message_uid
         WHERE m.workspace_id = $1 ORDER BY m.messenger_account_id, d.delivered_at`,
        [created.workspace_id],
      );
      const gaps: number[] = [];
      for (let i = 1; i < times.rows.length; i += 1) {
        const [a, b] = [times.rows[i - 1]!, times.rows[i]!];
        if (a.account_id === b.account_id) gaps.push(b.at - a.at);
      }
      gaps.sort((x, y) => x - y);
      const closest = gaps[0] ?? Infinity;
      // Slots are reserved at the claim; the network sees a send after the claim's commit and a round trip,
      // usually tens of ms later. A replica stalled in between (event-loop pauses of half a second were
      // measured with the whole suite on 2 cores) shortens the one gap after it: one short gap is tolerated,
      // and the typical gap must be the interval. Without spacing across replicas, replicas would hand one
      // account's queue over milliseconds apart, gap after gap.
      const short = gaps.filter((gap) => gap < SEND_INTERVAL_MS / 2);
      expect(short.length, `gaps under half the interval: ${short.join(', ')}`).toBeLessThanOrEqual(1);
      expect(gaps[Math.floor(gaps.length / 2)], 'median gap between two sends of one account').toBeGreaterThanOrEqual(SEND_INTERVAL_MS - 50);

      // At least once at the receiver, verified, and only for Sent messages.
      expect(good.rejected).toEqual([]);
      expect(missingEvents(rows, good.deliveries)).toEqual([]);
      expect(good.deliveries.filter((d) => byUid.get(d.uid)?.status !== 'Sent')).toEqual([]);

      console.info(
        `cluster: seed ${SEED}, ${ROUNDS} SIGKILLs of 3 replicas, ${rows.length} messages (${accepted.size} answered, ${lost} requests lost, ` +
          `${refusals.length} refused for quota), ${sent.length} Sent, ${failed.length} Failed, quota ${quota.used}/${quota.total}, ` +
          `closest spacing ${closest} ms, receiver got ${good.deliveries.length} deliveries for ${GOOD_EVENTS.length * sent.length} events`,
      );
    } finally {
      await client.end();
    }
    for (const replica of replicas) expect((await box.stop(replica, 'SIGTERM')).code).toBe(0);
  });
});
