/**
 * Helpers for tests that spawn the built binary (`bin/svc.js` over `dist/`, so `npm run build` first, which
 * `npm test` does). Every child and temporary directory is tracked by a `ProcessSandbox`; `cleanup()` kills
 * what is still running and removes the directories, and runs from `afterEach` even when a test failed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(REPO_ROOT, 'bin', 'svc.js');
export const DIST_MAIN = join(REPO_ROOT, 'dist', 'cli', 'main.js');

/** Exit of one finished `svc` run. */
export interface SvcRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running `svc serve`. */
export interface SvcServer {
  /** Origin, e.g. http://127.0.0.1:41234 (the Public API is under `${url}/api`). */
  url: string;
  child: ChildProcess;
  /** Output so far (stdout and stderr interleaved), for failure messages. */
  output(): string;
  /** Resolves when the process has exited. */
  exited: Promise<SvcRun>;
}

/** Every child this process still has running, so even a crashing test worker does not leave servers behind. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** SVC_* variables of the developer's shell must not leak into spawned commands. */
function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('SVC_') && key !== 'NO_COLOR' && key !== 'FORCE_COLOR') env[key] = value;
  }
  return env;
}

export class ProcessSandbox {
  private readonly dirs: string[] = [];
  private readonly children = new Set<ChildProcess>();
  /** HOME, SVC_HOME and SVC_CONFIG_DIR of every spawned command: nothing touches the real home directory. */
  readonly home: string;

  constructor() {
    this.home = this.tempDir('svc-proc-home-');
  }

  tempDir(prefix = 'svc-proc-'): string {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    this.dirs.push(dir);
    return dir;
  }

  env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    return {
      ...baseEnv(),
      HOME: this.home,
      SVC_HOME: join(this.home, 'data'),
      SVC_CONFIG_DIR: join(this.home, 'config'),
      NO_COLOR: '1',
      ...extra,
    };
  }

  private spawnSvc(args: string[], env: Record<string, string>): { child: ChildProcess; done: Promise<SvcRun>; output: () => string } {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: this.home,
      env: this.env(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.children.add(child);
    live.add(child);
    let stdout = '';
    let stderr = '';
    let both = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      both += chunk;
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      both += chunk;
    });
    const done = new Promise<SvcRun>((resolveRun, reject) => {
      child.once('error', reject);
      // 'close' (not 'exit'): all output has been read by then.
      child.once('close', (code, signal) => {
        this.children.delete(child);
        live.delete(child);
        resolveRun({ code, signal, stdout, stderr });
      });
    });
    return { child, done, output: () => both };
  }

  /** Runs `svc ...args` to completion; a run that outlives `timeoutMs` is killed and fails the test. */
  async run(args: string[], opts: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<SvcRun> {
    const timeoutMs = opts.timeoutMs ?? 20_000;
    const { child, done } = this.spawnSvc(args, opts.env ?? {});
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`svc ${args.join(' ')} did not finish within ${timeoutMs} ms`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([done, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs `svc ...args` and expects exit 0; returns stdout parsed as JSON when `json` is set. */
  async ok(args: string[], opts: { env?: Record<string, string> } = {}): Promise<SvcRun> {
    const run = await this.run(args, opts);
    if (run.code !== 0) throw new Error(`svc ${args.join(' ')} exited ${run.code}:\n${run.stderr}${run.stdout}`);
    return run;
  }

  /** `svc admin workspace create --data DIR --name NAME [--quota N] --json`. */
  async createWorkspace(dataDir: string, name: string, quota?: number): Promise<{ workspace_id: number; token: string }> {
    const args = ['admin', 'workspace', 'create', '--data', dataDir, '--name', name, '--json'];
    if (quota !== undefined) args.push('--quota', String(quota));
    return JSON.parse((await this.ok(args)).stdout) as { workspace_id: number; token: string };
  }

  /**
   * `svc serve --port 0 --host 127.0.0.1 --data DIR`, resolved once it prints `listening on URL`. The rate
   * limit is raised out of the way unless `rateLimit` is given: most of these tests are about the queue and
   * credits, not about throttling. `database` adds `--database URL` (a replica on PostgreSQL).
   */
  async serve(
    dataDir: string,
    opts: { env?: Record<string, string>; timeoutMs?: number; args?: string[]; database?: string; rateLimit?: number } = {},
  ): Promise<SvcServer> {
    const args = ['serve', '--port', '0', '--host', '127.0.0.1', '--data', dataDir, '--rate-limit', String(opts.rateLimit ?? 1_000_000)];
    if (opts.database !== undefined) args.push('--database', opts.database);
    args.push(...(opts.args ?? []));
    const { child, done, output } = this.spawnSvc(args, opts.env ?? {});
    const timeoutMs = opts.timeoutMs ?? 15_000;
    const url = await new Promise<string>((resolveUrl, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`svc serve printed no "listening on" line within ${timeoutMs} ms:\n${output()}`));
      }, timeoutMs);
      const onData = () => {
        const match = /^listening on (http:\/\/\S+)$/m.exec(output());
        if (match) {
          clearTimeout(timer);
          child.stdout!.off('data', onData);
          resolveUrl(match[1]!);
        }
      };
      child.stdout!.on('data', onData);
      void done.then((run) => {
        clearTimeout(timer);
        reject(new Error(`svc serve exited (${run.code ?? run.signal}) before listening:\n${output()}`));
      }, reject);
    });
    return { url, child, output, exited: done };
  }

  /** Sends `signal` and waits (bounded) for the process to exit. */
  async stop(server: SvcServer, signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 15_000): Promise<SvcRun> {
    server.child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        server.exited,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            server.child.kill('SIGKILL');
            reject(new Error(`svc serve did not exit within ${timeoutMs} ms of ${signal}:\n${server.output()}`));
          }, timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Kills whatever is still running and removes every temporary directory. */
  async cleanup(): Promise<void> {
    const running = [...this.children];
    await Promise.all(
      running.map(
        (child) =>
          new Promise<void>((resolveExit) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolveExit();
            const timer = setTimeout(resolveExit, 5_000);
            child.once('close', () => {
              clearTimeout(timer);
              resolveExit();
            });
            child.kill('SIGKILL');
          }),
      ),
    );
    for (const dir of this.dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  }
}

