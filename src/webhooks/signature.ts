import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Standard Webhooks 1.0 signatures (https://www.standardwebhooks.com): any receiver using a Standard
 * Webhooks library (the `standardwebhooks` npm package, svix, ...) verifies what we sign here.
 */

/** Randomness as a dependency: returns `size` random bytes. */
export type RandomBytes = (size: number) => Buffer;

export const SECRET_PREFIX = 'whsec_';
/** How far a `webhook-timestamp` may be from now, either way; the value Standard Webhooks libraries use. */
export const SIGNATURE_TOLERANCE_SECONDS = 5 * 60;

/** A new per-subscription secret: `whsec_` + base64 of 24 random bytes. */
export function generateSecret(random: RandomBytes = randomBytes): string {
  return SECRET_PREFIX + random(24).toString('base64');
}

/** A new `webhook-id`: `msg_` + 32 hex digits. A redelivery reuses the id so receivers can deduplicate. */
export function generateMessageId(random: RandomBytes = randomBytes): string {
  return `msg_${random(16).toString('hex')}`;
}

export interface SignInput {
  secret: string;
  msgId: string;
  /** Unix time in seconds, as sent in `webhook-timestamp`. */
  timestamp: number;
  /** The exact bytes that are sent; re-serialising JSON would break the signature. */
  body: string;
}

/** The headers every signed delivery carries. */
export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** `v1,` + base64 HMAC-SHA256 of `msgId.timestamp.body`, keyed with the decoded secret. */
export function sign(input: SignInput): string {
  const mac = createHmac('sha256', secretKey(input.secret))
    .update(`${input.msgId}.${Math.floor(input.timestamp)}.${input.body}`, 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers for one delivery attempt. */
export function signedHeaders(input: SignInput): SignedHeaders {
  return {
    'webhook-id': input.msgId,
    'webhook-timestamp': String(Math.floor(input.timestamp)),
    'webhook-signature': sign(input),
  };
}

export interface VerifyInput {
  secret: string;
  body: string;
  /** Request headers; names are matched case-insensitively, as Node and undici hand them over. */
  headers: Record<string, string | string[] | undefined>;
  /** The verifier's current time in milliseconds (a Clock's `now()`). */
  nowMs: number;
  toleranceSeconds?: number;
}

export type VerifyResult =
  | { valid: true; msgId: string; timestamp: number }
  | { valid: false; reason: string };

/** Checks a delivery's signature and timestamp; comparisons are constant-time. */
export function verify(input: VerifyInput): VerifyResult {
  const headers = lowerCaseHeaders(input.headers);
  const msgId = headers['webhook-id'];
  const timestampHeader = headers['webhook-timestamp'];
  const signatureHeader = headers['webhook-signature'];
  if (!msgId || !timestampHeader || !signatureHeader) {
    return { valid: false, reason: 'missing webhook-id, webhook-timestamp or webhook-signature header' };
  }
  if (!/^\d+$/.test(timestampHeader)) return { valid: false, reason: 'webhook-timestamp is not a number' };
  const timestamp = Number(timestampHeader);
  const tolerance = input.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS;
  // The timestamp is part of the signed content, so checking its age stops replays of old deliveries.
  if (Math.abs(Math.floor(input.nowMs / 1000) - timestamp) > tolerance) {
    return { valid: false, reason: `webhook-timestamp is more than ${tolerance} s away from now` };
  }
  const expected = Buffer.from(sign({ secret: input.secret, msgId, timestamp, body: input.body }).slice(3), 'base64');
  // The header may carry several space-separated signatures, e.g. while a secret is being rotated.
  for (const candidate of signatureHeader.split(' ')) {
    const [version, value] = candidate.split(',', 2);
    if (version !== 'v1' || value === undefined) continue;
    const given = Buffer.from(value, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) {
      return { valid: true, msgId, timestamp };
    }
  }
  return { valid: false, reason: 'no matching v1 signature' };
}

function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('webhook secret is empty');
  return key;
}

function lowerCaseHeaders(headers: VerifyInput['headers']): Record<string, string | undefined> {
  const result: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    result[name.toLowerCase()] = Array.isArray(value) ? value.join(' ') : value;
  }
  return result;
}
