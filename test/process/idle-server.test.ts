/**
 * An idle `svc serve` sleeps, on SQLite and as a PostgreSQL replica: its threads together wake fewer than 60 times
 * a second (each wake-up is a voluntary context switch, counted by Linux in /proc). Before, an idle server woke
 * 125-150 times a second: the event loop's lag sampled every 10 ms, the SQLite checkpoint thread every 100 ms, and
 * on PostgreSQL the polls' round trips every 100 ms.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { ProcessSandbox } from '../support/svc-process.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Voluntary context switches so far of every thread of `pid`. */
function wakeUps(pid: number): number {
  let total = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return total;
}

let box: ProcessSandbox;
let database: TestDatabase | undefined;
beforeEach(() => {
  box = new ProcessSandbox();
});
afterEach(async () => {
  await box.cleanup();
  await database?.drop();
  database = undefined;
});

describe.skipIf(!existsSync('/proc/self/task'))('an idle svc serve', () => {
  const wakeUpsPerSecond = async (store: 'sqlite' | 'postgres'): Promise<number> => {
    if (store === 'postgres') database = await createTestDatabase('idle_server');
    const server = await box.serve(box.tempDir(), database === undefined ? {} : { database: database.url });
    const pid = server.child.pid!;
    // Past the start (migrations, the first polls, code still being compiled).
    await sleep(3_000);
    const before = wakeUps(pid);
    await sleep(4_000);
    const perSecond = (wakeUps(pid) - before) / 4;
    await box.stop(server);
    return perSecond;
  };

  it('on SQLite wakes fewer than 60 times a second', { timeout: 30_000 }, async () => {
    expect(await wakeUpsPerSecond('sqlite')).toBeLessThan(60);
  });

  it('as a PostgreSQL replica wakes fewer than 60 times a second', { timeout: 30_000 }, async () => {
    expect(await wakeUpsPerSecond('postgres')).toBeLessThan(60);
  });
});
