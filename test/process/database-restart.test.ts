/**
 * `svc serve --database URL` rides out a PostgreSQL restart under load. A private server (never the machine's
 * shared one) is stopped while POST /api/messages arrives every 20 ms (and a burst of 20 lands just before, so
 * transactions are open on the pooled connections the stop cuts), stays down ~2 s, and is started again.
 * Proves: the svc process stays up; every request during the outage answers 503 with the catalogue's error
 * body (`{status:"error", error_code:"unavailable", message}`), none a 500, none left hanging; requests succeed
 * again by themselves within 10 s of the restart; every message acknowledged with a 200 (before, during or
 * after) ends Sent; and no connection leaks (after recovery svc holds at most its pool of 10 plus the one
 * LISTEN connection, which is back). Needs `npm run build` (npm test does it) and the PostgreSQL binaries.
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres.js';
import { pollUntil, ProcessSandbox } from '../support/svc-process.js';

const ACCOUNT = '+15550008001';
const POOL_SIZE = 10; // svc serve's pool (src/runtime/open-engine.ts)
const EVERY_MS = 20;
/** Client-side limit of one request: an answer later than this counts as a hang. */
const REQUEST_LIMIT_MS = 8_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Outcome {
  i: number;
  startedAt: number;
  ms: number;
  status: number | 'timeout' | 'error';
  body: { status?: string; error_code?: string; message?: string; data?: { message_uid?: string } } | null;
  error?: string;
}

