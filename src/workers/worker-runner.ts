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
}

/**
 * Drives job runners with real timers. Other processes may add work to the same database at any time, so
 * the runner also polls at `pollMs`; it sleeps less when it knows work is due sooner.
 */
export function createWorkerRunner(runners: JobRunner[], clock: Clock, logger: Logger, pollMs = 100): WorkerControl {
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let inFlight: Promise<number> = Promise.resolve(0);

  const runDue = async (): Promise<number> => {
    let total = 0;
    for (const runner of runners) {
      try {
        total += await runner.runDue();
      } catch (error) {
        logger.error(`${runner.name} worker failed`, { error: String(error) });
      }
    }
    return total;
  };

  const schedule = () => {
    if (!running) return;
    const now = clock.now();
    const due = runners.map((r) => r.nextDueAt()).filter((t): t is number => t !== null);
    const wait = due.length === 0 ? pollMs : Math.max(0, Math.min(pollMs, Math.min(...due) - now));
    timer = setTimeout(tick, wait);
    timer.unref?.();
  };

  const tick = () => {
    inFlight = runDue();
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
    runDue,
  };
}
