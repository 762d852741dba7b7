/**
 * Authentication of the Partner API: a fresh HS256 JWT plus `X-SVC-Partner-Id` on every request, checked by
 * verifyPartnerRequest (docs/api-behaviour.md). Unlike the Public API, a refusal is a 401 WITH an error body naming
 * the rule that failed, so a partner integrating for the first time sees what to fix.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Engine, PartnerApi } from '../../../engine/engine-api.js';
import { SvcError } from '../../../wire/errors.js';
import { verifyPartnerRequest } from '../../../partner/partner-jwt.js';
import { errorBody, toSvcError } from '../../server/errors.js';
import { linkBase, type RouteContext } from '../../server/route-context.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The Partner ID of a verified Partner API request. */
    partnerId: string | null;
    /** Why partner authentication failed; raised before the body is parsed. */
    partnerAuthError: unknown;
  }
}

/** Header carrying the Partner ID (docs/api-behaviour.md). */
export const PARTNER_ID_HEADER = 'x-svc-partner-id';

/**
 * Requires a valid partner JWT on every route of `scope` (except `config.skipAuth` ones, e.g. openapi.json).
 * Verifying and refusing are two hooks, as in the Public API: the rate limiter runs between them, so a
 * verified partner is limited per Partner ID and failed attempts per client address.
 */
export function usePartnerAuth(scope: FastifyInstance, engine: Engine): void {
  scope.decorateRequest('partnerId', null);
  scope.decorateRequest('partnerAuthError', null);
  scope.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.skipAuth === true) return;
    const header = request.headers[PARTNER_ID_HEADER];
    try {
      request.partnerId = await verifyPartnerRequest({
        authorization: request.headers.authorization,
        partnerIdHeader: Array.isArray(header) ? header[0] : header,
        lookupSecret: (partnerId) => engine.partners.secretOf(partnerId),
        clock: engine.clock,
      });
      request.rateLimitKey = `partner:${request.partnerId}`;
    } catch (error) {
      request.partnerAuthError = error;
    }
  });
  // Before the body is read: an unauthenticated caller cannot make the server parse anything.
  scope.addHook('preParsing', async (request, _reply, payload) => {
    if (request.partnerAuthError !== null) throw request.partnerAuthError;
    return payload;
  });
  scope.setErrorHandler((error: unknown, _request: FastifyRequest, reply: FastifyReply) => {
    const mapped = toSvcError(error);
    // Anything else goes to the server's handler (its 500 logging included).
    if (mapped?.code !== 'unauthorized') throw error;
    const rule = typeof mapped.details?.['rule'] === 'string' ? mapped.details['rule'] : 'unauthorized';
    reply.header('www-authenticate', 'Bearer error="invalid_token"');
    return reply.code(401).send({ ...errorBody(mapped), rule });
  });
}

/** The verified Partner ID of a request on a partner route. */
export function partnerIdOf(request: FastifyRequest): string {
  if (request.partnerId === null) throw new SvcError('unauthorized', 'Partner request not authenticated', { details: { rule: 'missing_authorization' } });
  return request.partnerId;
}

/** The engine's Partner API of the verified partner of this request; QR links start at the link base. */
export const partnerApi = (ctx: RouteContext, request: FastifyRequest): PartnerApi =>
  ctx.engine.partner(partnerIdOf(request), { linkBase: linkBase(request, ctx.publicUrl) });
