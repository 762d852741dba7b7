import { randomBytes } from 'node:crypto';

/** A partner's credentials as handed out by `svc admin partner create`. */
export interface PartnerCredentials {
  partner_id: string;
  partner_secret: string;
}

/** Prefix of every Partner ID, so one is recognisable in logs and headers. */
export const PARTNER_ID_PREFIX = 'ptn_';
/** Prefix of every Partner Secret, so secret scanners can spot a leaked one. */
export const PARTNER_SECRET_PREFIX = 'pts_';

/**
 * New Partner ID and Secret. The secret carries 256 random bits (HS256 wants a key at least as long as its
 * hash); it is stored as-is because HMAC verification needs the key itself, unlike a hashed API token.
 */
export function generatePartnerCredentials(): PartnerCredentials {
  return {
    partner_id: PARTNER_ID_PREFIX + randomBytes(9).toString('base64url'),
    partner_secret: PARTNER_SECRET_PREFIX + randomBytes(32).toString('base64url'),
  };
}

/** True when the text has the shape of a Partner ID (a cheap check before any lookup). */
export const looksLikePartnerId = (value: string): boolean => /^ptn_[A-Za-z0-9_-]{8,64}$/.test(value);
