/**
 * `/connect/{code}`: the QR connection page a partner's user opens (standalone, or `?display_mode=embedding`
 * in an iframe), and `/connect/{code}/events`, the Server-Sent Events that keep it current. No auth: the
 * link code is the credential. Rendering and the feed live in src/partner; this file only wires HTTP.
 */
import type { FastifyPluginAsync } from 'fastify';
import { startConnectFeed } from '../../../partner/connect-feed.js';
import { CONNECT_WAKE } from '../../../engine/partner/qr-links.js';
import { connectPageHeaders, connectPageMode, generateCspNonce, renderConnectPage, renderQrSvg } from '../../../partner/connect-page.js';
import { connectPath, pairingPayload, qrLinkState } from '../../../partner/pairing.js';
import { prefersHtml } from '../../server/accept.js';
import { goneLinkError, sendUnknownLink } from './connect-pages.js';
import { EVENT_STREAM_HEADERS, type RouteContext } from '../../server/route-context.js';
import { STREAMS_PER_LINK, clientStreamKey } from '../../server/stream-limits.js';

const codeParams = {
  type: 'object',
  required: ['code'],
  properties: { code: { type: 'string', minLength: 16, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' } },
} as const;

interface CodeParams {
  code: string;
}

/** Mounted at `/connect`. */
export const connectRoutes: FastifyPluginAsync<RouteContext> = async (app, ctx) => {
  const { engine } = ctx;
  // Open streams end when the server closes, so shutdown does not wait for browsers to hang up.
  const open = new Set<() => void>();
  app.addHook('preClose', (done) => {
    for (const end of open) end();
    done();
  });

  app.get<{ Params: CodeParams; Querystring: { display_mode?: string } }>(
    '/:code',
    // A malformed code (a link cut short when copied) is an unknown link, answered like one.
    { schema: { hide: true, params: codeParams }, attachValidation: true },
    async (request, reply) => {
      const { code } = request.params;
      const snapshot = request.validationError === undefined ? await engine.connect.snapshot(code) : null;
      // People open these links: a browser gets a page that says what happened, an API client the error body.
      if (snapshot === null) return sendUnknownLink(request, reply);
      const state = qrLinkState(snapshot.link, engine.clock.now());
      if ((state === 'expired' || state === 'revoked') && !prefersHtml(request)) throw goneLinkError(state);
      const mode = connectPageMode(request.query.display_mode);
      const nonce = generateCspNonce();
      const payload = state === 'waiting' ? pairingPayload(code, engine.clock.now()) : null;
      const html = renderConnectPage({
        code,
        mode,
        state,
        initialPairingPayload: payload,
        initialQrSvg: payload === null ? null : await renderQrSvg(payload),
        eventsUrl: `${connectPath(code)}/events`,
        phone: snapshot.phone,
        nonce,
      });
      // A link that can no longer connect is gone for good: 410, with the page saying so and what to do.
      const gone = state === 'expired' || state === 'revoked';
      return reply.code(gone ? 410 : 200).headers(connectPageHeaders({ mode, nonce })).send(html);
    },
  );

  app.get<{ Params: CodeParams }>(
    '/:code/events',
    // Counted by the per-minute limit when opened, and capped while open (stream-limits.ts).
    { schema: { hide: true, params: codeParams } },
    async (request, reply) => {
      const { code } = request.params;
      if ((await engine.connect.snapshot(code)) === null) return sendUnknownLink(request, reply);
      const release = ctx.streams.open([
        clientStreamKey(request.ip),
        { key: `link:${code}`, cap: STREAMS_PER_LINK, what: 'on this connection link' },
      ]);
      reply.hijack();
      reply.raw.writeHead(200, EVENT_STREAM_HEADERS);
      // The feed polls the database, so a scan made by another process (svc sim scan) shows up too.
      const feed = startConnectFeed({
        code,
        readLink: async () => engine.connect.snapshot(code),
        clock: engine.clock,
        send: (chunk) => void reply.raw.write(chunk),
        end: () => reply.raw.end(),
      });
      // A scan or revoke (here or on another replica) is shown at once rather than at the next poll.
      const unsubscribe = engine.onWake((topic) => {
        if (topic === CONNECT_WAKE || topic === '*') void feed.check().catch(() => undefined);
      });
      const end = () => {
        unsubscribe();
        release();
        feed.stop();
        open.delete(end);
        reply.raw.end();
      };
      open.add(end);
      request.raw.on('close', end);
      // The client may have hung up while the link was read: no close event will come for it any more.
      if (request.raw.socket?.destroyed === true) end();
    },
  );
};