/** A JSON request against a running server; returns the status and the parsed body (null when empty). */
export async function api<T = unknown>(
  server: SvcServer,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, body: (text === '' ? null : JSON.parse(text)) as T };
}

/** Waits until `check` returns a value other than undefined, polling every `intervalMs`, for at most `timeoutMs`. */
export async function pollUntil<T>(
  what: string,
  check: () => Promise<T | undefined>,
  { timeoutMs, intervalMs = 250 }: { timeoutMs: number; intervalMs?: number },
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Opens the data directory's database read-only for assertions; the caller closes it. */
export function openDatabaseReadOnly(dataDir: string): Database.Database {
  const file = join(dataDir, 'svc.db');
  if (!existsSync(file)) throw new Error(`no database at ${file}`);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return db;
}

/** One row per message of the workspace, with its ledger entries counted. */
export interface LedgerRow {
  uid: string;
  status: string;
  credits: number;
  debits: number;
  debit_sum: number;
  restores: number;
  restore_sum: number;
}

export function ledgerByMessage(db: Database.Database, workspaceId: number): LedgerRow[] {
  return db
    .prepare<[number], LedgerRow>(
      `SELECT m.uid, m.status, m.credits,
         (SELECT COUNT(*) FROM credit_ledger l WHERE l.message_id = m.id AND l.reason = 'debit') AS debits,
         (SELECT COALESCE(SUM(delta), 0) FROM credit_ledger l WHERE l.message_id = m.id AND l.reason = 'debit') AS debit_sum,
         (SELECT COUNT(*) FROM credit_ledger l WHERE l.message_id = m.id AND l.reason = 'restore') AS restores,
         (SELECT COALESCE(SUM(delta), 0) FROM credit_ledger l WHERE l.message_id = m.id AND l.reason = 'restore') AS restore_sum
       FROM messages m WHERE m.workspace_id = ? AND m.direction = 'sent' ORDER BY m.id`,
    )
    .all(workspaceId);
}

/** `quota_used` of the workspace and the sum of its ledger. */
export function quotaAndLedgerSum(db: Database.Database, workspaceId: number): { used: number; ledgerSum: number } {
  const used = db.prepare<[number], { quota_used: number }>('SELECT quota_used FROM workspaces WHERE id = ?').get(workspaceId)!.quota_used;
  const ledgerSum = db
    .prepare<[number], { s: number }>('SELECT COALESCE(SUM(delta), 0) AS s FROM credit_ledger WHERE workspace_id = ?')
    .get(workspaceId)!.s;
  return { used, ledgerSum };
}
