import type { CliContext } from './context.js';
import type { CliError } from './errors.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** What `pollUntil` reads, when it stops, and what it says while it waits. */
export interface PollOptions<T> {
  read: () => Promise<T>;
  done: (value: T) => boolean;
  intervalMs: number;
  timeoutMs: number;
  /** The spinner's text after the frame, from the latest value. */
  label: (value: T) => string;
  /** The error thrown when Ctrl-C arrives before `done`. */
  interrupted: (value: T) => CliError;
}

/** How polling ended: `done` held, or the time ran out; either way with the latest value. */
export type PollOutcome<T> = { done: boolean; value: T };

/**
 * Reads until `done` holds or `timeoutMs` passes. A spinner is drawn on stderr only when stderr is a terminal,
 * so pipes and --json output stay clean. Ctrl-C throws `interrupted(latest)`, which carries exit 130.
 */
export async function pollUntil<T>(ctx: CliContext, options: PollOptions<T>): Promise<PollOutcome<T>> {
  const { io, output } = ctx;
  const spin = output.stderrIsTTY && !output.json;
  const deadline = io.now() + options.timeoutMs;
  let interrupted = false;
  const unsubscribe = io.onInterrupt(() => {
    interrupted = true;
  });
  let frame = 0;
  try {
    for (;;) {
      const value = await options.read();
      if (options.done(value)) return { done: true, value };
      if (interrupted) throw options.interrupted(value);
      if (io.now() >= deadline) return { done: false, value };
      if (spin) output.progress(`\r${FRAMES[frame++ % FRAMES.length]} ${options.label(value)}`);
      await io.sleep(options.intervalMs);
    }
  } finally {
    unsubscribe();
    // Erase the spinner line so the result starts on a clean line.
    if (spin && frame > 0) output.progress('\r\x1b[2K');
  }
}
