/**
 * SvcClient over HTTP, for a remote `svc serve` (`--base-url`). Speaks the Public API under `baseUrl` and the
 * simulated-network controls under the same origin's `/sim`, over one keep-alive connection pool.
 * Every failure becomes an SvcError; the token never appears in an error message.
 */
import { Agent, type Dispatcher, FormData, request } from 'undici';
import { SvcError, isErrorCode } from '../wire/errors.js';
import type { SimClient, SvcClient } from './client.js';
import { httpWebhooksClient } from './webhooks-clients.js';
import { createHttpListenClient } from './http-listen.js';
import { routeMissHint, withAreaPath } from './base-url.js';

/** Options of `createHttpClient`. */
export interface HttpClientOptions {
  /** The Public API base, e.g. `http://127.0.0.1:8080/api`. */
  baseUrl: string;
  token: string;
  /** Connection pool to use (tests, proxies); by default the client owns a keep-alive Agent. */
  dispatcher?: Dispatcher;
  /** Longest wait for a response, in milliseconds. */
  timeoutMs?: number;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type Body = object | FormData | undefined;

const DEFAULT_TIMEOUT_MS = 30_000;

/** An SvcClient that talks to a remote instance. */
export function createHttpClient(opts: HttpClientOptions): SvcClient {
  const apiBase = withAreaPath(opts.baseUrl, '/api');
  const parsed = parseBase(apiBase);
  // `/sim` sits beside `/api` (docs/api-behaviour.md), under whatever prefix a proxy put in front of both.
  const simBase = `${apiBase.endsWith('/api') ? apiBase.slice(0, -'/api'.length) : parsed.origin}/sim`;
  const target = displayUrl(parsed);
  const timeout = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const ownAgent = opts.dispatcher === undefined ? new Agent({ keepAliveTimeout: 10_000, connect: { timeout: Math.min(10_000, timeout) } }) : undefined;
  const dispatcher = opts.dispatcher ?? (ownAgent as Agent);

  const call = async <T>(method: Method, url: string, body?: Body): Promise<T> => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (opts.token !== '') headers.authorization = `Bearer ${opts.token}`;
    let payload: string | FormData | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, { method, headers, body: payload ?? null, dispatcher, headersTimeout: timeout, bodyTimeout: timeout });
    } catch (error) {
      throw unreachable(error, target);
    }
    let text: string;
    try {
      text = await response.body.text();
    } catch (error) {
      throw unreachable(error, target);
    }
    return unwrap<T>(response.statusCode, response.headers, text, `${method} ${new URL(url).pathname}`, target);
  };

  const api = (path: string) => `${apiBase}${path}`;
  const sim = (path: string) => `${simBase}${path}`;
  const page = (n: number | undefined) => (n === undefined ? '' : `?page=${encodeURIComponent(String(n))}`);
  const seg = encodeURIComponent;

  const simClient: SimClient = {
    connect: (input) => call('POST', sim('/accounts/connect'), input),
    receive: (input) => call('POST', sim('/messages'), input),
    react: (input) => call('POST', sim('/reactions'), input),
    disconnect: (phone) => call('POST', sim(`/accounts/${seg(phone)}/disconnect`)),
    suspend: (phone) => call('POST', sim(`/accounts/${seg(phone)}/suspend`)),
    resume: (phone) => call('POST', sim(`/accounts/${seg(phone)}/resume`)),
    setUnreachable: (phone, unreachable) => call('PUT', sim(`/numbers/${seg(phone)}/unreachable`), { unreachable }),
    scan: (input) => call('POST', sim('/scan'), input),
  };

  let closed = false;
  return {
    target,
    sendToPhone: (input) => call('POST', api('/messages'), input),
    sendToChatName: (input) => call('POST', api('/messages/to_chat_name'), input),
    sendToChat: (chatId, input) => call('POST', api(`/chats/${seg(String(chatId))}/messages`), input),
    getMessage: (uid) => call('GET', api(`/messages/${seg(uid)}`)),
    listChats: (n) => call('GET', api(`/chats${page(n)}`)),
    getChat: (chatId) => call('GET', api(`/chats/${seg(String(chatId))}`)),
    updateChat: (chatId, input) => call('PATCH', api(`/chats/${seg(String(chatId))}`), input),
    listChatMessages: (chatId, n) => call('GET', api(`/chats/${seg(String(chatId))}/messages${page(n)}`)),
    uploadFile: (input) => {
      const form = new FormData();
      // Copy into a fresh ArrayBuffer-backed view: Blob does not take views over shared memory.
      form.append('file', new Blob([new Uint8Array(input.content)], { type: input.mimetype }), input.filename);
      return call('POST', api('/files_upload'), form);
    },
    listFiles: (n) => call('GET', api(`/files${page(n)}`)),
    getFile: (uid) => call('GET', api(`/files/${seg(uid)}`)),
    deleteFile: (uid) => call('DELETE', api(`/files/${seg(uid)}`)),
    listAccounts: (page = 1) => call('GET', api(`/messenger_accounts?page=${encodeURIComponent(String(page))}`)),
    getWorkspace: () => call('GET', api('/workspace')),
    listTemplates: (n) => call('GET', api(`/attachment_templates${page(n)}`)),
    createTemplate: (input) => call('POST', api('/attachment_templates'), input),
    sim: simClient,
    webhooks: httpWebhooksClient(call, apiBase),
    listen: createHttpListenClient({ apiBase, authHeaders: (): Record<string, string> => (opts.token === '' ? {} : { authorization: `Bearer ${opts.token}` }), dispatcher, call }),
    close: async () => {
      if (closed) return;
      closed = true;
      await ownAgent?.close();
    },
  };
}

