import { InvalidArgumentError, type Command } from 'commander';
import type { ListenClient, ListenDeliveryDto, ListenReportDto, ListenResultInput, ListenSession, ListenStatus } from '../../client/listen-client.js';
import type { ForwardTarget } from '../../client/listen-forward.js';
import { describeEvent } from '../describe-event.js';
import { EVENT_TYPES } from '../../wire/webhook-events.js';
import { didYouMean } from '../../wire/suggest.js';
import type { CliContext } from '../context.js';
import { EXIT } from '../errors.js';
import type { InterruptSignal } from '../io.js';
import { httpUrl, secondsListToMs } from '../parse.js';

interface ListenFlags {
  forwardTo?: string;
  events?: string[];
  headers?: Record<string, string>;
  printSecret?: boolean;
  retryDelays?: number[];
}

/** Whose events a listen command receives: the workspace's (`svc webhooks listen`) or the partner's. */
export interface ListenScope {
  /** Every event type of the scope; the default of --events. */
  events: readonly string[];
  listenClient: () => Promise<ListenClient>;
  /** Whether the client talks to a server (where --retry-delays does not apply). */
  remote: () => boolean;
}

/**
 * `svc webhooks listen`: receives the workspace's events here and forwards them, signed, to a local app.
 * Added to the `webhooks` command whichever of the two registers first.
 */
export function registerWebhooksListen(program: Command, ctx: CliContext): void {
  const webhooks =
    program.commands.find((c) => c.name() === 'webhooks') ??
    program.command('webhooks').description('manage webhook subscriptions and their deliveries');
  addListenCommand(webhooks, ctx, {
    events: EVENT_TYPES,
    listenClient: async () => (await ctx.client()).listen,
    remote: () => ctx.config().baseUrl !== undefined,
  });
}

/** Adds `listen` under a `webhooks` command: `svc webhooks listen`, or `svc partner webhooks listen`. */
export function addListenCommand(webhooks: Command, ctx: CliContext, scope: ListenScope): void {
  webhooks
    .command('listen')
    .description('receive events here and forward them to a local app; no public URL needed (^C removes the session)')
    .option('--forward-to <target>', 'local app: a port (3000), port/path (3000/hooks), host:port/path or a URL', forwardTarget)
    .option('--events <types>', 'comma-separated event types (default: every event)', (value: string) => eventList(value, scope.events))
    .option('--headers <K:V>', 'extra header on every forward (repeatable)', collectHeader)
    .option('--print-secret', 'print only the signing secret of listeners and exit')
    .option('--retry-delays <seconds>', 'local engine: delays before retrying a failed forward, e.g. 5,30', secondsListToMs)
    .action((opts: ListenFlags) => listen(ctx, scope, opts));
}

async function listen(ctx: CliContext, scope: ListenScope, opts: ListenFlags): Promise<void> {
  const listener = await scope.listenClient();
  const { output } = ctx;
  if (opts.printSecret === true) {
    const secret = await listener.secret();
    output.result({ secret }, { kind: 'lines', lines: [secret] });
    return;
  }
  if (opts.retryDelays !== undefined && scope.remote()) {
    output.warn('--retry-delays applies to the local engine; a server uses its own --webhook-retry-delays');
  }
  const signal = await forwardEvents(ctx, listener, opts, (session, target) =>
    output.streamLine(`Ready! Your webhook signing secret is ${session.secret} (^C to quit)`, {
      type: 'ready',
      session_id: session.id,
      secret: session.secret,
      events: session.events,
      forward_to: target?.url ?? null,
    }),
  );
  if (signal !== null) ctx.exitCode = signal === 'SIGINT' ? EXIT.interrupted : EXIT.ok;
}

/** What `forwardEvents` listens for and where it forwards. */
export interface ForwardOptions {
  forwardTo?: string | undefined;
  events?: string[] | undefined;
  headers?: Record<string, string> | undefined;
  retryDelays?: number[] | undefined;
}

/**
 * Opens a listen session, announces it, then prints each event (`-->`) and forwards it (`<--`) until Ctrl-C or
 * SIGTERM, and removes the session whatever happens. Resolves with the signal that stopped it. Shared by
 * `svc webhooks listen`, `svc partner webhooks listen` and `svc dev`.
 */