describe('process: svc serve --database while PostgreSQL restarts', () => {
  let box: ProcessSandbox;
  let server: PrivatePostgres;
  beforeEach(async () => {
    box = new ProcessSandbox();
    server = await startPrivatePostgres();
  });
  afterEach(async () => {
    await box.cleanup();
    server.destroy();
  });

  it('503s during the outage, recovers by itself, loses no acknowledged send, leaks no connection', { timeout: 120_000 }, async () => {
    const database = await server.createDatabase('svc');
    const db = ['--database', database];

    const created = JSON.parse((await box.ok(['admin', 'workspace', 'create', ...db, '--name', 'Restart', '--quota', '1000', '--json'])).stdout) as {
      workspace_id: number;
      token: string;
    };
    await box.ok(['admin', 'workspace', 'update', String(created.workspace_id), ...db, '--plan', 'business', '--send-interval', '0']);
    await box.ok(['sim', 'connect', '--phone', ACCOUNT, ...db, '--token', created.token]);
    // A short send lease: a send whose completion the restart cut is taken up again soon (the default is 30 s).
    const svc = await box.serve(box.tempDir('svc-proc-pgrestart-'), { database, env: { SVC_SEND_LEASE_MS: '2000' } });
    let exitedEarly = false;
    void svc.exited.then(() => (exitedEarly = true));

    const outcomes: Outcome[] = [];
    const send = async (i: number): Promise<void> => {
      const startedAt = performance.now();
      const record = (status: Outcome['status'], body: Outcome['body'], error?: string) =>
        outcomes.push({ i, startedAt, ms: performance.now() - startedAt, status, body, ...(error === undefined ? {} : { error }) });
      try {
        const res = await fetch(`${svc.url}/api/messages`, {
          method: 'POST',
          headers: { authorization: `Bearer ${created.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ phone: `+1415556${String(i).padStart(4, '0')}`, text: `restart ${i}`, messenger_account_phone: ACCOUNT }),
          signal: AbortSignal.timeout(REQUEST_LIMIT_MS),
        });
        const text = await res.text();
        let body: Outcome['body'] = null;
        try {
          body = text === '' ? null : (JSON.parse(text) as Outcome['body']);
        } catch {
          body = { message: `not JSON: ${text.slice(0, 200)}` };
        }
        record(res.status, body);
      } catch (error) {
        record((error as Error).name === 'TimeoutError' ? 'timeout' : 'error', null, String(error));
      }
    };

    // The load: one request every 20 ms (not waiting for answers), until recovered + 2 s; at most 800, 25 s.
    const t0 = performance.now();
    let burstAt = Infinity;
    let stopBegin = Infinity;
    let stoppedAt = Infinity;
    let startBegin = Infinity;
    let startedAt = Infinity;
    let recoveredAt = Infinity;
    const inFlight: Array<Promise<void>> = [];
    const load = (async () => {
      for (let i = 0; i < 800; i += 1) {
        const now = performance.now();
        if (now - t0 > 25_000 || now > recoveredAt + 2_000 || now > startedAt + 12_000) break;
        inFlight.push(send(i));
        await sleep(EVERY_MS);
      }
      await Promise.all(inFlight);
    })();

    await sleep(2_000);
    // A burst just before the stop, so transactions are open on every pooled connection when the server cuts them.
    burstAt = performance.now();
    for (let i = 0; i < 20; i += 1) inFlight.push(send(1000 + i));
    await sleep(10);
    stopBegin = performance.now();
    server.stop(); // synchronous (pg_ctl -w): the server is down when it returns
    stoppedAt = performance.now();
    await sleep(2_000);
    startBegin = performance.now();
    server.start(); // synchronous: accepting connections when it returns
    startedAt = performance.now();
    // Recovered: the first request sent after the restart that was answered 200.
    await pollUntil(
      'a 200 for a request sent after the restart',
      async () => {
        const first = outcomes.filter((o) => o.startedAt >= startedAt && o.status === 200).sort((x, y) => x.startedAt - y.startedAt)[0];
        if (first !== undefined) recoveredAt = first.startedAt + first.ms;
        return first;
      },
      { timeoutMs: 15_000, intervalMs: 50 },
    ).catch(() => undefined); // asserted below, after the numbers are printed
    await load;

    const byPhase = (from: number, to: number) => outcomes.filter((o) => o.startedAt >= from && o.startedAt < to);
    // During the outage: sent once the server was down, at least 100 ms before it was started again (the
    // synchronous start blocks this process, so a request begun just before it may only leave afterwards).
    const outage = byPhase(stoppedAt, startBegin - 100);
    const statuses = (list: Outcome[]) => {
      const counts = new Map<string, number>();
      for (const o of list) counts.set(String(o.status), (counts.get(String(o.status)) ?? 0) + 1);
      return [...counts].map(([status, n]) => `${n} x ${status}`).join(', ');
    };
    const slowest = Math.max(...outcomes.map((o) => o.ms));
    console.info(
      `database restart: ${outcomes.length} requests; pg stop took ${(stoppedAt - stopBegin).toFixed(0)} ms, down ${(startBegin - stoppedAt).toFixed(0)} ms, ` +
        `start took ${(startedAt - startBegin).toFixed(0)} ms; before: ${statuses(byPhase(0, burstAt))}; outage: ${statuses(outage)} ` +
        `(slowest 503 ${Math.max(...outage.map((o) => o.ms)).toFixed(0)} ms); around stop/start: ` +
        `${statuses([...byPhase(burstAt, stoppedAt), ...byPhase(startBegin - 100, startedAt)])}; after: ${statuses(byPhase(startedAt, Infinity))}; ` +
        `first success ${(recoveredAt - startedAt).toFixed(0)} ms after the restart; slowest answer ${slowest.toFixed(0)} ms`,
    );

    expect(exitedEarly, svc.output()).toBe(false);
    expect(svc.child.exitCode).toBeNull();
    // Nothing but 200 and 503: no 500, no hang, no dropped connection, and every 503 carries the error body.
    expect(outcomes.filter((o) => o.status !== 200 && o.status !== 503)).toEqual([]);
    for (const o of outcomes.filter((x) => x.status === 503)) {
      expect(o.body, `request ${o.i}`).toMatchObject({ status: 'error', error_code: 'unavailable', message: expect.any(String) });
    }
    expect(outage.length).toBeGreaterThan(50);
    expect(outage.filter((o) => o.status !== 503)).toEqual([]);
    expect(byPhase(0, burstAt).every((o) => o.status === 200)).toBe(true);
    const lastAfter = byPhase(startedAt, Infinity).at(-1);
    expect(recoveredAt - startedAt, `last answer ${JSON.stringify(lastAfter)}\n${svc.output().slice(-3000)}`).toBeLessThan(10_000);
    // Once recovered, it stays recovered.
    expect(outcomes.filter((o) => o.startedAt > recoveredAt && o.status !== 200)).toEqual([]);

    const acknowledged = outcomes.filter((o) => o.status === 200).map((o) => o.body!.data!.message_uid!);
    const check = new pg.Client({ connectionString: database });
    await check.connect();
    try {
      const states = await pollUntil(
        'every acknowledged message Sent',
        async () => {
          const rows = (await check.query<{ uid: string; status: string }>('SELECT uid, status FROM messages WHERE uid = ANY($1)', [acknowledged])).rows;
          return rows.length === acknowledged.length && rows.every((r) => r.status === 'Sent') ? rows : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 250 },
      ).catch(async (error: Error) => {
        const rows = (await check.query<{ status: string; n: number }>('SELECT status, COUNT(*)::int AS n FROM messages WHERE uid = ANY($1) GROUP BY status', [acknowledged])).rows;
        throw new Error(`${error.message}: ${acknowledged.length} acknowledged, stored by status ${JSON.stringify(rows)}`);
      });
      expect(states).toHaveLength(acknowledged.length);

      // No leak: at most the pool plus the LISTEN connection, and the LISTEN connection is back.
      const connections = async () =>
        (await check.query<{ app: string; n: number }>(
          `SELECT application_name AS app, COUNT(*)::int AS n FROM pg_stat_activity WHERE application_name IN ('svc', 'svc-listen') GROUP BY 1`,
        )).rows.reduce<Record<string, number>>((all, row) => ({ ...all, [row.app]: row.n }), {});
      const held = await pollUntil('the LISTEN connection back', async () => ((await connections())['svc-listen'] === 1 ? connections() : undefined), {
        timeoutMs: 10_000,
      });
      console.info(`database restart: ${acknowledged.length} acknowledged, all Sent; svc connections after recovery ${JSON.stringify(held)}`);
      expect((held['svc'] ?? 0) + (held['svc-listen'] ?? 0)).toBeLessThanOrEqual(POOL_SIZE + 1);
    } finally {
      await check.end();
    }
    expect((await box.stop(svc, 'SIGTERM')).code).toBe(0);
  });
});
