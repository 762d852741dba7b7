import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/wire/clock.js';
import { silentLogger } from '../../src/engine/context.js';
import { createWorkerRunner, type JobRunner } from '../../src/workers/worker-runner.js';
import { testEngine } from '../support/test-engine.js';

const counting = (name: string) => {
  const runner = {
    name,
    runs: 0,
    async runDue() {
      runner.runs += 1;
      return 0;
    },
    nextDueAt: () => null,
  };
  return runner;
};
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('worker runner wake', () => {
  it('runs the named runner at once instead of at its next poll; others are left alone', async () => {
    const send = counting('send');
    const other = counting('other');
    const workers = createWorkerRunner([send, other], systemClock, silentLogger, { pollMs: 60_000 });
    workers.start();
    await settle();
    expect([send.runs, other.runs]).toEqual([1, 1]);
    workers.wake('send');
    workers.wake('send'); // coalesced with the first
    workers.wake('unknown');
    await settle();
    expect([send.runs, other.runs]).toEqual([2, 1]);
    await workers.stop();
    workers.wake('send'); // stopped: nothing runs
    await settle();
    expect(send.runs).toBe(2);
  });

  it('tells a run whether a wake-up asked for it: the first run and the polls are not woken', async () => {
    const asked: boolean[] = [];
    const runner: JobRunner = {
      name: 'send',
      runDue: async (woken) => {
        asked.push(woken === true);
        return 0;
      },
      // Nothing due after the first run (the next poll a minute away); after the woken one, a poll in 30 ms.
      nextDueAt: () => (asked.length >= 2 ? Date.now() + 30 : null),
    };
    const runsReach = async (n: number) => {
      for (let waited = 0; asked.length < n && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    };
    const workers = createWorkerRunner([runner], systemClock, silentLogger, { pollMs: 60_000 });
    workers.start();
    await runsReach(1);
    workers.wake('send');
    await runsReach(3);
    await workers.stop();
    expect(asked.slice(0, 3)).toEqual([false, true, false]);
  });

  it('a wake during a run makes one more run after it', async () => {
    let release: () => void = () => undefined;
    let runs = 0;
    const slow: JobRunner = {
      name: 'send',
      runDue: () => new Promise<number>((resolve) => {
        runs += 1;
        release = () => resolve(0);
      }),
      nextDueAt: () => null,
    };
    const workers = createWorkerRunner([slow], systemClock, silentLogger, { pollMs: 60_000 });
    workers.start();
    workers.wake('send');
    await settle();
    expect(runs).toBe(1);
    release();
    await settle();
    expect(runs).toBe(2);
    release();
    await workers.stop();
  });

  it('accepting a send wakes the send dispatcher of this process', async () => {
    const { engine, api } = await testEngine();
    const woken: string[] = [];
    engine.context.wake = (name) => woken.push(name);
    await api.sendToPhone({ phone: '+14155550123', text: 'Hello' });
    expect(woken).toEqual(['send']);
    await expect(api.sendToPhone({ phone: 'nope', text: 'Hello' })).rejects.toThrow();
    expect(woken).toEqual(['send']);
  });
});
