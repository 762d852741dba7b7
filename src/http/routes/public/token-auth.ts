/**
 * Bearer-token authentication of the Public API and `/sim`. Resolving the token and rejecting it are two
 * hooks on purpose: the rate limiter runs between them (route-level onRequest hooks follow instance-level
 * ones), so valid tokens are limited per token and guesses with bad tokens are limited per client address.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Engine } from '../../../engine/engine-api.js';
import { SvcError } from '../../../wire/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The workspace of a valid Public API token, set by the bearer auth hook. */
    workspaceId: number | null;
    /** Key of this caller's rate-limit bucket; auth hooks set it, the client address is the fallback. */
    rateLimitKey: string | null;
    /** The bearer token, on a route whose writes check it again (`tokenCheckedInWrite`): the engine needs it. */
    checkedToken: string | null;
  }
  interface FastifyContextConfig {
    /** Serve this route without a token (documents such as openapi.json). */
    skipAuth?: boolean;
    /**
     * The route's work is sends, which check the token again in their own transaction: the token may be let in
     * from the memory of tokens found live lately (`Engine.authenticate`'s `recall`), saving the lookup.
     */
    tokenCheckedInWrite?: boolean;
  }
}

// Real tokens are short; refusing long headers early keeps hashing cost bounded.
const MAX_TOKEN_LENGTH = 512;

/** Extracts the token of an `Authorization: Bearer <token>` header, or null. */
export const bearerToken = (header: string | undefined): string | null => {
  if (header === undefined || header.length > MAX_TOKEN_LENGTH + 7) return null;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1] ?? null;
};

/** Adds request decorations used by every auth scheme; call once on the root instance. */
export const decorateAuth = (app: FastifyInstance): void => {
  app.decorateRequest('workspaceId', null);
  app.decorateRequest('rateLimitKey', null);
  app.decorateRequest('checkedToken', null);
};

/** Requires a workspace bearer token on every route of `scope` (except routes with `config.skipAuth`). */
export const useBearerAuth = (scope: FastifyInstance, engine: Engine): void => {
  scope.addHook('onRequest', async (request) => {
    if (skips(request)) return;
    const token = bearerToken(request.headers.authorization);
    const recall = request.routeOptions.config.tokenCheckedInWrite === true;
    const workspaceId = token === null ? null : await engine.authenticate(token, { recall });
    if (token !== null && workspaceId !== null) {
      request.workspaceId = workspaceId;
      if (recall) request.checkedToken = token;
      // A workspace has one live token (a rotation revokes the old one), so its id is the token's bucket,
      // without hashing the token a second time or keeping anything of it in limiter memory.
      request.rateLimitKey = `workspace:${workspaceId}`;
    }
  });
  scope.addHook('preParsing', (request, reply, payload, done) => {
    if (skips(request) || request.workspaceId !== null) return done(null, payload);
    // Before the body is read: an unauthenticated caller cannot make the server parse a large upload.
    reply.header('www-authenticate', 'Bearer');
    done(new SvcError('unauthorized', 'The API token is missing or invalid'));
  });
};

const skips = (request: FastifyRequest): boolean => request.routeOptions.config.skipAuth === true;

/** The authenticated workspace of a request on a bearer-auth route. */
export const workspaceIdOf = (request: FastifyRequest): number => {
  if (request.workspaceId === null) throw new SvcError('unauthorized', 'The API token is missing or invalid');
  return request.workspaceId;
};
