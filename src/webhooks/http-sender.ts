import { performance } from 'node:perf_hooks';
import { getGlobalDispatcher, type Dispatcher } from 'undici';
import type { SendOutcome } from '../wire/webhook-types.js';
import { describeError, WEBHOOK_TIMEOUT_MS } from './send-outcome.js';
import type { SendFn } from './delivery-worker.js';

/** How much of a receiver's answer is read before the connection is dropped. */
export const RESPONSE_BODY_CAP_BYTES = 4096;

export interface SendWebhookInput {
  url: string;
  /** Signature and any extra headers; `content-type: application/json` is always sent. */
  headers: Record<string, string>;
  body: string;
  /** Deadline for connecting, the response headers and the (capped) body together. */
  timeoutMs?: number;
  dispatcher?: Dispatcher;
  /** Monotonic milliseconds for `durationMs`; injectable so attempt logs are deterministic in tests. */
  now?: () => number;
}


/**
 * POSTs one webhook. Never throws: every failure (non-2xx, redirect, timeout, network error) becomes an
 * outcome with `ok: false` and a human-readable `error`, which is what the retry logic and the attempt
 * log need. It talks to the dispatcher's handler interface directly: `request()` would build an
 * AbortController, a body stream and an async iterator per POST, which measured about a third more CPU per
 * delivery than the whole of this.
 */
export function sendWebhook(input: SendWebhookInput): Promise<SendOutcome> {
  const now = input.now ?? (() => performance.now());
  const timeoutMs = input.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const started = now();
  return new Promise<SendOutcome>((resolve) => {
    let statusCode: number | null = null;
    let location: string | undefined;
    let received = 0;
    let settled = false;
    let abort: ((reason: Error) => void) | undefined;
    const finish = (error: string | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ok: error === null, statusCode, durationMs: Math.max(0, Math.round(now() - started)), error });
    };
    // One deadline for connecting, the response headers and the (capped) body together.
    const timer = setTimeout(() => {
      finish(`timed out after ${timeoutMs} ms`);
      abort?.(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    const answered = (): string | null => {
      const status = statusCode as number;
      if (status >= 200 && status < 300) return null;
      if (status >= 300 && status < 400) return location ? `redirect to ${location} not followed` : `redirect (${status}) not followed`;
      return `receiver answered ${status}`;
    };
    try {
      const url = new URL(input.url);
      (input.dispatcher ?? getGlobalDispatcher()).dispatch(
        {
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          headers: { ...input.headers, 'content-type': 'application/json' },
          body: input.body,
        },
        {
          onRequestStart(controller) {
            if (settled) controller.abort(new Error(`timed out after ${timeoutMs} ms`));
            else abort = (reason) => controller.abort(reason);
          },
          onResponseStart(_controller, status, headers) {
            statusCode = status;
            location = headerValue(headers['location']);
          },
          // Receivers' bodies are never used: a little is read so keep-alive works for small answers, and a
          // receiver streaming a huge body is cut off at the cap (its connection is dropped).
          onResponseData(controller, chunk) {
            received += chunk.length;
            if (received < RESPONSE_BODY_CAP_BYTES) return;
            finish(answered());
            controller.abort(new Error('response body over the cap'));
          },
          onResponseEnd() {
            finish(answered());
          },
          onResponseError(_controller, error) {
            finish(describeError(error));
          },
        },
      );
    } catch (error) {
      finish(describeError(error));
    }
  });
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The production sender: undici over the given (usually guarded) dispatcher. */
export const httpSend =
  (dispatcher?: Dispatcher, timeoutMs = WEBHOOK_TIMEOUT_MS): SendFn =>
  (request) =>
    sendWebhook({ url: request.url, headers: request.headers, body: request.body, timeoutMs, ...(dispatcher ? { dispatcher } : {}) });
