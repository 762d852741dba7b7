/**
 * Receiver-side verification, for partners' own code: Standard Webhooks deliveries of workspace
 * subscriptions, and the `X-SVC-Signature` of partner deliveries. Both return the parsed event or throw
 * WebhookVerificationError saying what did not match.
 */
import { createHash } from 'node:crypto';
import { jwtVerify } from 'jose';
import { PARTNER_WEBHOOK_AUDIENCE } from './partner/partner-jwt-sign.js';
import { verify } from './webhooks/signature.js';

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

type Headers = Record<string, string | string[] | undefined> | globalThis.Headers;

export interface VerifyWebhookInput {
  /** The subscription's `whsec_...` secret. */
  secret: string;
  /** The request headers (Node's `req.headers`, or a fetch `Headers`). */
  headers: Headers;
  /** The raw request body, exactly as received. */
  body: string | Buffer;
  /** Current time in milliseconds; pass the sandbox clock's after `clock.advance` (default Date.now()). */
  nowMs?: number;
  /** Largest accepted age of `webhook-timestamp`, in seconds (default 300). */
  toleranceSeconds?: number;
}

const plainHeaders = (headers: Headers): Record<string, string | string[] | undefined> =>
  headers instanceof globalThis.Headers ? Object.fromEntries(headers.entries()) : headers;

const header = (headers: Record<string, string | string[] | undefined>, name: string): string | undefined => {
  const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(found) ? found[0] : found;
};

/** Verifies a Standard Webhooks delivery and returns its parsed body. */
export function verifyWebhook(input: VerifyWebhookInput): unknown {
  const body = typeof input.body === 'string' ? input.body : input.body.toString('utf8');
  const result = verify({
    secret: input.secret,
    body,
    headers: plainHeaders(input.headers),
    nowMs: input.nowMs ?? Date.now(),
    ...(input.toleranceSeconds === undefined ? {} : { toleranceSeconds: input.toleranceSeconds }),
  });
  if (!result.valid) throw new WebhookVerificationError(result.reason);
  return JSON.parse(body) as unknown;
}

export interface VerifyPartnerWebhookInput {
  partnerId: string;
  partnerSecret: string;
  headers: Headers;
  body: string | Buffer;
  nowMs?: number;
}

/** Verifies a partner delivery's `X-SVC-Signature` (HS256 JWT, webhook audience, bound to the body) and returns the parsed body. */
export async function verifyPartnerWebhook(input: VerifyPartnerWebhookInput): Promise<unknown> {
  const headers = plainHeaders(input.headers);
  const body = typeof input.body === 'string' ? input.body : input.body.toString('utf8');
  const token = header(headers, 'x-svc-signature');
  if (header(headers, 'x-svc-partner-id') !== input.partnerId) throw new WebhookVerificationError('X-SVC-Partner-Id is missing or names another partner');
  if (token === undefined) throw new WebhookVerificationError('X-SVC-Signature is missing');
  let claims;
  try {
    ({ payload: claims } = await jwtVerify(token, new TextEncoder().encode(input.partnerSecret), {
      algorithms: ['HS256'],
      audience: PARTNER_WEBHOOK_AUDIENCE,
      currentDate: new Date(input.nowMs ?? Date.now()),
      clockTolerance: 60,
    }));
  } catch (error) {
    throw new WebhookVerificationError(`X-SVC-Signature does not verify: ${(error as Error).message}`);
  }
  if (claims['partner_id'] !== input.partnerId) throw new WebhookVerificationError('the signature names another partner');
  if (claims['body_sha256'] !== createHash('sha256').update(body, 'utf8').digest('hex')) {
    throw new WebhookVerificationError('the signature belongs to another body');
  }
  return JSON.parse(body) as unknown;
}
