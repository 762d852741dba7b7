import { decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { Clock } from '../engine/clock.js';
import { SvcError } from '../engine/errors.js';
import { PARTNER_JWT_ALGORITHM, PARTNER_JWT_MAX_LIFETIME_SEC } from './partner-jwt-sign.js';

export { PARTNER_JWT_ALGORITHM, PARTNER_JWT_MAX_LIFETIME_SEC, signPartnerJwt } from './partner-jwt-sign.js';

/** Tolerated difference between the partner's clock and ours, in seconds. */
export const PARTNER_JWT_CLOCK_SKEW_SEC = 60;

/** Each way a partner request can fail authentication; the name appears in the 401 message and details. */
export type PartnerAuthRule =
  | 'missing_authorization'
  | 'missing_partner_id_header'
  | 'malformed_token'
  | 'algorithm_not_allowed'
  | 'unknown_partner'
  | 'invalid_signature'
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

/** Verifies a Partner API request (DESIGN.md 6) and returns the Partner ID, or throws SvcError('unauthorized'). */
export async function verifyPartnerRequest(auth: PartnerRequestAuth): Promise<string> {
  const token = bearerToken(auth.authorization);
  const partnerId = auth.partnerIdHeader?.trim();
  if (!partnerId) throw refuse('missing_partner_id_header', 'the X-SVC-Partner-Id header is missing');
  checkAlgorithm(token);

  const secret = await auth.lookupSecret(partnerId);
  if (secret === null) throw refuse('unknown_partner', `no partner has the id ${JSON.stringify(partnerId)}`);

  const nowSec = Math.floor(auth.clock.now() / 1000);
  const claims = await verifySignatureAndTimes(token, secret, nowSec);
  checkLifetime(claims, nowSec);
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
    return refuse('invalid_signature', 'the signature does not match the Partner Secret');
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

// A stolen short-lived token is worth little; one that lives for a day is a password. Measured from nbf
// (when the token starts to work), else iat, else from now (a token without either still may not outlive 15 min).
function checkLifetime(claims: JWTPayload, nowSec: number): void {
  const exp = claims.exp as number;
  const start = claims.nbf ?? claims.iat;
  const lifetime = start === undefined ? exp - nowSec : exp - start;
  const allowed = PARTNER_JWT_MAX_LIFETIME_SEC + (start === undefined ? PARTNER_JWT_CLOCK_SKEW_SEC : 0);
  if (lifetime > allowed) {
    const from = claims.nbf !== undefined ? 'nbf' : claims.iat !== undefined ? 'iat' : 'now';
    throw refuse('lifetime_too_long', `exp is ${lifetime} s after ${from}; at most ${PARTNER_JWT_MAX_LIFETIME_SEC} s allowed`);
  }
}
