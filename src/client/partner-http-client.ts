/**
 * PartnerClient over HTTP, for a remote `svc serve` (`SVC_PARTNER_BASE_URL`). Every request carries a fresh
 * JWT (HS256, 5 minutes) signed with the Partner Secret and `X-SVC-Partner-Id`; the secret never leaves
 * this process and never appears in an error message.
 */
import { Agent, type Dispatcher, request } from 'undici';
import { systemClock, type Clock } from '../wire/clock.js';
import { SvcError, isErrorCode } from '../wire/errors.js';
import { signPartnerJwt } from '../partner/partner-jwt-sign.js';
import { routeMissHint, withAreaPath } from './base-url.js';
import type { PartnerClient } from './partner-client.js';
import { createHttpListenClient } from './http-listen.js';
import { httpWebhooksClient } from './webhooks-clients.js';

/** Options of `createPartnerHttpClient`. */
export interface PartnerHttpClientOptions {
  /** The Partner API base, e.g. `http://127.0.0.1:8080/partner`. */
  baseUrl: string;
  partnerId: string;
  partnerSecret: string;
  dispatcher?: Dispatcher;
  clock?: Clock;
  timeoutMs?: number;
}

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** A PartnerClient that talks to a remote Partner API. */
export function createPartnerHttpClient(opts: PartnerHttpClientOptions): PartnerClient {
  const base = withAreaPath(opts.baseUrl, '/partner');
  if (!/^https?:\/\/[^/]/.test(base)) {
    throw new SvcError('validation_error', `Invalid Partner API URL: ${base}`, { hint: 'e.g. SVC_PARTNER_BASE_URL=http://127.0.0.1:8080/partner' });
  }
  const timeout = opts.timeoutMs ?? 30_000;
  const ownAgent = opts.dispatcher === undefined ? new Agent({ keepAliveTimeout: 10_000, connect: { timeout: Math.min(10_000, timeout) } }) : undefined;
  const dispatcher = opts.dispatcher ?? (ownAgent as Agent);
  const clock = opts.clock ?? systemClock;

  // A fresh JWT for every request, the listen stream's included.
  const authHeaders = (): Record<string, string> => ({
    authorization: `Bearer ${signPartnerJwt(opts.partnerId, opts.partnerSecret, clock)}`,
    'x-svc-partner-id': opts.partnerId,
  });
  const call = async <T>(method: Method, path: string, body?: object): Promise<T> => {
    const headers: Record<string, string> = { accept: 'application/json', ...authHeaders() };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let status: number;
    let text: string;
    try {
      const response = await request(`${base}${path}`, {
        method, headers, body: body === undefined ? null : JSON.stringify(body), dispatcher, headersTimeout: timeout, bodyTimeout: timeout,
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      throw new SvcError('unavailable', `Cannot reach ${base}`, { hint: 'check that `svc serve` runs there and SVC_PARTNER_BASE_URL', cause: error });
    }
    return unwrap<T>(status, text, `${method} ${path}`, base);
  };

  const ws = (id: number) => `/workspaces/${encodeURIComponent(String(id))}`;
  const user = (id: number, userId: number) => `${ws(id)}/users/${encodeURIComponent(String(userId))}`;
  let closed = false;
  return {
    target: base,
    describe: () => call('GET', '/me'),
    createWorkspace: (input) => call('POST', '/workspaces', input),
    getWorkspace: (id) => call('GET', ws(id)),
    updateWorkspace: (id, input) => call('PATCH', ws(id), input),
    createUsers: (id, count) => call('POST', `${ws(id)}/users`, { count }),
    listUsers: (id, page = 1) => call('GET', `${ws(id)}/users?page=${encodeURIComponent(String(page))}`),
    createQrLink: (id, userId, input = {}) => call('POST', `${user(id, userId)}/qr`, input),
    disconnectAccount: (id, userId) => call('POST', `${user(id, userId)}/messenger/disconnect`),
    getApiToken: (id) => call('GET', `${ws(id)}/api-token`),
    rotateApiToken: (id) => call('POST', `${ws(id)}/api-token`),
    // `call` takes paths under the Partner API base, so the webhook routes start at ''.
    webhooks: httpWebhooksClient(call, ''),
    // The listen client builds absolute URLs under `base`; `call` takes paths under it.
    listen: createHttpListenClient({ apiBase: base, authHeaders, dispatcher, call: (method, url, body) => call(method, url.slice(base.length), body) }),
    close: async () => {
      if (closed) return;
      closed = true;
      await ownAgent?.close();
    },
  };
}

/** The envelope's `data`, or the SvcError the answer stands for (a 401 keeps the rule the server named). */
function unwrap<T>(status: number, text: string, what: string, target: string): T {
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  if (status >= 200 && status < 300 && record['status'] === 'ok' && 'data' in record) return record['data'] as T;
  if (record['status'] === 'error' && isErrorCode(record['error_code'])) {
    const message = typeof record['message'] === 'string' ? record['message'] : `${what} failed`;
    const serverHint = typeof record['hint'] === 'string' ? record['hint'] : undefined;
    const hint =
      record['error_code'] === 'unauthorized'
        ? 'check the Partner ID and Secret (SVC_PARTNER_ID, SVC_PARTNER_SECRET or `svc login --partner`) and this machine\'s clock'
        : (routeMissHint({ error_code: record['error_code'], message, hint: serverHint }, target, '/partner') ?? serverHint);
    throw new SvcError(record['error_code'], message, hint === undefined ? {} : { hint });
  }
  throw new SvcError(status === 404 ? 'not_found' : 'internal_error', `${what}: unexpected answer from ${target} (HTTP ${status})`, {
    hint: `check that ${target} is the /partner base of an svc server`,
  });
}
