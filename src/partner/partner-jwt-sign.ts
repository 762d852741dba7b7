import { createHash, createHmac } from 'node:crypto';
import type { Clock } from '../wire/clock.js';

/** The one algorithm a partner JWT may use (docs/api-behaviour.md). */
export const PARTNER_JWT_ALGORITHM = 'HS256';
/** Longest allowed span between nbf (or iat) and exp, in seconds. */
export const PARTNER_JWT_MAX_LIFETIME_SEC = 15 * 60;

/**
 * Audience of a webhook delivery's X-SVC-Signature. The Partner API refuses any token carrying it, so a
 * signature seen by a receiver, a relay or a log can never be replayed as a Partner API login.
 */
export const PARTNER_WEBHOOK_AUDIENCE = 'svc:partner-webhook';

const base64urlJson = (value: unknown): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/**
 * Signs a short-lived partner JWT (HS256; claims partner_id, iat, nbf, exp): the CLI's request credential and
 * the `X-SVC-Signature` of partner webhooks. Synchronous on purpose (HS256 is one HMAC), because the webhook
 * worker builds its headers synchronously; tests check jose and jsonwebtoken both accept what it makes.
 */
export function signPartnerJwt(
  partnerId: string,
  secret: string,
  clock: Clock,
  lifetimeSec = 300,
  extraClaims: Record<string, unknown> = {},
): string {
  if (!Number.isInteger(lifetimeSec) || lifetimeSec <= 0 || lifetimeSec > PARTNER_JWT_MAX_LIFETIME_SEC) {
    throw new RangeError(`lifetimeSec must be an integer in 1..${PARTNER_JWT_MAX_LIFETIME_SEC}`);
  }
  const nowSec = Math.floor(clock.now() / 1000);
  const claims = { ...extraClaims, partner_id: partnerId, iat: nowSec, nbf: nowSec, exp: nowSec + lifetimeSec };
  const signingInput = `${base64urlJson({ alg: PARTNER_JWT_ALGORITHM, typ: 'JWT' })}.${base64urlJson(claims)}`;
  return `${signingInput}.${createHmac('sha256', secret).update(signingInput).digest('base64url')}`;
}

/**
 * Headers of one partner webhook delivery (docs/api-behaviour.md). The JWT carries the webhook audience and `body_sha256` (hex) so a receiver
 * that checks it knows the signature belongs to this body; one that ignores it still gets partner_id, nbf, exp.
 */
export function partnerWebhookHeaders(
  partnerId: string,
  secret: string,
  clock: Clock,
  body: string,
): { 'X-SVC-Partner-Id': string; 'X-SVC-Signature': string } {
  const bodySha256 = createHash('sha256').update(body, 'utf8').digest('hex');
  return {
    'X-SVC-Partner-Id': partnerId,
    'X-SVC-Signature': signPartnerJwt(partnerId, secret, clock, 300, { aud: PARTNER_WEBHOOK_AUDIENCE, body_sha256: bodySha256 }),
  };
}
