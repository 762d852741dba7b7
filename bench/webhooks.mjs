// Webhook delivery in `npm run bench`: deliveries per second from `svc serve` (outbox durable in SQLite) to a
// receiver on loopback, beside a plain undici POST loop to the same receiver, and the time from a send being
// accepted to its `message:sent:new` arriving. Bounded in count and in time.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { percentile, startServer } from './lib.mjs';

const round = (n) => Math.round(n * 100) / 100;

/** A receiver on 127.0.0.1:0 that answers 200 at once and calls `onBody` with each parsed body and its arrival time. */
async function startReceiver(onBody) {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      res.end('ok');
      onBody(Buffer.concat(chunks).toString(), performance.now());
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
}

/** Runs `task(i)` for i < count with `concurrency` at once; stops early after `deadline` (performance.now()). */
async function pool(count, concurrency, deadline, task) {
  let next = 0;
  const worker = async () => {
    while (next < count && performance.now() < deadline) await task(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return next;
}

const waitFor = async (check, deadline) => {
  while (!check() && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  return check();
};

/** Measures webhook delivery; `seconds` bounds each phase. */
export async function measureWebhooks(svc, { seconds = 10 } = {}) {
  const events = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 2000);
  const sends = Number(process.env.BENCH_WEBHOOK_SENDS ?? 300);
  const arrivals = new Map();
  let received = 0;
  const rx = await startReceiver((body, at) => {
    received += 1;
    const parsed = JSON.parse(body);
    if (parsed.event_type === 'message:sent:new') arrivals.set(parsed.message?.message_uid, at);
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-hooks-'));
  const cli = (...args) => execFileSync(process.execPath, [svc, ...args, '--data', dataDir], { encoding: 'utf8' });
  let server;
  try {
    // Baseline: the same receiver, a plain undici POST loop with the concurrency the worker uses (16).
    const agent = new Agent({ keepAliveTimeout: 10_000 });
    const body = JSON.stringify({ event_type: 'message:received:new', message: { text: 'x'.repeat(400) } });
    const start = performance.now();
    const posted = await pool(events, 16, start + seconds * 1000, async () => {
      const res = await request(`${rx.url}/plain`, { method: 'POST', body, headers: { 'content-type': 'application/json' }, dispatcher: agent });
      await res.body.text();
    });
    const plainPerSecond = posted / ((performance.now() - start) / 1000);
    await agent.close();

    const { workspace_id: ws, token } = JSON.parse(cli('admin', 'workspace', 'create', '--name', 'Hooks', '--quota', '100000000', '--json'));
    cli('admin', 'workspace', 'update', String(ws), '--plan', 'business', '--send-interval', '0');
    server = await startServer(process.execPath, [svc, 'serve', '--port', '0', '--dev', '--data', dataDir, '--rate-limit', '100000000']);
    const api = async (method, path, payload) => {
      const res = await request(`${server.url}${path}`, {
        method, body: payload === undefined ? null : JSON.stringify(payload),
        headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${method} ${path}: ${res.statusCode} ${text}`);
      return JSON.parse(text).data;
    };
    const accounts = ['+15550007001', '+15550007002', '+15550007003', '+15550007004'];
    for (const phone of accounts) await api('POST', '/sim/accounts/connect', { phone });

    // Throughput: incoming messages (each one durable event) delivered to one subscription.
    await api('POST', '/api/webhooks', { event_type: 'message:received:new', url: `${rx.url}/received` });
    received = 0;
    const t0 = performance.now();
    const deadline = t0 + seconds * 1000;
    const accepted = await pool(events, 16, deadline, (i) =>
      api('POST', '/sim/messages', { from: `+4915${String(100000000 + i)}`, to: accounts[i % accounts.length], text: `m${i}` }),
    );
    const acceptSeconds = (performance.now() - t0) / 1000;
    await waitFor(() => received >= accepted, deadline + seconds * 1000);
    const delivered = received;
    const deliveredPerSecond = delivered / ((performance.now() - t0) / 1000);

    // Latency: send accepted -> message:sent:new at the receiver (Business plan, interval 0, four accounts).
    await api('POST', '/api/webhooks', { event_type: 'message:sent:new', url: `${rx.url}/sent` });
    const acceptedAt = new Map();
    const l0 = performance.now();
    await pool(sends, 4, l0 + seconds * 1000, async (i) => {
      const sent = await api('POST', '/api/messages', { phone: `+1415${String(5000000 + i)}`, text: `s${i}`, messenger_account_phone: accounts[i % accounts.length] });
      acceptedAt.set(sent.message_uid, performance.now());
      await new Promise((r) => setTimeout(r, 5));
    });
    await waitFor(() => [...acceptedAt.keys()].every((uid) => arrivals.has(uid)), performance.now() + seconds * 1000);
    const latencies = [...acceptedAt].filter(([uid]) => arrivals.has(uid)).map(([uid, at]) => arrivals.get(uid) - at);
    return {
      plain_undici_posts_per_second: Math.round(plainPerSecond),
      svc_deliveries_per_second: Math.round(deliveredPerSecond),
      delivered,
      events_accepted: accepted,
      events_accepted_per_second: Math.round(accepted / acceptSeconds),
      ratio: round(deliveredPerSecond / plainPerSecond),
      send_to_message_sent_new_ms: { count: latencies.length, of: acceptedAt.size, p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)) },
    };
  } finally {
    await server?.stop();
    await rx.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
