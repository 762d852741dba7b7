// Webhook delivery in `npm run bench`. Every party has a process of its own: the receiver
// (bench/receiver.mjs), the baseline loop (bench/plain-loop.mjs), the mixed loader (bench/mixed-loader.mjs)
// and `svc serve`. Bounded in count and in time; loopback only.
//  - throughput: a queue of EVENTS deliveries drained by svc into the receiver, against the plain undici loop
//    with the same 8 requests in flight into the same receiver process. Both run ROUNDS times, alternating
//    (plain, svc, plain, svc, ...), and the median of the per-round ratios is reported beside every round: on
//    a shared virtual machine either side alone varied by a factor of 1.5 from one run to the next;
//  - mixed load: about 400 requests/s of sends, incoming messages and reads over 4 workspaces whose
//    subscriptions all point at a healthy receiver; p50/p99 from a send (or an incoming message) being posted
//    to its first webhook arriving, and how many deliveries are still queued when the load stops.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { call, startServer, waitFor } from './lib.mjs';
import { benchWorkspace, mixedLoad } from './webhook-latency.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const run = promisify(execFile);
const round2 = (n) => Math.round(n * 100) / 100;
const IN_FLIGHT = 8;

/**
 * One drain: `events` deliveries queued while the receiver holds every request, then the gate opens and the
 * drain is timed from the opening to the last arrival. Returns deliveries per second.
 */
export async function drainOnce(server, one, receiver, events, round, seconds) {
  await call(`${receiver.url}/__reset`, { method: 'POST' });
  await call(`${receiver.url}/__gate/close`, { method: 'POST' });
  for (let i = 0; i < events; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, events - i) }, (_, j) =>
      call(`${server.url}/sim/messages`, { method: 'POST', token: one.token, body: { from: `+4915${String(100_000_000 + round * events + i + j)}`, to: one.phone, text: `q${i + j}` } })));
  }
  // The requests held at the gate (one per slot) arrived already; the drain is what comes after the opening.
  const held = (await call(`${receiver.url}/__stats`)).count;
  await call(`${receiver.url}/__reset`, { method: 'POST' });
  const opened = await call(`${receiver.url}/__gate/open`, { method: 'POST' });
  const drained = await waitFor(async () => {
    const stats = await call(`${receiver.url}/__stats`);
    return stats.count >= events - held ? stats : undefined;
  }, performance.now() + 6 * seconds * 1000) ?? (await call(`${receiver.url}/__stats`));
  return drained.count / ((drained.last_ms - opened.opened_ms) / 1000);
}

export async function measureWebhooks(svc, { seconds = 10 } = {}) {
  const events = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10000);
  const mixedRate = Number(process.env.BENCH_MIXED_RATE ?? 400);
  const drainRounds = Number(process.env.BENCH_DRAIN_ROUNDS ?? 3);
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-hooks-'));
  const receiver = await startServer(process.execPath, [join(here, 'receiver.mjs')]);
  let server;
  try {
    server = await startServer(process.execPath, [svc, 'serve', '--port', '0', '--dev', '--data', dataDir, '--rate-limit', '100000000']);
    const one = await benchWorkspace(svc, ['--data', dataDir], server, 'Drain', '+15550007001', ['message:received:new'], receiver.url);
    const rounds = [];
    for (let round = 0; round < drainRounds; round += 1) {
      // Baseline: the plain loop, 8 in flight, from its own process into the receiver process.
      const plain = JSON.parse((await run(process.execPath, [join(here, 'plain-loop.mjs'), `${receiver.url}/plain`, String(IN_FLIGHT), String(events), String(seconds)])).stdout);
      const svcPerSecond = await drainOnce(server, one, receiver, events, round, seconds);
      rounds.push({ plain_per_second: Math.round(plain.per_second), svc_per_second: Math.round(svcPerSecond), ratio: round2(svcPerSecond / plain.per_second) });
    }
    const median = (values) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];

    // Mixed load over 4 fresh workspaces, all subscribed to the message events, one healthy receiver
    // (bench/webhook-latency.mjs runs the same on both stores and several builds).
    const mixed = await mixedLoad(svc, ['--data', dataDir], server, receiver, { seconds, rate: mixedRate });
    return {
      in_flight: IN_FLIGHT,
      queued_per_round: events,
      rounds,
      plain_undici_posts_per_second: median(rounds.map((r) => r.plain_per_second)),
      svc_deliveries_per_second: median(rounds.map((r) => r.svc_per_second)),
      ratio: median(rounds.map((r) => r.ratio)),
      mixed_load: mixed,
    };
  } finally {
    await server?.stop();
    await receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
