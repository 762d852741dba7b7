import { randomBytes } from 'node:crypto';
import { decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { Clock } from '../wire/clock.js';
import { SvcError } from '../wire/errors.js';
import { PARTNER_JWT_ALGORITHM, PARTNER_JWT_MAX_LIFETIME_SEC, PARTNER_WEBHOOK_AUDIENCE } from './partner-jwt-sign.js';

export { PARTNER_JWT_ALGORITHM, PARTNER_JWT_MAX_LIFETIME_SEC, PARTNER_WEBHOOK_AUDIENCE, signPartnerJwt } from './partner-jwt-sign.js';

/** Tolerated difference between the partner's clock and ours, in seconds. */
export const PARTNER_JWT_CLOCK_SKEW_SEC = 60;

/** Each way a partner request can fail authentication; the name appears in the 401 message and details. */
export type PartnerAuthRule =
  | 'missing_authorization'
  | 'missing_partner_id_header'
  | 'malformed_token'
  | 'algorithm_not_allowed'
  | 'invalid_credentials'
  | 'webhook_signature_not_accepted'
  | 'exp_required'
  | 'expired'
  | 'not_yet_valid'
  | 'lifetime_too_long'
  | 'partner_id_claim_missing'
  | 'partner_id_mismatch';

/** Inputs of one Partner API request's authentication. */
export interface PartnerRequestAuth {
  /** The raw `Authorization` header, expected `Bearer <JWT>`. */
  authorization: string | undefined;
  /** The raw `X-SVC-Partner-Id` header. */
  partnerIdHeader: string | undefined;
  /** The Partner Secret of a Partner ID, or null when no such partner exists. */
  lookupSecret: (partnerId: string) => string | null | Promise<string | null>;
  clock: Clock;
}

const refuse = (rule: PartnerAuthRule, message: string): SvcError =>
  new SvcError('unauthorized', `Partner JWT refused (${rule}): ${message}`, {
    details: { rule },
    hint: 'Sign a fresh HS256 JWT with your Partner Secret (claims partner_id, exp) and send X-SVC-Partner-Id.',
  });

const secretKey = (secret: string): Uint8Array => new TextEncoder().encode(secret);

const UNKNOWN_PARTNER_SECRET = randomBytes(32).toString('base64url');

const invalidCredentials = (): SvcError =>
  refuse('invalid_credentials', 'the Partner ID and the signature do not match a partner');

const isWebhookSignature = (claims: JWTPayload): boolean =>
  claims.aud === PARTNER_WEBHOOK_AUDIENCE || (Array.isArray(claims.aud) && claims.aud.includes(PARTNER_WEBHOOK_AUDIENCE));

/** Verifies a Partner API request (docs/api-behaviour.md) and returns the Partner ID, or throws SvcError('unauthorized'). */
export async function verifyPartnerRequest(auth: PartnerRequestAuth): Promise<string> {
  const token = bearerToken(auth.authorization);
  const partnerId = auth.partnerIdHeader?.trim();
  if (!partnerId) throw refuse('missing_partner_id_header', 'the X-SVC-Partner-Id header is missing');
  checkAlgorithm(token);

  // An unknown Partner ID is verified against a throw-away secret and refused exactly like a bad signature,
  // in the same time, so partner ids cannot be enumerated.
  const secret = await auth.lookupSecret(partnerId);
  const nowSec = Math.floor(auth.clock.now() / 1000);
  const claims = await verifySignatureAndTimes(token, secret ?? UNKNOWN_PARTNER_SECRET, nowSec);
  if (secret === null) throw invalidCredentials();
  checkLifetime(claims, nowSec);
  if (isWebhookSignature(claims)) {
    throw refuse('webhook_signature_not_accepted', 'this is the X-SVC-Signature of a webhook delivery, which only proves a delivery came from svc; sign an API token of your own');
  }
  if (typeof claims.partner_id !== 'string' || claims.partner_id === '') {
    throw refuse('partner_id_claim_missing', 'the token has no string "partner_id" claim');
  }
  if (claims.partner_id !== partnerId) {
    throw refuse('partner_id_mismatch', 'the "partner_id" claim does not equal the X-SVC-Partner-Id header');
  }
  return partnerId;
}

function bearerToken(authorization: string | undefined): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match?.[1]) throw refuse('missing_authorization', 'expected the header "Authorization: Bearer <JWT>"');
  return match[1];
}

// Checked before the secret is looked up so `none`, RS256 and friends are named as such, whatever the partner.
function checkAlgorithm(token: string): void {
  let alg: unknown;
  try {
    alg = decodeProtectedHeader(token).alg;
  } catch {
    throw refuse('malformed_token', 'the token is not a compact JWS (header.payload.signature)');
  }
  if (alg !== PARTNER_JWT_ALGORITHM) {
    throw refuse('algorithm_not_allowed', `algorithm ${JSON.stringify(alg ?? null)} is not allowed, only HS256`);
  }
}

async function verifySignatureAndTimes(token: string, secret: string, nowSec: number): Promise<JWTPayload> {
  try {
    const { payload } = await jwtVerify(token, secretKey(secret), {
      algorithms: [PARTNER_JWT_ALGORITHM],
      currentDate: new Date(nowSec * 1000),
      clockTolerance: PARTNER_JWT_CLOCK_SKEW_SEC,
      requiredClaims: ['exp'],
    });
    return payload;
  } catch (error) {
    throw translateJoseError(error);
  }
}

function translateJoseError(error: unknown): SvcError {
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) {
    return invalidCredentials();
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed) {
    return refuse('algorithm_not_allowed', 'only HS256 is allowed');
  }
  if (error instanceof joseErrors.JWTExpired) {
    return refuse('expired', `the token has expired (exp is past, ${PARTNER_JWT_CLOCK_SKEW_SEC} s clock skew allowed)`);
  }
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'exp' && error.reason === 'missing') return refuse('exp_required', 'the "exp" claim is required');
    if (error.claim === 'nbf' && error.reason === 'check_failed') {
      return refuse('not_yet_valid', `the token is not valid yet (nbf is in the future beyond ${PARTNER_JWT_CLOCK_SKEW_SEC} s of skew)`);
    }
    return refuse('malformed_token', `the "${error.claim}" claim is invalid: ${error.message}`);
  }
  return refuse('malformed_token', 'the token could not be decoded');
}

// A stolen short-lived token is worth little; one that lives for a day is a password. exp may lie at most the
// allowed lifetime (plus skew) after now, whatever iat and nbf claim, and at most the lifetime after nbf or iat.
function checkLifetime(claims: JWTPayload, nowSec: number): void {
  const exp = claims.exp as number;
  const fromNow = exp - nowSec;
  if (fromNow > PARTNER_JWT_MAX_LIFETIME_SEC + PARTNER_JWT_CLOCK_SKEW_SEC) {
    throw refuse('lifetime_too_long', `exp is ${fromNow} s after now; at most ${PARTNER_JWT_MAX_LIFETIME_SEC} s allowed`);
  }
  const start = claims.nbf ?? claims.iat;
  if (start !== undefined && exp - start > PARTNER_JWT_MAX_LIFETIME_SEC) {
    const from = claims.nbf !== undefined ? 'nbf' : 'iat';
    throw refuse('lifetime_too_long', `exp is ${exp - start} s after ${from}; at most ${PARTNER_JWT_MAX_LIFETIME_SEC} s allowed`);
  }
}
