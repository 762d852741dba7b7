/**
 * `svc serve`'s request log must never hold up requests nor grow without bound: a reader of stderr that stops
 * reading (a paused pager, a stuck log shipper) fills the pipe, and `process.stderr` would buffer every line
 * after that in memory for as long as the server runs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ProcessSandbox } from '../support/svc-process.js';

describe('svc serve: request log with a stalled stderr reader', () => {
  let box: ProcessSandbox;
  afterEach(async () => box.cleanup());

  it('keeps answering while nobody reads stderr, drops what does not fit and says how many lines it dropped', async () => {
    box = new ProcessSandbox();
    const server = await box.serve(box.tempDir());
    server.child.stderr!.pause();
    // About 2 KiB a line: 900 requests are 1.8 MiB of log, far past a 64 KiB pipe buffer and the 1 MiB kept back.
    const pad = 'p'.repeat(2000);
    const started = Date.now();
    for (let batch = 0; batch < 30; batch++) {
      const statuses = await Promise.all(
        Array.from({ length: 30 }, (_, i) => fetch(`${server.url}/healthz?pad=${pad}&n=${batch * 30 + i}`, { signal: AbortSignal.timeout(5000) }).then((r) => r.status)),
      );
      expect(statuses.every((status) => status === 200)).toBe(true);
    }
    expect(Date.now() - started).toBeLessThan(15_000);

    server.child.stderr!.resume();
    const run = await box.stop(server);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^\S+Z GET \/healthz\?pad=p+&n=0 200 [\d.]+ms$/m);
    const dropped = /^svc: (\d+) log line\(s\) dropped: the reader of this output fell behind$/m.exec(run.stderr);
    expect(dropped).not.toBeNull();
    const written = run.stderr.split('\n').filter((line) => line.includes(' GET /healthz?pad=')).length;
    expect(written + Number(dropped![1])).toBe(900);
  }, 40_000);
});
