/**
 * `startSandbox()`: the whole service in the caller's process, for integration tests — the engine on a temporary
 * data directory and its HTTP server on 127.0.0.1, port 0, with a clock the test moves forward, the simulated
 * network, and a webhook receiver of its own. Each sandbox has its own directory, port, database and receiver,
 * so sandboxes run in parallel without seeing each other.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../wire/clock.js';
import { buildServer } from '../http/server/build-server.js';
import { createEngine } from '../runtime/create-engine.js';
import { openDatabase } from '../store/database.js';
import { SqliteDatabase } from '../store/sqlite-database.js';
import { verifyWebhook } from '../verify.js';
import type { SimScanResult } from '../wire/partner-types.js';
import type { SimAccountResult, SimReceiveResult } from '../wire/types.js';
import type { EventType, WebhookEventOf } from '../wire/webhook-events.js';
import { parseDuration } from './duration.js';

export interface SandboxOptions {
  /** Credits of the sandbox workspace per period (default 1000). */
  quota?: number;
  /** Delays before webhook retries, in ms (default 1000, 2000: a failing receiver does not slow tests down). */
  webhookRetryDelaysMs?: number[];
}

/**
 * A delivery the sandbox's own receiver got, verified against the subscription's secret; `payload` is typed
 * as the body of event `E` (`payload.message.text` of a `message:received:new`, for one).
 */
export interface SandboxDelivery<E extends EventType = EventType> {
  event: E;
  payload: WebhookEventOf<E>;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Sandbox {
  /** Public API base, e.g. http://127.0.0.1:41234/api. */
  apiUrl: string;
  /** Partner API base, e.g. http://127.0.0.1:41234/partner. */
  partnerUrl: string;
  /** A workspace of its own (no partner), with an API token. */
  workspace: { id: number; token: string };
  /** A partner's credentials, to sign Partner API requests with. */
  partner: { partnerId: string; partnerSecret: string };
  /** The service's clock: real time plus whatever the test advanced it by. */
  clock: { now(): number; advance(duration: string | number): Promise<void> };
  /** Connects a simulated messenger account to the sandbox workspace. */
  connectAccount(phone: string): Promise<SimAccountResult>;
  /** A contact writes to one of the workspace's accounts. */
  receiveMessage(input: { from: string; to: string; text?: string }): Promise<SimReceiveResult>;
  /** A simulated phone scans a partner QR link (as `svc sim scan` does). */
  scanQr(link: string, phone: string): Promise<SimScanResult>;
  /**
   * The next delivery of `event` to the sandbox workspace, at the sandbox's own receiver, with its signature
   * verified. The first call for an event subscribes the receiver to it (visible in GET /api/webhooks).
   */
  nextDelivery<E extends EventType>(options: { event: E; timeoutMs?: number }): Promise<SandboxDelivery<E>>;
  stop(): Promise<void>;
}

/** A clock that runs with real time, plus an offset the test adds to. */
class AdvancingClock implements Clock {
  private offset = 0;
  now(): number {
    return Date.now() + this.offset;
  }
  advance(ms: number): void {
    this.offset += ms;
  }
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sandbox-'));
  const clock = new AdvancingClock();
  const engine = createEngine({
    database: new SqliteDatabase(openDatabase(join(dir, 'svc.db'))),
    clock,
    config: { dev: true, webhookRetryDelaysMs: options.webhookRetryDelaysMs ?? [1000, 2000] },
  });
  const app = buildServer({ engine, rateLimitPerMinute: 0 });
  const receiver = await startReceiver();
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
  } catch (error) {
    await Promise.all([receiver.close(), engine.close()]);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  engine.usePublicUrl(origin);
  engine.workers.start();

  const { workspace_id: id, token } = await engine.admin.createWorkspace({ name: 'Sandbox', quota: options.quota ?? 1000 });
  const partner = await engine.admin.createPartner({ name: 'Sandbox partner' });
  // event -> its subscription's secret; the promise is kept so that concurrent first calls subscribe once.
  const subscriptions = new Map<string, Promise<string>>();
  // `nextDelivery` is often called without await before the action that causes the event: the sandbox's own
  // actions wait for the subscriptions asked for so far, so the event is never emitted before them.
  const subscribed = async (): Promise<void> => {
    await Promise.allSettled(subscriptions.values());
  };

  let stopped: Promise<void> | undefined;
  return {
    apiUrl: `${origin}/api`,
    partnerUrl: `${origin}/partner`,
    workspace: { id, token },
    partner: { partnerId: partner.partner_id, partnerSecret: partner.partner_secret },
    clock: {
      now: () => clock.now(),
      async advance(duration) {
        await subscribed();
        clock.advance(parseDuration(duration));
        await engine.workers.runDue(); // what became due runs now, not at the next poll
      },
    },
    connectAccount: async (phone) => {
      await subscribed();
      return engine.sim(id).connect({ phone });
    },
    receiveMessage: async (input) => {
      await subscribed();
      return engine.sim(id).receive(input);
    },
    scanQr: async (link, phone) => {
      await subscribed();
      return engine.connect.scan({ qr_link: link, phone });
    },
    async nextDelivery({ event, timeoutMs = 5000 }) {
      let secret = subscriptions.get(event);
      if (secret === undefined) {
        secret = engine
          .webhooks(id)
          .create({ event_type: event, url: `${receiver.url}/${encodeURIComponent(event)}` })
          .then((created) => created.secret);
        subscriptions.set(event, secret);
        // A refused subscription is not kept: the next call tries again (and this one rejects with the reason).
        secret.catch(() => subscriptions.delete(event));
      }
      const signingSecret = await secret;
      const delivery = await receiver.next(event, timeoutMs);
      const payload = verifyWebhook({ secret: signingSecret, headers: delivery.headers, body: delivery.body, nowMs: clock.now(), event });
      return { ...delivery, event, payload };
    },
    stop() {
      stopped ??= (async () => {
        await app.close();
        await engine.close();
        await receiver.close();
        rmSync(dir, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** The sandbox's webhook receiver: answers 200 and queues each body by event (its path), for `next`. */
async function startReceiver() {
  const queued = new Map<string, Received[]>();
  const waiting = new Map<string, Array<(delivery: Received) => void>>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.end('ok');
      const event = decodeURIComponent((req.url ?? '/').slice(1));
      const delivery = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const waiter = waiting.get(event)?.shift();
      if (waiter !== undefined) waiter(delivery);
      else queued.set(event, [...(queued.get(event) ?? []), delivery]);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    next(event: string, timeoutMs: number): Promise<Received> {
      const ready = queued.get(event)?.shift();
      if (ready !== undefined) return Promise.resolve(ready);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.set(event, (waiting.get(event) ?? []).filter((w) => w !== take));
          reject(new Error(`no ${event} delivery within ${timeoutMs} ms`));
        }, timeoutMs);
        const take = (delivery: Received) => {
          clearTimeout(timer);
          resolve(delivery);
        };
        waiting.set(event, [...(waiting.get(event) ?? []), take]);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
