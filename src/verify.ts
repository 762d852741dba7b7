/**
 * Receiver-side verification, for partners' own code: Standard Webhooks deliveries of workspace
 * subscriptions, and the `X-SVC-Signature` of partner deliveries. Both return the parsed event, typed as
 * the `WebhookEvent` union (narrow it on `event_type`, or pass `event` to have it checked and typed), or throw
 * WebhookVerificationError saying what did not match.
 */
import { createHash } from 'node:crypto';
import { jwtVerify } from 'jose';
import { PARTNER_WEBHOOK_AUDIENCE } from './partner/partner-jwt-sign.js';
import { verify } from './webhooks/signature.js';
import type { PartnerEventType, WebhookEventOf, WebhookEventType } from './wire/webhook-events.js';

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

type Headers = Record<string, string | string[] | undefined> | globalThis.Headers;

export interface VerifyWebhookInput<E extends WebhookEventType = WebhookEventType> {
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
  /** The event this receiver takes: a body of another event is refused, and the result is typed as this one. */
  event?: E;
}

const plainHeaders = (headers: Headers): Record<string, string | string[] | undefined> =>
  headers instanceof globalThis.Headers ? Object.fromEntries(headers.entries()) : headers;

const header = (headers: Record<string, string | string[] | undefined>, name: string): string | undefined => {
  const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(found) ? found[0] : found;
};

/** The parsed body, refused when `event` names another event than the body's. */
function parseEvent<E extends WebhookEventType>(body: string, event: E | undefined): WebhookEventOf<E> {
  const parsed = JSON.parse(body) as WebhookEventOf<E>;
  if (event !== undefined && parsed.event_type !== event) {
    throw new WebhookVerificationError(`expected a ${event} event, got ${String(parsed.event_type)}`);
  }
  return parsed;
}

/** Verifies a Standard Webhooks delivery and returns its parsed body. */
export function verifyWebhook<E extends WebhookEventType = WebhookEventType>(input: VerifyWebhookInput<E>): WebhookEventOf<E> {
  const body = typeof input.body === 'string' ? input.body : input.body.toString('utf8');
  const result = verify({
    secret: input.secret,
    body,
    headers: plainHeaders(input.headers),
    nowMs: input.nowMs ?? Date.now(),
    ...(input.toleranceSeconds === undefined ? {} : { toleranceSeconds: input.toleranceSeconds }),
  });
  if (!result.valid) throw new WebhookVerificationError(result.reason);
  return parseEvent(body, input.event);
}

export interface VerifyPartnerWebhookInput<E extends PartnerEventType = PartnerEventType> {
  partnerId: string;
  partnerSecret: string;
  headers: Headers;
  body: string | Buffer;
  nowMs?: number;
  /** The event this receiver takes: a body of another event is refused, and the result is typed as this one. */
  event?: E;
}

/** Verifies a partner delivery's `X-SVC-Signature` (HS256 JWT, webhook audience, bound to the body) and returns the parsed body. */
export async function verifyPartnerWebhook<E extends PartnerEventType = PartnerEventType>(
  input: VerifyPartnerWebhookInput<E>,
): Promise<WebhookEventOf<E>> {
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
  return parseEvent(body, input.event);
}
