import type { Command } from 'commander';
import type { SvcClient } from '../../client/client.js';
import type { ListenSession } from '../../client/listen-client.js';
import type { ForwardTarget } from '../../client/listen-forward.js';
import { prepareDevWorkspace, type DevWorkspace } from '../../client/dev-workspace.js';
import { describeStore } from '../../client/store-description.js';
import { EVENT_TYPES } from '../../wire/webhook-events.js';
import type { CliContext } from '../context.js';
import { EXIT, usageError } from '../errors.js';
import type { InterruptSignal } from '../io.js';
import { port } from '../parse.js';
import { collectHeader, eventList, forwardEvents, forwardTarget } from './webhooks-listen.js';

interface DevFlags {
  port: number;
  forwardTo?: string;
  events?: string[];
  headers?: Record<string, string>;
}

const HELP = `
\`svc dev\` prints the workspace's API token: that is what it is for. It starts a local development loop for
you, and the token (with the export line to paste into another shell) is how your code and other svc
commands reach it. The server binds 127.0.0.1 only. Ctrl-C stops the server and removes the listen
session; the workspace, its account and its data stay in the data directory for the next run.
`;

/**
 * `svc dev`: a working local loop in one command, as `wrangler dev` and `stripe listen` give one. It serves
 * the data directory on loopback (webhook URLs may use http and private hosts, as with `svc serve --dev`),
 * makes sure a workspace with a connected simulated account exists, prints the base URL and the token to use,
 * and forwards every event of that workspace to --forward-to, as `svc webhooks listen` does.
 */
export function registerDev(program: Command, ctx: CliContext): void {
  program
    .command('dev')
    .description('serve on 127.0.0.1, print a workspace token to use, forward every event to your app (^C stops it all)')
    .option('--port <port>', 'port to listen on; 0 picks a free one', port, 8080)
    .option('--forward-to <target>', 'your app: a port (3000), port/path (3000/hooks), host:port/path or a URL', forwardTarget)
    .option('--events <types>', 'comma-separated event types to forward (default: every event)', (value: string) => eventList(value, EVENT_TYPES))
    .option('--headers <K:V>', 'extra header on every forward (repeatable)', collectHeader)
    .addHelpText('after', HELP)
    .action((opts: DevFlags) => dev(ctx, opts));
}

async function dev(ctx: CliContext, opts: DevFlags): Promise<void> {
  const { globals, output } = ctx;
  if (globals.baseUrl !== undefined) throw usageError('`svc dev` serves a local data directory, not a remote instance', 'drop --base-url; pass --data DIR');
  if (globals.workspace !== undefined) throw usageError('`svc dev` prints the token of the workspace it serves: name it with --token T, not --workspace');

  // Subscribed first: a Ctrl-C while the server starts still stops everything this command started.
  let signal: InterruptSignal | null = null;
  const unsubscribe = ctx.io.onInterrupt((received) => {
    signal ??= received;
  });
  try {
    // Only the data directory (or database) counts here: SVC_BASE_URL and SVC_TOKEN are what svc dev prints for
    // other shells, so a shell that pasted them last time must not point this one elsewhere.
    const { dataDir, databaseUrl } = ctx.config();
    const store = { dataDir, ...(databaseUrl === undefined ? {} : { databaseUrl }) };
    const engine = await ctx.io.openEngine(store);
    let workspace: DevWorkspace;
    try {
      workspace = await prepareDevWorkspace(engine, globals.token);
    } finally {
      await engine.close();
    }
    if (signal !== null) {
      stopped(ctx, signal);
      return;
    }

    const handle = await ctx.io.serve({
      ...store,
      port: opts.port,
      host: '127.0.0.1',
      dev: true,
      metrics: false,
      // Server remarks (a worker failing) go to stderr: stdout is the loop's feed, and JSON alone with --json.
      log: (line) => ctx.io.stderr(`${line}\n`),
    });
    let client: SvcClient | undefined;
    try {
      const origin = new URL(handle.url).origin;
      // The line `svc serve` prints too, for scripts that wait for it; stdout holds JSON alone with --json.
      if (!output.json) ctx.io.stdout(`listening on ${origin}\n`);
      if (signal === null) {
        client = await ctx.client({ remote: { baseUrl: `${origin}/api`, token: workspace.token } });
        const about = { origin, store: describeStore(store), workspace };
        signal = await forwardEvents(ctx, client.listen, opts, (session, target) => announce(ctx, about, session, target));
      }
    } finally {
      // The listener's own connections first: the server would otherwise wait for them to go idle and time out.
      await client?.close();
      await handle.close();
    }
    if (signal !== null) stopped(ctx, signal);
  } finally {
    unsubscribe();
  }
}

/** Everything a developer needs, at once, when events can flow: where, which workspace, its token, the secret. */
function announce(
  ctx: CliContext,
  about: { origin: string; store: string; workspace: DevWorkspace },
  session: ListenSession,
  target: ForwardTarget | null,
): void {
  const { origin, store, workspace } = about;
  const baseUrl = `${origin}/api`;
  const exports = `export SVC_BASE_URL=${baseUrl} SVC_TOKEN=${workspace.token}`;
  const text = [
    `Serving ${store}`,
    `  Public API   ${baseUrl}`,
    `  Workspace    ${workspace.name} (${workspace.id}), sending from the simulated account ${workspace.account}`,
    `  Token        ${workspace.token}`,
    '',
    'In another shell, svc commands and your code reach this workspace with:',
    `  ${exports}`,
    '',
    ...(target === null ? [] : [`Forwarding every event to ${target.url}`]),
    `Ready! Your webhook signing secret is ${session.secret} (^C to quit)`,
  ].join('\n');
  ctx.output.streamLine(text, {
    type: 'ready',
    url: origin,
    base_url: baseUrl,
    store,
    workspace: { id: workspace.id, name: workspace.name },
    account: workspace.account,
    token: workspace.token,
    export: exports,
    session_id: session.id,
    secret: session.secret,
    events: session.events,
    forward_to: target?.url ?? null,
  });
}

/** Ctrl-C is an interruption (130); SIGTERM is the normal way to stop a service (0), as for `svc serve`. */
function stopped(ctx: CliContext, signal: InterruptSignal): void {
  ctx.output.note(`${signal}: stopped; the listen session and the server are gone`);
  ctx.exitCode = signal === 'SIGINT' ? EXIT.interrupted : EXIT.ok;
}
