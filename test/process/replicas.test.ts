/**
 * Two `svc serve --database URL` replicas on one PostgreSQL database behave as one service:
 *  a. the per-token rate limit is counted for the service (slots reserved in batches from the shared
 *     `rate_limit_counters`), not per replica: 1,000 requests over two replicas limited to 600 a minute get at
 *     most 600 answers and at least 600 less what the replicas hold ahead, the rest once those slots are given
 *     back, and the database is written a few dozen times, not once per request;
 *  b. a token rotated through the Partner API on one replica fails on the other at the very next request, a
 *     send too (a send lets a token the replica found live lately in from memory, and its batch checks it);
 *  c. a delivery queued by a send that replica A took reaches a listen stream on replica B through the
 *     cross-replica wake-up (NOTIFY), not at B's next 200 ms poll: the median from each POST's answer to its
 *     `message:sent:new` on B's stream stays under 60 ms;
 *  d. likewise a QR scan through A reaches a connection page streamed by B well before its 1 s re-read.
 * Needs `npm run build` (npm test does it) and the machine's PostgreSQL (test/support/postgres.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/wire/clock.js';
import { signPartnerJwt } from '../../src/partner/partner-jwt-sign.js';
import { SseParser } from '../../src/client/sse-parser.js';
import type { ListenDeliveryDto } from '../../src/wire/listen-types.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { aheadCap } from '../../src/http/server/shared-rate-limit.js';
import { api, ProcessSandbox, type SvcServer } from '../support/svc-process.js';
import pg from 'pg';

const ACCOUNT = '+15550007001';

describe('process: two replicas on one PostgreSQL database', () => {
  let box: ProcessSandbox;
  let database: TestDatabase;
  let dataDir: string;
  let db: string[];
  beforeEach(async () => {
    box = new ProcessSandbox();
    database = await createTestDatabase('replicas');
    dataDir = box.tempDir('svc-proc-replicas-'); // holds nothing: --database wins
    db = ['--database', database.url];
  });
  afterEach(async () => {
    await box.cleanup();
    await database.drop();
  });

  /** A Business workspace (quota 1000, no spacing between sends) with one sim account connected. */
  async function workspace(name: string): Promise<{ ws: number; token: string }> {
    const created = JSON.parse((await box.ok(['admin', 'workspace', 'create', ...db, '--name', name, '--quota', '1000', '--json'])).stdout) as {
      workspace_id: number;
      token: string;
    };
    await box.ok(['admin', 'workspace', 'update', String(created.workspace_id), ...db, '--plan', 'business', '--send-interval', '0']);
    await box.ok(['sim', 'connect', '--phone', ACCOUNT, ...db, '--token', created.token]);
    return { ws: created.workspace_id, token: created.token };
  }

  const replica = (rateLimit?: number) => box.serve(dataDir, { database: database.url, ...(rateLimit === undefined ? {} : { rateLimit }) });

  it('a: the per-token rate limit holds for the service: at most 600 of 1,000, at least 600 less 2 x aheadCap, far fewer writes than requests', { timeout: 120_000 }, async () => {
    const limit = 600;
    const { token } = await workspace('Limited');
    const replicas = [await replica(limit), await replica(limit)];
    const writes = await countRateLimitWrites(database.url);
    const get = async (server: SvcServer) => {
      const res = await fetch(`${server.url}/api/workspace`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
      const body = (await res.json()) as { status?: string; error_code?: string };
      return { status: res.status, body, retryAfter: Number(res.headers.get('retry-after')), at: Date.now() };
    };

    const firstSentAt = Date.now();
    let made = 0;
    const answers: Array<Awaited<ReturnType<typeof get>>> = [];
    // 48 clients, half on each replica, 1,000 requests in all.
    await Promise.all(
      Array.from({ length: 48 }, async (_, client) => {
        while (made < 1_000) {
          made += 1;
          answers.push(await get(replicas[client % 2]!));
        }
      }),
    );
    const ok = answers.filter((a) => a.status === 200).length;
    const limited = answers.filter((a) => a.status === 429);
    const written = await writes.count();
    console.info(
      `replicas a: ${answers.length} requests over 2 replicas limited to ${limit}/min: ${ok} x 200, ${limited.length} x 429; ` +
        `${written} rate-limit rows written`,
    );
    expect(ok + limited.length).toBe(answers.length);
    expect(ok).toBeLessThanOrEqual(limit);
    expect(ok).toBeGreaterThanOrEqual(limit - 2 * aheadCap(limit));
    for (const refused of limited) {
      expect(refused.body).toMatchObject({ status: 'error', error_code: 'rate_limit_exceeded' });
      // Waiting Retry-After is never too early: the first request is then out of the 60 s window.
      expect(refused.at + refused.retryAfter * 1000).toBeGreaterThanOrEqual(firstSentAt + 60_000);
      expect(refused.retryAfter).toBeLessThanOrEqual(61);
    }
    expect(written * 5).toBeLessThan(answers.length);

    // Slots a replica held ahead go back once their second is over: then the service gives exactly the limit.
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    let late = 0;
    for (let i = 0; i < 40; i += 1) if ((await get(replicas[i % 2]!)).status === 200) late += 1;
    expect(ok + late).toBe(limit);
    await writes.stop();
  });

  /** A partner made with the CLI, and a caller of its Partner API on any replica (a fresh JWT per call). */
  async function partnerOnCluster() {
    const partner = JSON.parse((await box.ok(['admin', 'partner', 'create', ...db, '--name', 'P', '--json'])).stdout) as {
      partner_id: string;
      partner_secret: string;
    };
    return async <T>(server: SvcServer, method: string, path: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${server.url}/partner${path}`, {
        method,
        headers: {
          authorization: `Bearer ${signPartnerJwt(partner.partner_id, partner.partner_secret, systemClock)}`,
          'x-svc-partner-id': partner.partner_id,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(10_000),
      });
      const parsed = (await res.json()) as { data: T };
      if (res.status >= 300) throw new Error(`${method} /partner${path} answered ${res.status}: ${JSON.stringify(parsed)}`);
      return parsed.data;
    };
  }

  it('b: a token rotated on replica A fails on replica B at the next request; the new one works there', async () => {
    const partnerCall = await partnerOnCluster();
    const [a, b] = [await replica(), await replica()];
    const { workspace_id: ws } = await partnerCall<{ workspace_id: number }>(b, 'POST', '/workspaces', { display_name: 'Rotating', seats_purchased: 1 });
    const { api_token: old } = await partnerCall<{ api_token: string }>(b, 'GET', `/workspaces/${ws}/api-token`);
    // Both replicas have used the old token (anything they keep about it is warm) before it is rotated.
    expect((await api(a, old, 'GET', '/api/workspace')).status).toBe(200);
    expect((await api(b, old, 'GET', '/api/workspace')).status).toBe(200);
    expect((await api(b, old, 'POST', '/sim/accounts/connect', { phone: ACCOUNT })).status).toBe(200);
    const send = (server: SvcServer, token: string, text: string) => api(server, token, 'POST', '/api/messages', { phone: '+14155550100', text });
    expect((await send(b, old, 'before')).status).toBe(200);

    const { api_token: fresh } = await partnerCall<{ api_token: string }>(a, 'POST', `/workspaces/${ws}/api-token`);
    expect(fresh).not.toBe(old);
    const oldOnB = await api(b, old, 'GET', '/api/workspace');
    expect(oldOnB.status).toBe(401);
    expect(oldOnB.body).toBeNull(); // docs/api-behaviour.md: a refused token gets no body
    const sendOnB = await send(b, old, 'old token');
    expect(sendOnB.status).toBe(401);
    expect(sendOnB.body).toBeNull();
    expect((await send(b, fresh, 'new token')).status).toBe(200);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const texts = (await client.query<{ text: string }>('SELECT text FROM messages ORDER BY id')).rows.map((row) => row.text);
    await client.end();
    expect(texts).toEqual(['before', 'new token']);
    expect((await api(b, fresh, 'GET', '/api/workspace')).status).toBe(200);
    expect((await api(a, old, 'GET', '/api/workspace')).status).toBe(401);
    expect((await api(a, fresh, 'GET', '/api/workspace')).status).toBe(200);
  });

  it('c: a send through replica A wakes a listen stream on replica B at once (median under 60 ms)', { timeout: 60_000 }, async () => {
    const { token } = await workspace('Listen');
    const [a, b] = [await replica(), await replica()];
    const session = await api<{ data: { id: string } }>(b, token, 'POST', '/api/webhooks/listen', { events: ['message:sent:new'] });
    expect(session.status).toBe(200);

    const abort = new AbortController();
    const stream = await fetch(`${b.url}/api/webhooks/listen/${session.body.data.id}/stream`, {
      headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      signal: abort.signal,
    });
    expect(stream.status).toBe(200);
    /** First arrival of `message:sent:new` per message uid, in ms of performance.now(). */
    const arrived = new Map<string, number>();
    const waiters = new Map<string, () => void>();
    let ready!: () => void;
    const isReady = new Promise<void>((resolve) => (ready = resolve));
    const reading = (async () => {
      const parser = new SseParser();
      const decoder = new TextDecoder();
      for await (const chunk of stream.body! as AsyncIterable<Uint8Array>) {
        const at = performance.now();
        for (const event of parser.push(decoder.decode(chunk, { stream: true }))) {
          if (event.event === 'ready') ready();
          if (event.event !== 'delivery') continue;
          const delivery = JSON.parse(event.data) as ListenDeliveryDto;
          const uid = (JSON.parse(delivery.payload) as { message?: { message_uid?: string } }).message?.message_uid;
          if (delivery.event_type !== 'message:sent:new' || uid === undefined || arrived.has(uid)) continue;
          arrived.set(uid, at);
          waiters.get(uid)?.();
        }
      }
    })().catch((error: unknown) => {
      if (!abort.signal.aborted) throw error;
    });
    await isReady;

    const latencies: number[] = [];
    const missing: string[] = [];
    try {
      for (let i = 0; i < 10; i += 1) {
        const sent = await api<{ data: { message_uid: string } }>(a, token, 'POST', '/api/messages', {
          phone: `+1415555${String(i).padStart(4, '0')}`,
          text: `wake ${i}`,
          messenger_account_phone: ACCOUNT,
        });
        const answeredAt = performance.now();
        expect(sent.status).toBe(200);
        const uid = sent.body.data.message_uid;
        const came = arrived.has(uid)
          ? true
          : await new Promise<boolean>((resolve) => {
              const timer = setTimeout(() => resolve(false), 5_000);
              waiters.set(uid, () => {
                clearTimeout(timer);
                resolve(true);
              });
            });
        if (!came) missing.push(uid);
        else latencies.push(Math.max(0, arrived.get(uid)! - answeredAt));
      }
    } finally {
      abort.abort();
      await reading;
    }
    const sorted = [...latencies].sort((x, y) => x - y);
    const median = sorted.length === 0 ? NaN : (sorted[(sorted.length - 1) >> 1]! + sorted[sorted.length >> 1]!) / 2;
    console.info(
      `replicas c: POST answered on A -> delivery on B's stream, ms: ${latencies.map((ms) => ms.toFixed(1)).join(', ')}; ` +
        `median ${median.toFixed(1)}, max ${(sorted.at(-1) ?? NaN).toFixed(1)}, missing ${missing.length}`,
    );
    expect(missing).toEqual([]);
    expect(median).toBeLessThan(60);
  });

  it('d: a scan through replica A shows on a connection page streamed by replica B at once (each under 300 ms)', { timeout: 60_000 }, async () => {
    const partnerCall = await partnerOnCluster();
    const [a, b] = [await replica(), await replica()];
    const { workspace_id: ws } = await partnerCall<{ workspace_id: number }>(a, 'POST', '/workspaces', { display_name: 'Pages', seats_purchased: 3 });
    const users = await partnerCall<Array<{ user_id: number }>>(a, 'POST', `/workspaces/${ws}/users`, { count: 3 });
    const { api_token: token } = await partnerCall<{ api_token: string }>(a, 'GET', `/workspaces/${ws}/api-token`);
    const latencies: number[] = [];
    for (const [i, user] of users.entries()) {
      const { qr_link: link } = await partnerCall<{ qr_link: string }>(a, 'POST', `/workspaces/${ws}/users/${user.user_id}/qr`, {});
      const code = new URL(link).pathname.split('/').at(-1)!;
      const abort = new AbortController();
      const stream = await fetch(`${b.url}/connect/${code}/events`, { headers: { accept: 'text/event-stream' }, signal: abort.signal });
      expect(stream.status).toBe(200);
      const events: Array<{ event: string; at: number }> = [];
      let changed: () => void = () => undefined;
      const reading = (async () => {
        const parser = new SseParser();
        const decoder = new TextDecoder();
        for await (const chunk of stream.body! as AsyncIterable<Uint8Array>) {
          for (const event of parser.push(decoder.decode(chunk, { stream: true }))) events.push({ event: event.event, at: performance.now() });
          changed();
        }
      })().catch((error: unknown) => {
        if (!abort.signal.aborted) throw error;
      });
      const seen = (name: string) =>
        new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no ${name} event within 5 s: ${JSON.stringify(events)}`)), 5_000);
          const check = () => {
            if (!events.some((e) => e.event === name)) return;
            clearTimeout(timer);
            resolve();
          };
          changed = check;
          check();
        });
      try {
        await seen('qr'); // the page shows the code: B's feed has read the link once
        const scan = await api(a, token, 'POST', '/sim/scan', { qr_link: link, phone: `+1555000710${i}` });
        const scannedAt = performance.now();
        expect(scan.status).toBe(200);
        await seen('connected');
        latencies.push(events.find((e) => e.event === 'connected')!.at - scannedAt);
      } finally {
        abort.abort();
        // The aborted body does not always end the reader's loop: give it a moment, not forever.
        await Promise.race([reading, new Promise((resolve) => setTimeout(resolve, 1000))]);
      }
    }
    console.info(`replicas d: scan answered on A -> 'connected' on B's page stream, ms: ${latencies.map((ms) => ms.toFixed(1)).join(', ')}`);
    // B's feed re-reads the link every second on its own: three arrivals under 300 ms are the wake-up's work.
    for (const ms of latencies) expect(ms).toBeLessThan(300);
  });
});

/** Counts the rows written to the rate-limit tables (this release's and migration 9's) from now on, with a trigger. */
async function countRateLimitWrites(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`
    CREATE TABLE test_rate_limit_writes (n BIGINT NOT NULL);
    INSERT INTO test_rate_limit_writes VALUES (0);
    CREATE FUNCTION test_count_rate_limit_write() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN UPDATE test_rate_limit_writes SET n = n + 1; RETURN NULL; END $$;`);
  for (const table of ['rate_limit_counters', 'rate_limit_windows']) {
    const present = await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [table]);
    if (present.rows[0]?.t == null) continue;
    await client.query(`CREATE TRIGGER test_count_writes AFTER INSERT OR UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION test_count_rate_limit_write()`);
  }
  return {
    count: async () => Number((await client.query<{ n: string }>('SELECT n FROM test_rate_limit_writes')).rows[0]!.n),
    stop: () => client.end(),
  };
}
