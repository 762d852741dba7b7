/**
 * The CLI stops reading its input at the limit (10,000 characters of text, 25 MiB of file), so an endless
 * pipe or /dev/zero is refused in a moment with bounded memory, and a wait on a FIFO that nobody writes to
 * ends on Ctrl-C or SIGTERM. Real processes: the built binary, real pipes, a real FIFO, real signals.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, ProcessSandbox } from '../support/svc-process.js';

/** Far above what a bounded run needs (about 60 MB for text, 80 MB for a 25 MiB file), far below reading all. */
const PEAK_RSS_BOUND_MB = 250;
/** At most this much is fed to a child: enough for a reader that keeps everything to pass the bound many times. */
const FEED_LIMIT_BYTES = 256 * 1024 * 1024;

interface MeasuredRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** Peak resident memory in MB: the child's own maxRSS at exit, or the highest VmHWM sampled from /proc. */
  peakMb: number;
  /** Bytes of standard input the child took before it stopped reading. */
  fedBytes: number;
}

describe('svc CLI input: read up to the limit, then stop', () => {
  let box: ProcessSandbox;
  const children = new Set<ChildProcess>();
  afterEach(async () => {
    for (const child of children) child.kill('SIGKILL');
    children.clear();
    await box?.cleanup();
  });

  /**
   * Runs `svc ...args` with a preload that records `process.resourceUsage().maxRSS` on exit, samples VmHWM
   * from /proc meanwhile and kills the child past the bound (a reader that keeps everything would otherwise
   * take gigabytes). `feed` writes that byte endlessly (up to FEED_LIMIT_BYTES) to the child's stdin, or to
   * the FIFO `into` names once the child opens it.
   */
  function runMeasured(args: string[], feed?: { byte: number; into?: string }): Promise<MeasuredRun> {
    const peakFile = join(box.tempDir('svc-peak-'), 'peak');
    const preload = join(box.tempDir('svc-preload-'), 'peak-rss.cjs');
    writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(peakFile)}, String(process.resourceUsage().maxRSS)));\n`);
    const child = spawn(process.execPath, ['--require', preload, BIN, ...args], {
      cwd: box.home,
      env: box.env(),
      stdio: [feed === undefined || feed.into !== undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'],
    });
    children.add(child);
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    let sampledKb = 0;
    const sampler = setInterval(() => {
      const kb = Number(/VmHWM:\s+(\d+)/.exec(readStatus(child.pid!))?.[1] ?? 0);
      sampledKb = Math.max(sampledKb, kb);
      if (sampledKb > PEAK_RSS_BOUND_MB * 1024) child.kill('SIGKILL');
    }, 10);
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    let fedBytes = 0;
    if (feed !== undefined) {
      const chunk = Buffer.alloc(1024 * 1024, feed.byte);
      const input = feed.into === undefined ? child.stdin! : createWriteStream(feed.into);
      input.on('error', () => undefined);
      const pump = () => {
        while (fedBytes < FEED_LIMIT_BYTES && !input.destroyed) {
          fedBytes += chunk.length;
          if (!input.write(chunk)) return void input.once('drain', pump);
        }
        input.end();
      };
      pump();
    }
    return new Promise((resolve) => {
      child.once('close', (code, signal) => {
        clearInterval(sampler);
        clearTimeout(killer);
        children.delete(child);
        const reportedKb = existsSync(peakFile) ? Number(readFileSync(peakFile, 'utf8')) : 0;
        resolve({ code, signal, stderr, peakMb: Math.round(Math.max(sampledKb, reportedKb) / 1024), fedBytes });
      });
    });
  }

  it('`svc send --text -` with an endless stdin: the limit error, exit 1, bounded memory, stdin left unread', async () => {
    box = new ProcessSandbox();
    const run = await runMeasured(['send', '--phone', '+14155550123', '--text', '-', '--no-wait'], { byte: 0x61 });
    expect(run.peakMb).toBeLessThan(PEAK_RSS_BOUND_MB);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the message text from standard input is too long: --text may be at most 10000 characters');
    expect(run.stderr).not.toMatch(/bug in svc|\n\s+at /);
    expect(run.fedBytes).toBeLessThan(FEED_LIMIT_BYTES);
    // Refused before anything was opened: no data directory was made.
    expect(existsSync(join(box.home, 'data'))).toBe(false);
  });

  it('`--text-file /dev/zero` and `--file /dev/zero`: refused at the limit with bounded memory', async () => {
    box = new ProcessSandbox();
    const text = await runMeasured(['send', '--phone', '+14155550123', '--text-file', '/dev/zero', '--no-wait']);
    expect(text.peakMb).toBeLessThan(PEAK_RSS_BOUND_MB);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain('the message text from /dev/zero is too long: --text may be at most 10000 characters');

    const file = await runMeasured(['send', '--phone', '+14155550123', '--file', '/dev/zero', '--no-wait']);
    expect(file.peakMb).toBeLessThan(PEAK_RSS_BOUND_MB);
    expect(file.code).toBe(1);
    expect(file.stderr).toContain('file /dev/zero is larger than 26214400 bytes (25 MiB), the largest upload svc accepts');
    expect(existsSync(join(box.home, 'data'))).toBe(false);
  });

  it('`svc files upload FIFO` with an endless writer: refused at 25 MiB with bounded memory', async () => {
    box = new ProcessSandbox();
    const path = makeFifo(box);
    const run = await runMeasured(['files', 'upload', path, '--json'], { byte: 0x00, into: path });
    expect(run.peakMb).toBeLessThan(PEAK_RSS_BOUND_MB);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stderr.trim())).toMatchObject({ error: { code: 'payload_too_large' } });
    expect(run.fedBytes).toBeLessThan(FEED_LIMIT_BYTES);
  });
});

describe('svc CLI input: a FIFO with no writer', () => {
  let box: ProcessSandbox;
  afterEach(async () => {
    await box?.cleanup();
  });

  const fifo = (): string => makeFifo(box);

  /** Starts `svc ...args`, waits until it is blocked on the FIFO, signals it and returns how it ended. */
  async function interrupt(args: string[], signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: box.home, env: box.env(), stdio: 'ignore' });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, sig) => resolve({ code, signal: sig })));
    // Long enough for the binary to load and reach the FIFO (it waits there for as long as nobody writes).
    await new Promise((r) => setTimeout(r, 1500));
    expect(child.exitCode).toBeNull();
    const sent = Date.now();
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    const outcome = await exited;
    clearTimeout(timer);
    return { ...outcome, ms: Date.now() - sent };
  }

  it('`svc send --text-file FIFO` ends on SIGINT (130) and on SIGTERM (143), having written nothing', async () => {
    box = new ProcessSandbox();
    const path = fifo();
    const args = ['send', '--phone', '+14155550123', '--text-file', path, '--no-wait'];
    expect(await interrupt(args, 'SIGINT')).toMatchObject({ code: 130, signal: null });
    expect(await interrupt(args, 'SIGTERM')).toMatchObject({ code: 143, signal: null });
    expect(existsSync(join(box.home, 'data'))).toBe(false);
  });

  it('`svc send --file FIFO` and `svc files upload FIFO` end on SIGINT (130) too', async () => {
    box = new ProcessSandbox();
    const path = fifo();
    expect(await interrupt(['send', '--phone', '+14155550123', '--file', path, '--no-wait'], 'SIGINT')).toMatchObject({ code: 130 });
    expect(await interrupt(['files', 'upload', path], 'SIGINT')).toMatchObject({ code: 130 });
    expect(existsSync(join(box.home, 'data')) ? readdirSync(join(box.home, 'data')) : []).toEqual([]);
  });

  it('a FIFO that gets a writer is read as before: the text is sent', async () => {
    box = new ProcessSandbox();
    const path = fifo();
    const child = spawn(process.execPath, [BIN, 'send', '--phone', '+14155550123', '--text-file', path, '--json'], { cwd: box.home, env: box.env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    await new Promise((r) => setTimeout(r, 500));
    // The writer opens the FIFO only now; svc, already waiting on it, reads the line and sends it.
    const writer = spawnSync('sh', ['-c', `printf 'from a fifo\\n' > "$0"`, path], { timeout: 10_000 });
    expect(writer.status).toBe(0);
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    expect(await exited).toBe(0);
    clearTimeout(timer);
    expect(JSON.parse(stdout)).toMatchObject({ status: 'Sent', credits: 1 });
    const shown = await box.ok(['messages', 'get', (JSON.parse(stdout) as { message_uid: string }).message_uid, '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ text: 'from a fifo' });
  });
});

function makeFifo(box: ProcessSandbox): string {
  const path = join(box.tempDir('svc-fifo-'), 'input');
  const made = spawnSync('mkfifo', [path]);
  if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr.toString()}`);
  return path;
}

function readStatus(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
}
