/**
 * What every route group receives, and the few helpers routes share: the `ok` envelope and the
 * per-request workspace facade with the origin that download links start with.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Engine, WorkspaceApi } from '../../engine/engine-api.js';
import { workspaceIdOf } from '../routes/public/token-auth.js';
import { createStreamLimiter, type StreamLimiter } from './stream-limits.js';

/** Options handed to every route group plugin. */
export interface RouteContext {
  engine: Engine;
  /** Origin for links the server hands out (`--public-url`); the request's origin when absent. */
  publicUrl?: string | undefined;
  /** Largest accepted upload, in bytes. */
  fileLimitBytes?: number | undefined;
  /** Open event streams, counted across every route that serves them. */
  streams: StreamLimiter;
}

/** Only the route context of `options`: plugin options also hold Fastify's own (`prefix`), which groups must not repeat. */
export const routeContextOf = (options: Omit<RouteContext, 'streams'> & { streams?: StreamLimiter }): RouteContext => ({
  engine: options.engine,
  publicUrl: options.publicUrl,
  fileLimitBytes: options.fileLimitBytes,
  streams: options.streams ?? createStreamLimiter(),
});

/**
 * A group of routes registered as a Fastify plugin; groups inside `/api` inherit its auth and OpenAPI. Its
 * routes' `params`, `querystring` and `body` types come from their schemas (TypeBox's type provider), so a
 * handler's input type is the wire type the route validates with, never a second declaration.
 */
export type RouteGroup = FastifyPluginAsyncTypebox<RouteContext>;

/**
 * The success envelope `{ "status": "ok", "data": ... }`. It takes the answer, never a promise of it: the
 * engine is async, and `ok(api.x())` without `await` would otherwise type check and send `{}`.
 */
export const ok = <T>(data: T extends PromiseLike<unknown> ? never : T): { status: 'ok'; data: T } => ({ status: 'ok', data });

/** Headers of a Server-Sent Events stream; `x-accel-buffering` stops a reverse proxy from holding events back. */
export const EVENT_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

// A Host header is client input; anything but a plain host[:port] would end up inside links we hand out.
const SAFE_HOST = /^[A-Za-z0-9.-]+(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/;

/** The origin that links start with: the configured public URL, else protocol + Host of the request. */
export const linkBase = (request: FastifyRequest, publicUrl: string | undefined): string => {
  if (publicUrl !== undefined && publicUrl !== '') return publicUrl.replace(/\/+$/, '');
  const host = SAFE_HOST.test(request.host) ? request.host : 'localhost';
  return `${request.protocol}://${host}`;
};

/**
 * The engine's Public API facade for the authenticated workspace of this request (with the token its sends
 * check again, on a `tokenCheckedInWrite` route).
 */
export const workspaceApi = (ctx: RouteContext, request: FastifyRequest): WorkspaceApi =>
  ctx.engine.workspace(workspaceIdOf(request), {
    linkBase: linkBase(request, ctx.publicUrl),
    ...(request.checkedToken === null ? {} : { token: request.checkedToken }),
  });
