import { request, type Dispatcher } from 'undici';
import { SvcError, isSvcError } from '../wire/errors.js';
import { AsyncQueue, DeliveryDeduper, type ListenClient, type ListenSession, type ListenStatus } from './listen-client.js';
import type { ListenClosedDto, ListenDeliveryDto, ListenReportDto, ListenSecretDto, ListenSessionDto } from '../wire/listen-types.js';
import { SseParser } from './sse-parser.js';

/** JSON call of the HTTP client: resolves with the envelope's `data`, throws SvcError otherwise. */
export type ApiCall = <T>(method: 'GET' | 'POST' | 'DELETE', url: string, body?: object) => Promise<T>;

export interface HttpListenOptions {
  /** The API base, e.g. `http://127.0.0.1:8080/api` (or `.../partner` for a partner's sessions). */
  apiBase: string;
  /** Credentials of one request (a partner signs a fresh JWT for each), for the stream the call does not make. */
  authHeaders: () => Record<string, string>;
  dispatcher: Dispatcher;
  call: ApiCall;
  /** A stream silent for this long (no event, no heartbeat) is taken for dead and reconnected. */
  idleTimeoutMs?: number;
  firstBackoffMs?: number;
  maxBackoffMs?: number;
}

const DEFAULTS = { idleTimeoutMs: 35_000, firstBackoffMs: 1_000, maxBackoffMs: 30_000 };
/** A result that cannot be posted is retried this many times (the server may be restarting). */
const REPORT_TRIES = 6;

/**
 * Listen sessions on a remote server, whose deliveries arrive on an outbound SSE stream (no public URL is
 * needed). A dropped stream is reopened with exponential backoff; the server hands out again whatever the
 * dropped one held, so no event is lost.
 */
export function createHttpListenClient(opts: HttpListenOptions): ListenClient {
  const o = { ...DEFAULTS, ...opts };
  const url = (path: string) => `${o.apiBase}/webhooks/listen${path}`;
  return {
    secret: async () => (await o.call<ListenSecretDto>('GET', url('/secret'))).secret,

    async open(options = {}) {
      const session = await o.call<ListenSessionDto>('POST', url(''), options.events === undefined ? {} : { events: options.events });
      const sessionUrl = url(`/${encodeURIComponent(session.id)}`);
      const stream = new StreamLoop(o, `${sessionUrl}/stream`, options.onStatus ?? (() => {}));
      let closed = false;
      let closing: Promise<void> | undefined;
      // Every caller gets the same outcome, so a failure to remove the session is reported wherever it is awaited.
      const close = (): Promise<void> =>
        (closing ??= (async () => {
          closed = true;
          stream.stop();
          try {
            await o.call<ListenClosedDto>('DELETE', sessionUrl);
          } catch (error) {
            if (!(isSvcError(error) && error.code === 'not_found')) throw error;
          }
        })());
      try {
        await stream.start();
      } catch (error) {
        await close().catch(() => undefined);
        throw error;
      }
      const listen: ListenSession = {
        id: session.id,
        secret: session.secret,
        events: session.events,
        deliveries: () => stream.queue,
        report: async (result) => {
          for (let attempt = 1; ; attempt += 1) {
            try {
              return await o.call<ListenReportDto>('POST', `${sessionUrl}/results`, result);
            } catch (error) {
              if (attempt >= REPORT_TRIES || closed || !(isSvcError(error) && error.code === 'unavailable')) {
                // Unreported: when the delivery is handed out again it must be forwarded again.
                stream.deduper.forget(result.delivery_id);
                throw error;
              }
              await stream.sleep(Math.min(250 * 2 ** attempt, 4_000));
            }
          }
        },
        close,
      };
      return listen;
    },
  };
}

/** Keeps one stream open until stopped, reconnecting with backoff; feeds deliveries into `queue`. */
class StreamLoop {
  readonly queue = new AsyncQueue<ListenDeliveryDto>();
  readonly deduper = new DeliveryDeduper();
  private readonly abort = new AbortController();
  private connectedOnce = false;
  private firstConnect!: { resolve: () => void; reject: (error: unknown) => void };

  constructor(
    private readonly o: Required<Omit<HttpListenOptions, 'call'>> & Pick<HttpListenOptions, 'call'>,
    private readonly streamUrl: string,
    private readonly onStatus: (status: ListenStatus) => void,
  ) {}

  /** Resolves once the first stream is connected (events can flow); rejects on a fatal answer. */
  start(): Promise<void> {
    const connected = new Promise<void>((resolve, reject) => {
      this.firstConnect = { resolve, reject };
    });
    void this.run();
    return connected;
  }

  stop(): void {
    this.abort.abort();
    this.queue.end();
  }

  /** Waits `ms`, or less when the loop is stopped. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.abort.signal.addEventListener('abort', done, { once: true });
    });
  }

  private async run(): Promise<void> {
    let backoff = this.o.firstBackoffMs;
    while (!this.abort.signal.aborted) {
      try {
        await this.connect(() => {
          backoff = this.o.firstBackoffMs;
        });
        if (this.abort.signal.aborted) return;
        this.retryIn(backoff, 'the server ended the stream');
      } catch (error) {
        if (this.abort.signal.aborted) return;
        if (isSvcError(error) && (error.code === 'not_found' || error.code === 'unauthorized')) {
          this.firstConnect.reject(error);
          this.queue.end(error);
          return;
        }
        this.retryIn(backoff, describe(error));
      }
      await this.sleep(backoff);
      backoff = Math.min(backoff * 2, this.o.maxBackoffMs);
    }
  }

  private retryIn(ms: number, reason: string): void {
    this.onStatus({ kind: 'reconnecting', inMs: ms, reason });
  }

  /** One stream, from connecting to its end; `onConnected` runs once the server accepted it. */
  private async connect(onConnected: () => void): Promise<void> {
    const headers: Record<string, string> = { accept: 'text/event-stream', ...this.o.authHeaders() };
    const response = await request(this.streamUrl, {
      method: 'GET',
      headers,
      dispatcher: this.o.dispatcher,
      signal: this.abort.signal,
      headersTimeout: 15_000,
      bodyTimeout: this.o.idleTimeoutMs,
    });
    if (response.statusCode !== 200) {
      const text = await response.body.text().catch(() => '');
      if (response.statusCode === 401) throw new SvcError('unauthorized', 'The API token was refused');
      if (response.statusCode === 404) throw new SvcError('not_found', `listen session not found on the server (${text.slice(0, 200)})`);
      throw new Error(`stream answered HTTP ${response.statusCode}`);
    }
    onConnected();
    this.onStatus({ kind: 'connected', reconnected: this.connectedOnce });
    this.connectedOnce = true;
    this.firstConnect.resolve();
    const parser = new SseParser();
    const decoder = new TextDecoder();
    for await (const chunk of response.body) {
      for (const event of parser.push(decoder.decode(chunk as Buffer, { stream: true }))) {
        if (event.event === 'delivery') {
          const delivery = JSON.parse(event.data) as ListenDeliveryDto;
          if (this.deduper.admit(delivery)) this.queue.push(delivery);
        } else if (event.event === 'closed') {
          const reason = (JSON.parse(event.data) as { reason?: string }).reason ?? 'closed';
          throw new SvcError('not_found', `the listen session ended on the server: ${reason}`);
        }
      }
    }
  }
}

const describe = (error: unknown): string => {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
};
