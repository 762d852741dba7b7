import type { SvcClient } from '../client/client.js';
import type { MessageDto } from '../wire/types.js';
import type { CliContext } from './context.js';
import { CliError, EXIT } from './errors.js';
import { pollUntil } from './poll.js';

const POLL_MS = 200;

/** How waiting ended: a final status, or the time ran out with the message still in the queue. */
export type WaitOutcome = { final: true; message: MessageDto } | { final: false; message: MessageDto };

/**
 * Polls a message until it is Sent or Failed or `timeoutMs` passes. Ctrl-C stops waiting with exit 130 and
 * says how to look the message up later, since it stays queued.
 */
export async function waitForMessage(
  ctx: CliContext,
  client: SvcClient,
  uid: string,
  timeoutMs: number,
): Promise<WaitOutcome> {
  const { done, value: message } = await pollUntil(ctx, {
    read: () => client.getMessage(uid),
    done: (m) => m.status === 'Sent' || m.status === 'Failed',
    intervalMs: POLL_MS,
    timeoutMs,
    label: (m) => `${m.status}: waiting for delivery…`,
    interrupted: (m) =>
      new CliError(
        'interrupted',
        `stopped waiting; message ${uid} is ${m.status}`,
        `it stays queued; check it with \`svc messages get ${uid}\``,
        EXIT.interrupted,
      ),
  });
  return done ? { final: true, message } : { final: false, message };
}
