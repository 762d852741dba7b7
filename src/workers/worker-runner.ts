import type { Clock } from '../engine/clock.js';
import type { Logger } from '../engine/context.js';
import type { WorkerControl } from '../engine/engine-api.js';

/** One kind of background work that the runner drives. */
export interface JobRunner {
  readonly name: string;
  /** Processes everything due now; resolves with how many jobs ran. */
  runDue(): Promise<number>;
  /** Earliest time more work could be due, or null when there is none known. */
  nextDueAt(): number | null;
  /** A runner that drives itself with real timers (the webhook worker) has these; the others get a loop. */
  start?(): void;
  stop?(): Promise<void>;
}

interface Loop {
  start(): void;
  stop(): Promise<void>;
}

/**
 * Drives job runners with real timers, each on its own loop: a slow runner (webhook endpoints may take
 * 5 s) never delays another (the send dispatcher). Other processes may add work to the same database at any
 * time, so each loop also polls at `pollMs`; it sleeps less when it knows work is due sooner.
 */
export function createWorkerRunner(runners: JobRunner[], clock: Clock, logger: Logger, pollMs = 100): WorkerControl {
  const runOne = async (runner: JobRunner): Promise<number> => {
    try {
      return await runner.runDue();
    } catch (error) {
      logger.error(`${runner.name} worker failed`, { error: String(error) });
      return 0;
    }
  };

  const loopOf = (runner: JobRunner): Loop => {
    if (runner.start !== undefined && runner.stop !== undefined) {
      return { start: () => runner.start?.(), stop: async () => runner.stop?.() };
    }
    let timer: NodeJS.Timeout | undefined;
    let running = false;
    let inFlight: Promise<number> = Promise.resolve(0);
    const schedule = () => {
      if (!running) return;
      const due = runner.nextDueAt();
      const wait = due === null ? pollMs : Math.max(0, Math.min(pollMs, due - clock.now()));
      timer = setTimeout(tick, wait);
      timer.unref?.();
    };
    const tick = () => {
      inFlight = runOne(runner);
      void inFlight.finally(schedule);
    };
    return {
      start() {
        if (running) return;
        running = true;
        tick();
      },
      async stop() {
        running = false;
        if (timer !== undefined) clearTimeout(timer);
        await inFlight;
      },
    };
  };

  const loops = runners.map(loopOf);
  return {
    start: () => loops.forEach((loop) => loop.start()),
    stop: async () => void (await Promise.all(loops.map((loop) => loop.stop()))),
    // With a fake clock, tests process everything due in turn, each runner to completion.
    async runDue() {
      let total = 0;
      for (const runner of runners) total += await runOne(runner);
      return total;
    },
  };
}
