import type { Clock } from '../wire/clock.js';
import type { Logger } from '../engine/context.js';
import type { WorkerControl } from '../engine/engine-api.js';

/** One kind of background work that the runner drives. */
export interface JobRunner {
  readonly name: string;
  /**
   * Processes everything due now; resolves with how many jobs ran. `woken`: the run was asked for by a wake-up
   * (this process, or another replica, has just queued work for it), not by a poll or the start.
   */
  runDue(woken?: boolean): Promise<number>;
  /** Earliest time more work could be due, or null when there is none known (read from the store, or remembered). */
  nextDueAt(): number | null | Promise<number | null>;
  /** A runner that drives itself with real timers (the webhook worker) has these; the others get a loop. */
  start?(): void;
  stop?(): Promise<void>;
  /** How a self-driving runner is nudged (`WorkerRunner.wake`); a looped runner is woken by its loop. */
  wake?(): void;
  /** A looped runner's own start, given the wake-up of its loop (work handed to it in this process). */
  onStart?(wakeLoop: () => void): void;
  /** A looped runner's own stop, once its last run has ended. */
  onStop?(): Promise<void>;
}

interface Loop {
  start(): void;
  stop(): Promise<void>;
  wake(): void;
}

/** The runner's controls, plus a nudge for one runner when this process has just queued work for it. */
export interface WorkerRunner extends WorkerControl {
  /**
   * Runs the named runner soon instead of at its next poll. Safe to call inside a write transaction (also a
   * group-committed one): the run starts in a later turn of the event loop, after the commit.
   */
  wake(runnerName: string): void;
}

/**
 * How long a poll may wait at most on a PostgreSQL replica (`svc serve --database`), doubling after each look that
 * found no work. Every wake-up reaches every replica by NOTIFY there (src/runtime/wake-bus.ts), so a poll only
 * finds time-based work (retries, spacing, leases running out) and work whose NOTIFY was lost. At 100 ms an idle
 * replica made 63 statements a second and spent 67-113 ms of CPU a second; at 1 s, 8 and 34-69 ms/s.
 */
export const REPLICA_IDLE_POLL_MS = 1000;

/**
 * Drives job runners with real timers, each on its own loop: a slow runner (webhook endpoints may take
 * 5 s) never delays another (the send dispatcher). Other processes may add work to the same database at any
 * time, so each loop also polls at `pollMs`; it sleeps less when it knows work is due sooner. With `idlePollMs`
 * longer, a loop whose last run was a poll that found nothing waits twice as long as before, up to `idlePollMs`
 * (still less when it knows work is due sooner); a wake-up or a run that finds work brings it back to `pollMs`.
 */
export function createWorkerRunner(
  runners: JobRunner[],
  clock: Clock,
  logger: Logger,
  { pollMs = 100, idlePollMs = pollMs }: { pollMs?: number; idlePollMs?: number | undefined } = {},
): WorkerRunner {
  const runOne = async (runner: JobRunner, woken = false): Promise<number> => {
    try {
      return await runner.runDue(woken);
    } catch (error) {
      logger.error(`${runner.name} worker failed`, { error: String(error) });
      return 0;
    }
  };

  const loopOf = (runner: JobRunner): Loop => {
    if (runner.start !== undefined && runner.stop !== undefined) {
      // These drive themselves; a wake-up (the outbox's, after each enqueue commits) is handed on.
      return { start: () => runner.start?.(), stop: async () => runner.stop?.(), wake: () => runner.wake?.() };
    }
    let timer: NodeJS.Timeout | undefined;
    let running = false;
    let busy = false;
    // A wake that came while a run was under way: that run may already have looked, so run once more.
    let again = false;
    let wakeScheduled = false;
    let inFlight: Promise<number> = Promise.resolve(0);
    let pollWait = pollMs;
    // Reads when the next run is due and sets the timer; `busy` until then, so a wake-up meanwhile is not lost.
    const schedule = async () => {
      let due: number | null = null;
      try {
        due = await runner.nextDueAt();
      } catch (error) {
        // A failing read (a busy or damaged database) must not escape the timer: try again at the next poll.
        logger.error(`${runner.name} worker failed`, { error: String(error) });
      }
      if (!running) return;
      if (again) {
        again = false;
        tick(true);
        return;
      }
      busy = false;
      const wait = due === null ? pollWait : Math.max(0, Math.min(pollWait, due - clock.now()));
      timer = setTimeout(() => tick(false), wait);
      timer.unref?.();
    };
    const tick = (woken: boolean) => {
      busy = true;
      const run = runOne(runner, woken).then(async (count) => {
        pollWait = woken || count > 0 ? pollMs : Math.min(idlePollMs, pollWait * 2);
        if (again && running) {
          again = false;
          tick(true);
        } else if (running) {
          await schedule();
        } else {
          busy = false;
        }
        return count;
      });
      inFlight = run;
    };
    const runNow = () => {
      wakeScheduled = false;
      if (!running) return;
      if (busy) {
        again = true;
        return;
      }
      if (timer !== undefined) clearTimeout(timer);
      tick(true);
    };
    const loop: Loop = {
      start() {
        if (running) return;
        running = true;
        runner.onStart?.(() => loop.wake());
        tick(false);
      },
      async stop() {
        running = false;
        if (timer !== undefined) clearTimeout(timer);
        // A run that was under way may have started another before it saw `running` go false.
        let current: Promise<number>;
        do {
          current = inFlight;
          await current;
        } while (current !== inFlight);
        await runner.onStop?.();
      },
      wake() {
        if (!running || wakeScheduled) return;
        wakeScheduled = true;
        // Coalesces the wake-ups of one turn. Those asked for inside a write transaction arrive here only
        // after its commit (inWriteTransaction holds them until then), so the run sees the new rows.
        setImmediate(runNow);
      },
    };
    return loop;
  };

  const loops = runners.map(loopOf);
  const byName = new Map(runners.map((runner, index) => [runner.name, loops[index]!]));
  return {
    wake: (runnerName) => byName.get(runnerName)?.wake(),
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
