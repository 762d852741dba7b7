import type { ServerResponse } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  CONNECT_EVENTS_HEADERS,
  connectEventsPreamble,
  formatConnectEvent,
  type ConnectEvent,
} from '../../src/partner/connect-events.js';
import {
  connectPageHeaders,
  connectPageMode,
  generateCspNonce,
  renderConnectPage,
  renderQrSvg,
} from '../../src/partner/connect-page.js';
import { pairingPayload } from '../../src/partner/pairing.js';

/** A stand-in for `svc serve`'s connect routes: real page rendering, and an SSE feed the test drives by hand. */
export interface FakeConnectServer {
  origin: string;
  /** Sends one event to every open stream of a link. */
  push(code: string, event: ConnectEvent): void;
  /** Open event streams of a link right now. */
  streamCount(code: string): number;
  /** Resolves once a link has at least one open stream (the page's EventSource is listening). */
  waitForStream(code: string): Promise<void>;
  close(): Promise<void>;
}

/** Starts the fake connect server on 127.0.0.1, port 0. */
export async function startFakeConnectServer(): Promise<FakeConnectServer> {
  const streams = new Map<string, Set<ServerResponse>>();
  const app: FastifyInstance = Fastify();

  app.get<{ Params: { code: string }; Querystring: { display_mode?: string } }>('/connect/:code', async (request, reply) => {
    const { code } = request.params;
    const mode = connectPageMode(request.query.display_mode);
    const nonce = generateCspNonce();
    const payload = pairingPayload(code, Date.now());
    const html = renderConnectPage({
      code,
      mode,
      state: 'waiting',
      initialQrSvg: await renderQrSvg(payload),
      initialPairingPayload: payload,
      eventsUrl: `/connect/${encodeURIComponent(code)}/events`,
      nonce,
    });
    return reply.headers(connectPageHeaders({ mode, nonce })).send(html);
  });

  app.get<{ Params: { code: string } }>('/connect/:code/events', (request, reply) => {
    const { code } = request.params;
    reply.hijack();
    reply.raw.writeHead(200, CONNECT_EVENTS_HEADERS);
    reply.raw.write(connectEventsPreamble());
    const set = streams.get(code) ?? new Set<ServerResponse>();
    streams.set(code, set);
    set.add(reply.raw);
    request.raw.on('close', () => set.delete(reply.raw));
  });

  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');

  return {
    origin: `http://127.0.0.1:${address.port}`,
    push(code, event) {
      for (const response of streams.get(code) ?? []) response.write(formatConnectEvent(event));
    },
    streamCount: (code) => streams.get(code)?.size ?? 0,
    async waitForStream(code) {
      for (let waited = 0; (streams.get(code)?.size ?? 0) === 0; waited += 20) {
        if (waited > 10_000) throw new Error(`no event stream opened for ${code}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      for (const set of streams.values()) for (const response of set) response.end();
      await app.close();
    },
  };
}

/** A partner's own site on another origin, embedding the connect page and recording what it posts. */
export async function startParentSite(): Promise<{ origin: string; close(): Promise<void> }> {
  const app = Fastify();
  app.get<{ Querystring: { src: string } }>('/partner-app', async (request, reply) => {
    const src = request.query.src.replace(/"/g, '&quot;');
    // The listener is registered before the iframe exists, so not even the first message can be missed.
    const html = `<!doctype html><html><head><title>Partner app</title><link rel="icon" href="data:,"></head><body>
<script>window.svcMessages = []; window.addEventListener('message', function (e) {
  window.svcMessages.push({ origin: e.origin, data: e.data }); });</script>
<iframe id="connect" src="${src}" width="320" height="380"></iframe></body></html>`;
    return reply.type('text/html; charset=utf-8').send(html);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { origin: `http://127.0.0.1:${address.port}`, close: () => app.close() };
}
