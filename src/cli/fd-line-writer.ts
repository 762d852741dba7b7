/**
 * Lines to a file descriptor that neither block the event loop nor pile up without bound. `process.stderr`
 * writes files and terminals synchronously (a slow disk or terminal holds up every request), and buffers a
 * pipe in memory without limit when its reader stalls (`svc serve 2>&1 | less`, a paused log shipper): 1.8 MB
 * for 2,000 lines in a quick check, growing for as long as the server runs. Here one write at a time runs on
 * libuv's thread pool; lines arriving meanwhile join the next write, and past `maxPendingBytes` they are
 * dropped and counted, since a server that keeps serving matters more than a complete log.
 */
import { write } from 'node:fs';

/** Options of `fdLineWriter`. */
export interface FdLineWriterOptions {
  /** Most bytes waiting for the descriptor before lines are dropped (default 1 MiB). */
  maxPendingBytes?: number;
}

const DEFAULT_MAX_PENDING_BYTES = 1024 * 1024;
const RETRY_MS = 10;

/** A writer of whole lines to `fd`; returns at once. A descriptor that fails (EPIPE: the reader left) is given up. */
export function fdLineWriter(fd: number, options: FdLineWriterOptions = {}): (chunk: string) => void {
  const max = options.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES;
  let queue: string[] = [];
  let pendingBytes = 0;
  let dropped = 0;
  let writing = false;
  let broken = false;

  const writeAll = (buffer: Buffer, offset: number): void => {
    write(fd, buffer, offset, buffer.length - offset, null, (error, written) => {
      // A non-blocking descriptor that is full: wait for the reader rather than spin.
      if (error?.code === 'EAGAIN') return void setTimeout(() => writeAll(buffer, offset), RETRY_MS);
      if (error !== null) {
        broken = true;
        queue = [];
        return;
      }
      if (offset + written < buffer.length) return writeAll(buffer, offset + written);
      writing = false;
      pump();
    });
  };

  const pump = (): void => {
    if (writing || broken || (queue.length === 0 && dropped === 0)) return;
    let text = queue.join('');
    if (dropped > 0) text += `svc: ${dropped} log line(s) dropped: the reader of this output fell behind\n`;
    queue = [];
    pendingBytes = 0;
    dropped = 0;
    writing = true;
    writeAll(Buffer.from(text, 'utf8'), 0);
  };

  return (chunk: string) => {
    if (broken || chunk === '') return;
    if (pendingBytes + chunk.length > max) {
      dropped += chunk.split('\n').length - 1 || 1;
      return;
    }
    queue.push(chunk);
    pendingBytes += chunk.length;
    pump();
  };
}
