import { performance } from 'node:perf_hooks';
import { request, type Dispatcher } from 'undici';
import { describeError, WEBHOOK_TIMEOUT_MS, type SendOutcome } from './send-outcome.js';
import type { SendFn } from './delivery-worker.js';

export { describeError, WEBHOOK_TIMEOUT_MS, type SendOutcome };

/** Receivers' bodies are never used; reading a little lets keep-alive work for small answers. */
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
 * log need.
 */
export async function sendWebhook(input: SendWebhookInput): Promise<SendOutcome> {
  const now = input.now ?? (() => performance.now());
  const timeoutMs = input.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const started = now();
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  const finish = (statusCode: number | null, error: string | null): SendOutcome => ({
    ok: error === null,
    statusCode,
    durationMs: Math.max(0, Math.round(now() - started)),
    error,
  });

  let statusCode: number | null = null;
  try {
    const response = await request(input.url, {
      method: 'POST',
      headers: { ...input.headers, 'content-type': 'application/json' },
      body: input.body,
      signal: controller.signal,
      ...(input.dispatcher === undefined ? {} : { dispatcher: input.dispatcher }),
    });
    statusCode = response.statusCode;
    await readCapped(response.body);
    if (statusCode >= 200 && statusCode < 300) return finish(statusCode, null);
    if (statusCode >= 300 && statusCode < 400) {
      const location = headerValue(response.headers['location']);
      return finish(statusCode, location ? `redirect to ${location} not followed` : `redirect (${statusCode}) not followed`);
    }
    return finish(statusCode, `receiver answered ${statusCode}`);
  } catch (error) {
    if (timedOut) return finish(statusCode, `timed out after ${timeoutMs} ms`);
    return finish(statusCode, describeError(error));
  } finally {
    clearTimeout(timer);
  }
}

/** Reads at most the cap, then drops the rest, so a receiver streaming a huge body cannot tie us up. */
async function readCapped(body: Dispatcher.ResponseData['body']): Promise<void> {
  let received = 0;
  for await (const chunk of body) {
    received += (chunk as Buffer).length;
    if (received >= RESPONSE_BODY_CAP_BYTES) {
      body.destroy();
      return;
    }
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The production sender: undici over the given (usually guarded) dispatcher. */
export const httpSend =
  (dispatcher?: Dispatcher, timeoutMs = WEBHOOK_TIMEOUT_MS): SendFn =>
  (request) =>
    sendWebhook({ url: request.url, headers: request.headers, body: request.body, timeoutMs, ...(dispatcher ? { dispatcher } : {}) });