const parseBase = (baseUrl: string): URL => {
  try {
    const url = new URL(baseUrl);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {
    // fall through to the error below
  }
  throw new SvcError('validation_error', `Invalid base URL: ${baseUrl}`, {
    hint: 'pass --base-url http(s)://HOST:PORT/api',
  });
};

/** The base URL without credentials, for messages. */
const displayUrl = (url: URL): string => {
  const clean = new URL(url.href);
  clean.username = '';
  clean.password = '';
  return clean.href.replace(/\/+$/, '');
};

/** Turns an HTTP answer into the envelope's `data`, or throws the SvcError it stands for. */
const unwrap = <T>(status: number, headers: Record<string, unknown>, text: string, what: string, target: string): T => {
  if (status === 401) {
    throw new SvcError('unauthorized', 'The API token was refused', { hint: 'check --token or run `svc login`' });
  }
  const body = parseJson(text);
  if (status >= 200 && status < 300 && isRecord(body) && body.status === 'ok' && 'data' in body) {
    return body.data as T;
  }
  if (isRecord(body) && body.status === 'error' && isErrorCode(body.error_code)) {
    const message = typeof body.message === 'string' ? body.message : `${what} failed`;
    const retryAfter = headers['retry-after'];
    const serverHint = typeof body.hint === 'string' ? body.hint : undefined;
    const hint =
      body.error_code === 'rate_limit_exceeded' && retryAfter !== undefined
        ? `retry in ${String(retryAfter)} s`
        : (routeMissHint({ error_code: body.error_code, message, hint: serverHint }, target, '/api') ?? serverHint);
    throw new SvcError(body.error_code, message, hint === undefined ? {} : { hint });
  }
  throw unexpectedStatus(status, what, target);
};

// An answer without our error body comes from something else: a proxy, another server, a wrong base URL.
const unexpectedStatus = (status: number, what: string, target: string): SvcError => {
  const hint = `check that ${target} is the /api base of an svc server (--base-url)`;
  if (status === 404) return new SvcError('not_found', `${what}: ${target} answered 404`, { hint });
  if (status === 413) return new SvcError('payload_too_large', `${what}: request too large for ${target}`);
  if (status === 429) return new SvcError('rate_limit_exceeded', `${what}: too many requests to ${target}`);
  if (status === 502 || status === 503 || status === 504) {
    return new SvcError('unavailable', `${what}: ${target} is unavailable (HTTP ${status})`, { hint: 'retry in a moment' });
  }
  return new SvcError('internal_error', `${what}: unexpected answer from ${target} (HTTP ${status})`, { hint });
};

const unreachable = (error: unknown, target: string): SvcError => {
  const code = (error as { code?: unknown } | null)?.code;
  const timedOut = typeof code === 'string' && code.includes('TIMEOUT');
  const reason = timedOut ? 'timed out' : typeof code === 'string' ? code : 'connection failed';
  return new SvcError('unavailable', `Cannot reach ${target} (${reason})`, {
    hint: `check that \`svc serve\` is running at ${target} and that --base-url is right`,
    cause: error,
  });
};

const parseJson = (text: string): unknown => {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