export async function forwardEvents(
  ctx: CliContext,
  listener: ListenClient,
  opts: ForwardOptions,
  announce: (session: ListenSession, target: ForwardTarget | null) => void,
): Promise<InterruptSignal | null> {
  const { output } = ctx;
  // Listener lines go straight to stdout, one per event or forward, as they happen: a stream, not one result.
  const line = (text: string, json: Record<string, unknown>) => output.streamLine(text, json);

  // Subscribe before opening: a Ctrl-C at any moment from here on closes the session.
  let signal: InterruptSignal | null = null;
  let session: ListenSession | null = null;
  const unsubscribe = ctx.io.onInterrupt((received) => {
    signal ??= received;
    void session?.close().catch(() => undefined);
  });
  try {
    session = await listener.open({
      events: opts.events,
      retryDelaysMs: opts.retryDelays,
      onStatus: (status) => reportStatus(ctx, status),
    });
    if (signal !== null) return signal;
    // Loaded here, not at the top: it pulls in undici, which every other command would pay for at start-up.
    const { forwardDelivery } = await import('../../client/listen-forward.js');
    const target: ForwardTarget | null = opts.forwardTo === undefined ? null : { url: opts.forwardTo, headers: opts.headers ?? {} };
    announce(session, target);
    if (target === null) output.note('No --forward-to: events are printed and acknowledged, not forwarded.');
    for await (const delivery of session.deliveries()) {
      if (signal !== null) break;
      printEvent(line, delivery);
      const result: ListenResultInput =
        target === null ? { delivery_id: delivery.id, status_code: null, duration_ms: 0, error: null } : await forwardDelivery(delivery, target);
      let report: ListenReportDto | null = null;
      try {
        report = await session.report(result);
      } catch (error) {
        if (signal !== null) break;
        output.warn(`could not record the result of delivery ${delivery.id}: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (target !== null) printForward(line, delivery, target.url, result, report);
    }
  } finally {
    unsubscribe();
    await session?.close().catch((error: unknown) => {
      const why = error instanceof Error ? error.message : String(error);
      output.warn(`could not remove the listen session (${why}); it expires a minute after its stream is gone`);
    });
  }
  return signal;
}

function reportStatus(ctx: CliContext, status: ListenStatus): void {
  // On stderr even with --json: it concerns the connection, not the events.
  if (status.kind === 'reconnecting') {
    ctx.io.stderr(`stream dropped (${status.reason}); reconnecting in ${formatSeconds(status.inMs)}...\n`);
  } else if (status.reconnected) {
    ctx.io.stderr('reconnected\n');
  }
}

type Line = (text: string, json: Record<string, unknown>) => void;

function printEvent(line: Line, d: ListenDeliveryDto): void {
  const about = describeEvent(d.payload);
  const id = about.id === null ? '' : ` ${about.idKind} ${about.id}`;
  const attempt = d.attempt > 1 ? ` (attempt ${d.attempt} of ${d.max_attempts})` : '';
  let payload: unknown = null;
  try {
    payload = JSON.parse(d.payload);
  } catch {
    payload = d.payload;
  }
  line(`--> ${d.event_type} [${d.webhook_id}]${id}${attempt}`, {
    type: 'event',
    delivery_id: d.id,
    webhook_id: d.webhook_id,
    event_type: d.event_type,
    attempt: d.attempt,
    id: about.id,
    id_kind: about.idKind,
    payload,
  });
}

function printForward(line: Line, d: ListenDeliveryDto, url: string, r: ListenResultInput, report: ListenReportDto | null): void {
  const status = r.status_code === null ? 'ERR' : String(r.status_code);
  const why = r.error === null ? '' : ` ${r.error}`;
  let next = '';
  if (report?.status === 'retry_scheduled' && report.next_attempt_at !== null) {
    const inMs = Math.max(0, Date.parse(report.next_attempt_at) - Date.now());
    next = `; attempt ${(report.attempt ?? 0) + 1} of ${d.max_attempts} in ${formatSeconds(Math.round(inMs / 100) * 100)}`;
  } else if (report?.status === 'failed') {
    next = `; failed after ${d.max_attempts} attempts`;
  }
  line(`<-- [${status}] POST ${url} (${r.duration_ms} ms)${why}${next}`, {
    type: 'forward',
    delivery_id: d.id,
    webhook_id: d.webhook_id,
    method: 'POST',
    url,
    status_code: r.status_code,
    duration_ms: r.duration_ms,
    error: r.error,
    result: report?.status ?? null,
    next_attempt_at: report?.next_attempt_at ?? null,
  });
}

const formatSeconds = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(1)}s`);

/** `3000`, `3000/hooks`, `localhost:3000/hooks` or a full URL -> an http(s) URL (Stripe CLI's shorthand). */
export function forwardTarget(value: string): string {
  const port = /^(\d{1,5})(\/.*)?$/.exec(value);
  if (port !== null) {
    const n = Number(port[1]);
    if (n < 1 || n > 65535) throw new InvalidArgumentError('expected a port from 1 to 65535');
    return `http://localhost:${n}${port[2] ?? '/'}`;
  }
  if (/^[A-Za-z0-9.-]+:\d{1,5}(\/.*)?$/.test(value)) return httpUrl(`http://${value}`);
  return httpUrl(value);
}

export function eventList(value: string, known: readonly string[]): string[] {
  const events = value.split(',').map((e) => e.trim()).filter((e) => e !== '');
  if (events.length === 0) throw new InvalidArgumentError('expected event types separated by commas');
  for (const event of events) {
    if (!known.includes(event)) throw new InvalidArgumentError(`unknown event "${event}"; ${didYouMean(event, known) ?? `expected some of ${known.join(', ')}`}`);
  }
  return events;
}

export function collectHeader(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const colon = value.indexOf(':');
  const name = colon === -1 ? '' : value.slice(0, colon).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new InvalidArgumentError('expected a header as Name:value');
  return { ...previous, [name.toLowerCase()]: value.slice(colon + 1).trim() };
}
