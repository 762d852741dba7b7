import type { SvcClient } from '../client/client.js';
import type { MessageDto } from '../client/types.js';
import type { CliContext } from './context.js';
import { CliError, EXIT } from './errors.js';

const POLL_MS = 200;
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** How waiting ended: a final status, or the time ran out with the message still in the queue. */
export type WaitOutcome = { final: true; message: MessageDto } | { final: false; message: MessageDto };

/**
 * Polls a message until it is Sent or Failed or `timeoutMs` passes. A spinner is drawn on stderr only when
 * stderr is a terminal, so pipes and --json output stay clean. Ctrl-C stops waiting with exit 130 and says
 * how to look the message up later, since it stays queued.
 */
export async function waitForMessage(
  ctx: CliContext,
  client: SvcClient,
  uid: string,
  timeoutMs: number,
): Promise<WaitOutcome> {
  const { io, output } = ctx;
  const spin = output.stderrIsTTY && !output.json;
  const deadline = io.now() + timeoutMs;
  let interrupted = false;
  const unsubscribe = io.onInterrupt(() => {
    interrupted = true;
  });
  let frame = 0;
  try {
    for (;;) {
      const message = await client.getMessage(uid);
      if (message.status === 'Sent' || message.status === 'Failed') return { final: true, message };
      if (interrupted) {
        throw new CliError(
          'interrupted',
          `stopped waiting; message ${uid} is ${message.status}`,
          `it stays queued; check it with \`svc messages get ${uid}\``,
          EXIT.interrupted,
        );
      }
      if (io.now() >= deadline) return { final: false, message };
      if (spin) output.progress(`\r${FRAMES[frame++ % FRAMES.length]} ${message.status}: waiting for delivery…`);
      await io.sleep(POLL_MS);
    }
  } finally {
    unsubscribe();
    // Erase the spinner line so the result starts on a clean line.
    if (spin && frame > 0) output.progress('\r\x1b[2K');
  }
}
