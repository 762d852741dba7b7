/**
 * Webhook receivers for the fault tests, on 127.0.0.1 port 0: a good one that verifies every delivery with the
 * `standardwebhooks` package and records when each event arrived, and a hostile one that hangs, resets the
 * connection, answers slowly or trickles its answer, switchable between server runs.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { startReceiver, type Receiver } from './webhook-helpers.js';

/** One verified delivery the good receiver accepted. */
export interface GoodDelivery {
  eventType: string;
  uid: string;
  webhookId: string;
  /** Date.now() when the body had been read. */
  at: number;
}

export interface GoodReceiver {
  url: string;
  deliveries: GoodDelivery[];
  /** Requests whose signature, event type or body did not check out (answered 400). */
  rejected: string[];
  /** Signing secret per path (`/message:sent:new`), set once the subscriptions exist. */
  secrets: Map<string, string>;
  close(): Promise<void>;
}

/** Answers 200 at once to every delivery that standardwebhooks verifies; anything else gets a 400 and is noted. */
export async function startGoodReceiver(): Promise<GoodReceiver> {
  const deliveries: GoodDelivery[] = [];
  const rejected: string[] = [];
  const secrets = new Map<string, string>();
  const rx: Receiver = await startReceiver((req, res) => {
    try {
      const secret = secrets.get(req.url);
      if (secret === undefined) throw new Error(`no secret for ${req.url}`);
      const body = new Webhook(secret).verify(req.body, req.headers as Record<string, string>) as {
        event_type?: string;
        message?: { message_uid?: string };
      };
      const { event_type: eventType, message } = body;
      const uid = message?.message_uid;
      if (`/${eventType}` !== req.url || eventType === undefined || uid === undefined) throw new Error(`unexpected body ${req.body}`);
      deliveries.push({ eventType, uid, webhookId: String(req.headers['webhook-id']), at: Date.now() });
      res.end('ok');
    } catch (error) {
      rejected.push(`${req.url}: ${String(error)}`);
      res.writeHead(400).end();
    }
  });
  return { url: rx.url, deliveries, rejected, secrets, close: () => rx.close() };
}

export type HostileMode = 'hang' | 'reset' | 'slow' | 'trickle';
export const HOSTILE_MODES: readonly HostileMode[] = ['hang', 'reset', 'slow', 'trickle'];

export interface HostileReceiver {
  url: string;
  mode: HostileMode;
  /** Requests seen, and answers finished with a 200 (only `slow` finishes any). */
  requests: number;
  answered: number;
  inFlight: number;
  maxInFlight: number;
  close(): Promise<void>;
}

/**
 * hang: reads the request and never answers. reset: resets the TCP connection (RST) on the request.
 * slow: answers 200 after `slowMs` (default 4.5 s, inside svc's 5 s timeout). trickle: sends the status line
 * at once, then one body byte a second, for ever.
 */
export async function startHostileReceiver(mode: HostileMode, slowMs = 4500): Promise<HostileReceiver> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void, repeat = false) => {
    const timer = repeat ? setInterval(fn, ms) : setTimeout(fn, ms);
    timers.add(timer);
    return timer;
  };
  const state: Omit<HostileReceiver, 'url' | 'close'> = { mode, requests: 0, answered: 0, inFlight: 0, maxInFlight: 0 };
  const answer = (res: ServerResponse) => {
    switch (state.mode) {
      case 'hang':
        return;
      case 'reset':
        res.socket?.resetAndDestroy();
        return;
      case 'slow':
        later(slowMs, () => {
          if (!res.destroyed) res.end('ok', () => (state.answered += 1));
        });
        return;
      case 'trickle': {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const timer = later(1000, () => res.write('.'), true);
        res.once('close', () => clearInterval(timer));
      }
    }
  };
  const server = createServer((req, res) => {
    state.requests += 1;
    state.inFlight += 1;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    res.once('close', () => (state.inFlight -= 1));
    req.resume();
    req.once('end', () => answer(res));
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  });
}
