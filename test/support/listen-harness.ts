/**
 * Helpers for driving `svc webhooks listen` as a child process (the built binary) against a local receiver
 * that verifies every delivery with the `standardwebhooks` package, as a developer's own app would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { BIN, openDatabaseReadOnly, pollUntil, type ProcessSandbox, type SvcRun } from './svc-process.js';

/** One request the receiver got. */
export interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Null when the signature verified; the verifier's message otherwise. */
  verifyError: string | null;
  status: number;
}

/** A local app on 127.0.0.1, port 0. `answer` decides the status of each request (default 200). */
export interface Receiver {
  url: string;
  received: Received[];
  secret: string | null;
  answer: (body: string) => number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    received: [],
    secret: null,
    answer: () => 200,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      let verifyError: string | null = 'no secret known yet';
      if (receiver.secret !== null) {
        try {
          new Webhook(receiver.secret).verify(body, req.headers as Record<string, string>);
          verifyError = null;
        } catch (error) {
          verifyError = (error as Error).message;
        }
      }
      const status = receiver.answer(body);
      receiver.received.push({ headers: req.headers, body, verifyError, status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}

/** A running `svc webhooks listen`. */
export interface Listener {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<SvcRun>;
  /** Resolves with the signing secret once the Ready line is printed. */
  ready(timeoutMs?: number): Promise<string>;
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** Spawns `svc ...args` (normally `webhooks listen ...`) in the sandbox's environment. */
export function spawnListener(sandbox: ProcessSandbox, args: string[], readyTimeoutMs = 15_000, env: Record<string, string> = {}): Listener {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: sandbox.home, env: sandbox.env(env), stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<SvcRun>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      live.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
  // Text mode prints the Ready line, --json a {"type":"ready"} object; either means events can flow.
  const ready = (timeoutMs = readyTimeoutMs) =>
    pollUntil(
      'the Ready line',
      async () => {
        if (child.exitCode !== null) throw new Error(`listener exited ${child.exitCode} before Ready:\n${stderr}${stdout}`);
        const text = /^Ready! Your webhook signing secret is (whsec_\S+) \(\^C to quit\)$/m.exec(stdout)?.[1];
        return text ?? /^\{"type":"ready".*"secret":"(whsec_[^"]+)"/m.exec(stdout)?.[1];
      },
      { timeoutMs, intervalMs: 50 },
    );
  return { child, stdout: () => stdout, stderr: () => stderr, exited, ready };
}

/** Sends SIGINT and waits (bounded) for the listener to exit. */
export async function interrupt(listener: Listener, timeoutMs = 10_000): Promise<SvcRun> {
  listener.child.kill('SIGINT');
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      listener.exited,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          listener.child.kill('SIGKILL');
          reject(new Error(`listener did not exit within ${timeoutMs} ms of SIGINT:\n${listener.stderr()}`));
        }, timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Kills any listener a failed test left running. */
export function killListeners(): void {
  for (const child of live) child.kill('SIGKILL');
}

/** Waits until the receiver got requests matching `predicate` `count` times. */
export function waitForReceived(receiver: Receiver, what: string, predicate: (r: Received) => boolean, count = 1, timeoutMs = 15_000): Promise<Received[]> {
  return pollUntil(
    what,
    async () => {
      const matching = receiver.received.filter(predicate);
      return matching.length >= count ? matching : undefined;
    },
    { timeoutMs, intervalMs: 50 },
  );
}

/** Body text of a received request as JSON. */
export const bodyOf = (r: Received): Record<string, unknown> => JSON.parse(r.body) as Record<string, unknown>;

/** The message_uid of a docs/api-behaviour.md payload. */
export const messageUidOf = (r: Received): string | undefined =>
  ((bodyOf(r)['message'] as Record<string, unknown> | undefined)?.['message_uid'] as string | undefined);

/** Rows a data directory holds for listen sessions: sessions, their subscriptions and their deliveries. */
export function listenRows(dataDir: string): { sessions: number; subscriptions: number; deliveries: number } {
  const db = openDatabaseReadOnly(dataDir);
  try {
    const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    return {
      sessions: n('SELECT COUNT(*) AS n FROM listen_sessions'),
      subscriptions: n('SELECT COUNT(*) AS n FROM webhook_subscriptions WHERE listen_session_id IS NOT NULL'),
      deliveries: n(`SELECT COUNT(*) AS n FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
        WHERE s.listen_session_id IS NOT NULL`),
    };
  } finally {
    db.close();
  }
}

/** Attempt log and counter of the listener subscription for one event type, read from the database. */
export function listenerSubscriptionState(dataDir: string, eventType: string): { errors_counter: number; attempts: number[] } | undefined {
  const db = openDatabaseReadOnly(dataDir);
  try {
    const sub = db
      .prepare('SELECT id, errors_counter FROM webhook_subscriptions WHERE listen_session_id IS NOT NULL AND event_type = ?')
      .get(eventType) as { id: number; errors_counter: number } | undefined;
    if (sub === undefined) return undefined;
    const attempts = db
      .prepare(`SELECT a.status_code FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
        WHERE d.subscription_id = ? ORDER BY a.id`)
      .all(sub.id) as Array<{ status_code: number }>;
    return { errors_counter: sub.errors_counter, attempts: attempts.map((a) => a.status_code) };
  } finally {
    db.close();
  }
}

/** The local engine's data directory of a sandbox (SVC_HOME). */
export const localDataDir = (sandbox: ProcessSandbox): string => join(sandbox.home, 'data');
