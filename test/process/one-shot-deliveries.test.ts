/**
 * A one-shot command never waits on a webhook receiver and never claims a delivery: with a receiver that
 * hangs, `svc sim receive`, `svc workspace`, `svc send --no-wait` and `svc trigger` each finish at once (the
 * last says who delivers), the receiver sees
 * nothing from them, and the server started afterwards delivers every event exactly once. Built binary,
 * on SQLite and on PostgreSQL.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { STORES } from '../contract/targets.js';
import { createTestDatabase } from '../support/postgres.js';
import { ProcessSandbox } from '../support/svc-process.js';

/** Generous for a loaded 2-core machine (a command takes ~0.2-0.4 s here); a claimed hanging delivery costs 5 s. */
const ONE_SHOT_BOUND_MS = 2000;

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A receiver that hangs every request until `answer()`, then answers 200 and records each webhook-id. */
async function switchableReceiver() {
  let answering = false;
  const hung: ServerResponse[] = [];
  const delivered: string[] = [];
  const server = createServer((req, res) => {
    req.resume().on('end', () => {
      if (!answering) {
        hung.push(res);
        return;
      }
      delivered.push(String(req.headers['webhook-id']));
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  );
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    hungRequests: () => hung.length,
    delivered,
    answer: () => {
      answering = true;
    },
  };
}

for (const store of STORES) {
  describe(`one-shot commands and webhook deliveries (${store})`, () => {
    it('with a hanging receiver each command finishes at once; the server later delivers each event exactly once', { timeout: 60_000 }, async () => {
      const box = new ProcessSandbox();
      cleanups.push(() => box.cleanup());
      const where = ['--data', box.tempDir()];
      let database: string | undefined;
      if (store === 'postgres') {
        const db = await createTestDatabase('one_shot');
        cleanups.push(() => db.drop());
        database = db.url;
        where.push('--database', db.url);
      }
      const receiver = await switchableReceiver();
      await box.ok(['webhooks', 'create', '--event', 'message:received:new', '--url', receiver.url, ...where, '--json']);

      const timings: Record<string, number> = {};
      const timed = async (name: string, args: string[]) => {
        const started = performance.now();
        const run = await box.ok([...args, ...where]);
        timings[name] = Math.round(performance.now() - started);
        return run;
      };
      // Each receive queues one delivery; every command after the first finds one due.
      await timed('sim receive', ['sim', 'receive', '--from', '+14155550100', '--to', '+15550000001', '--text', 'one']);
      await timed('workspace', ['workspace']);
      await timed('send --no-wait', ['send', '--phone', '+14155550123', '--text', 'Hi', '--no-wait']);
      await timed('sim receive 2', ['sim', 'receive', '--from', '+14155550100', '--to', '+15550000001', '--text', 'two']);
      const triggered = await timed('trigger', ['trigger', 'message:received:new']);
      expect(triggered.stderr).toMatch(/`svc serve` \(or `svc dev`\) on this data delivers it/);
      for (const [name, ms] of Object.entries(timings)) expect([name, ms < ONE_SHOT_BOUND_MS]).toEqual([name, true]);
      expect(receiver.hungRequests()).toBe(0);

      receiver.answer();
      const server = await box.serve(where[1]!, { args: ['--dev'], ...(database === undefined ? {} : { database }) });
      const deadline = Date.now() + 15_000;
      while (receiver.delivered.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      // A little longer: a delivery claimed twice would show up now.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await box.stop(server);
      expect(receiver.delivered).toHaveLength(3);
      expect(new Set(receiver.delivered).size).toBe(3);
      expect(receiver.hungRequests()).toBe(0);
      console.log(`one-shot commands with a hanging receiver (${store}), ms:`, JSON.stringify(timings));
    });
  });
}
