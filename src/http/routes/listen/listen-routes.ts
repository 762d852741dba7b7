/**
 * `svc webhooks listen` sessions (Public API), and the same routes under /partner for `svc partner webhooks
 * listen`. A listener has no public URL, so instead of POSTing, the server
 * pushes the session's deliveries down a Server-Sent Events stream that the listener opened, and the listener
 * posts back what its local app answered. Leases make it at-least-once: a delivery pushed on a stream that
 * dropped is pushed again on the next one.
 */
import {
  ListenClosedDto,
  ListenReportDto,
  ListenResultInput,
  ListenSecretDto,
  ListenSessionDto,
} from '../../../wire/listen-types.js';
import { EVENT_TYPES } from '../../../wire/webhook-events.js';
import { startListenFeed } from '../../../webhooks/listen-feed.js';
import { WEBHOOKS_WAKE } from '../../../engine/webhooks/runtime.js';
import type { FastifyRequest } from 'fastify';
import type { ListenSessionsApi } from '../../../engine/webhooks/listen-sessions.js';
import { workspaceIdOf } from '../public/token-auth.js';
import { EVENT_STREAM_HEADERS, type RouteContext, type RouteGroup, ok } from '../../server/route-context.js';
import { responses as publicResponses } from '../../schemas/common-schemas.js';
import { listenOpenBody, sessionParams } from '../../schemas/webhook-schemas.js';
import type { ResponsesOf } from '../webhooks/webhook-routes.js';
import { STREAMS_PER_LISTEN_SESSION, clientStreamKey } from '../../server/stream-limits.js';

const tags = ['webhooks listen'];

/** Results one token may post a minute: room for 100 forwarded deliveries a second. */
export const LISTEN_RESULTS_PER_MINUTE = 6_000;

/** How a route finds the listen sessions of the authenticated caller (a workspace, or a partner). */
export type ListenScopeOf = (ctx: RouteContext, request: FastifyRequest) => ListenSessionsApi;

/**
 * POST /webhooks/listen, GET /webhooks/listen/secret, GET /webhooks/listen/:id/stream, POST .../results,
 * DELETE .../:id, over any scope: `/api` mounts them for the token's workspace, `/partner` for the partner.
 */
export const listenRouteGroup = (scopeOf: ListenScopeOf, events: readonly string[], responses: ResponsesOf = publicResponses): RouteGroup => async (app, ctx) => {
  const listen = (request: FastifyRequest) => scopeOf(ctx, request);
  // Open streams end when the server closes, so shutdown does not wait for listeners to hang up.
  const open = new Set<() => void>();
  app.addHook('preClose', (done) => {
    for (const end of [...open]) end();
    done();
  });

  app.get(
    '/webhooks/listen/secret',
    {
      schema: {
        tags,
        operationId: 'getListenSecret',
        summary: 'The signing secret of this workspace\'s listeners (the same for every session)',
        response: responses(ListenSecretDto),
      },
    },
    async (request) => ok(await listen(request).secret()),
  );

  app.post(
    '/webhooks/listen',
    {
      schema: {
        tags,
        operationId: 'openListenSession',
        summary: 'Open a listen session: one listener subscription per event (default: all workspace events)',
        body: listenOpenBody(events),
        response: responses(ListenSessionDto),
      },
    },
    async (request) => ok(await listen(request).open(request.body ?? {})),
  );

  app.get(
    '/webhooks/listen/:id/stream',
    {
      schema: {
        tags,
        operationId: 'streamListenSession',
        summary: 'Server-Sent Events: `ready`, then `delivery` per due delivery (signed), `heartbeat`, `closed`',
        params: sessionParams,
      },
      // Counted by the per-minute limit when opened, and capped while open (stream-limits.ts).
    },
    async (request, reply) => {
      const api = listen(request);
      const { id } = await api.get(request.params.id); // not_found answers with the error body, before the stream starts
      const release = ctx.streams.open([
        clientStreamKey(request.ip),
        { key: `listen:${id}`, cap: STREAMS_PER_LISTEN_SESSION, what: 'on this listen session' },
      ]);
      // Only one stream serves a session: whatever an earlier (dropped) stream held is handed out again now.
      try {
        await api.takeOver(id);
      } catch (error) {
        release();
        throw error;
      }
      reply.hijack();
      reply.raw.writeHead(200, EVENT_STREAM_HEADERS);
      const feed = startListenFeed({
        sessionId: id,
        claim: () => api.claim(id),
        send: (chunk) => reply.raw.write(chunk),
        end: () => reply.raw.end(),
        onError: (error) => request.log.error({ err: error }, 'listen stream poll failed'),
      });
      reply.raw.on('drain', () => feed.drained());
      // Deliveries queued here or on another replica reach the stream at once, not at the next poll.
      const unsubscribe = ctx.engine.onWake((topic) => {
        if (topic === WEBHOOKS_WAKE || topic === '*') feed.poke();
      });
      const end = () => {
        unsubscribe();
        release();
        open.delete(end);
        feed.stop();
      };
      open.add(end);
      request.raw.on('close', end);
      reply.raw.on('close', end);
      // The client may have hung up while the session was read: no close event will come for it any more.
      if (request.raw.socket?.destroyed === true) end();
    },
  );

  app.post(
    '/webhooks/listen/:id/results',
    {
      schema: {
        tags,
        operationId: 'reportListenResult',
        summary: 'Record what the local app answered as the attempt of one delivery',
        params: sessionParams,
        body: ListenResultInput,
        response: responses(ListenReportDto),
      },
      // Outside the per-minute limit: a busy workspace must not lose results to it, which would only cause
      // duplicate forwards later. Bounded by design instead: the engine takes a result only for a delivery it
      // pushed to this session and has not heard back about (at most LISTEN_IN_FLIGHT_CAP); anything else is a
      // 409. A bucket of its own, 10x the default limit, still caps what a client sending bogus results costs.
      config: { rateLimit: { max: LISTEN_RESULTS_PER_MINUTE, timeWindow: 60_000 } },
    },
    async (request) => ok(await listen(request).report(request.params.id, request.body)),
  );

  app.delete(
    '/webhooks/listen/:id',
    {
      schema: {
        tags,
        operationId: 'closeListenSession',
        summary: 'Close a listen session: its subscriptions and their deliveries are removed',
        params: sessionParams,
        response: responses(ListenClosedDto),
      },
    },
    async (request) => ok(await listen(request).close(request.params.id)),
  );
};

/** The Public API's listen routes: the sessions of the token's workspace. */
export const listenRoutes: RouteGroup = listenRouteGroup((ctx, request) => ctx.engine.listen(workspaceIdOf(request)), EVENT_TYPES);
