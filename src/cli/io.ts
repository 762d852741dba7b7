import type { SvcClient } from '../client/client.js';
import type { ClientConfig } from '../client/create-client.js';
import type { PartnerClient, PartnerClientConfig } from '../client/partner-client.js';
import type { Engine } from '../runtime/open-engine.js';

/** One question put to a human; `password` hides what is typed; `confirm` answers "yes" or "no". */
export interface PromptQuestion {
  kind: 'input' | 'password' | 'confirm';
  message: string;
  default?: string;
}

/** What `svc serve` starts: see src/http/serve.ts. */
export interface ServeOptions {
  port: number;
  host: string;
  dataDir: string;
  /** A `postgres://` URL (--database, SVC_DATABASE_URL): the database served instead of `dataDir`. */
  databaseUrl?: string;
  dev: boolean;
  publicUrl?: string;
  rateLimitPerMinute?: number;
  webhookRetryDelaysMs?: number[];
  /** How long a claimed send job stays leased (env SVC_SEND_LEASE_MS); the engine's default when absent. */
  sendLeaseMs?: number;
  /** SMTP URL for owner notification e-mails (--smtp-url, SVC_SMTP_URL); it holds a password, never print it. */
  smtpUrl?: string;
  smtpFrom?: string;
  /** Serve Prometheus metrics at GET /metrics (--no-metrics turns it off). */
  metrics?: boolean;
  /** Bearer token GET /metrics requires (--metrics-token, SVC_METRICS_TOKEN); a secret, never print it. */
  metricsToken?: string;
  /** One line per request, in this format, to `write` (stderr); none when absent. */
  requestLog?: { format: 'text' | 'json'; write: (chunk: string) => void };
  log: (line: string) => void;
}

/** A running server. */
export interface ServeHandle {
  url: string;
  close(): Promise<void>;
}

export type InterruptSignal = 'SIGINT' | 'SIGTERM';

/**
 * Everything the CLI touches outside itself. Tests pass fakes (captured output, answered prompts, a fake
 * client); `bin/svc.js` passes the real process. Omitted members fall back to the real implementation.
 */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** stderr for many lines (`svc serve`'s request log): must not block; defaults to `stderr`. */
  logLines?: (text: string) => void;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  /** Defaults to `stdoutIsTTY`; the send spinner shows only when stderr is a terminal. */
  stderrIsTTY?: boolean;
  env: Record<string, string | undefined>;
  /** Asks a human; only called when stdin and stdout are both terminals. */
  prompt?: (question: PromptQuestion) => Promise<string>;
  createClient?: (config: ClientConfig) => Promise<SvcClient>;
  createPartnerClient?: (config: PartnerClientConfig) => Promise<PartnerClient>;
  openEngine?: (opts: { dataDir: string; databaseUrl?: string }) => Promise<Engine>;
  serve?: (opts: ServeOptions) => Promise<ServeHandle>;
  /**
   * Lets a long-running command (serve, waiting for delivery) handle Ctrl-C itself; returns an unsubscribe.
   * While nobody listens, the binary exits with 130 straight away.
   */
  onInterrupt?: (handler: (signal: InterruptSignal) => void) => () => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** Standard input, chunk by chunk (for `--text -`); the reader stops early, closing it, past a limit. */
  stdin?: () => AsyncIterable<Uint8Array | string>;
}

/** CliIo with every optional member filled in. */
export type ResolvedIo = Required<CliIo>;
