/**
 * Opens a file the user named (`--text-file`, `--file`, `svc files upload`) as a stream of chunks, without
 * ever parking a thread in a call that may wait forever. Node opens and reads files on libuv's thread pool,
 * and exiting the process waits for those threads: a plain `open()` of a FIFO nobody writes to blocked its
 * thread until a writer came, so Ctrl-C and SIGTERM could not end svc. Here the file is opened non-blocking,
 * and what can wait (a FIFO such as `/dev/stdin` or `<(cmd)`, a terminal) is read through the event loop.
 */
import { close, constants, createReadStream, fstat, open, type Stats } from 'node:fs';
import { Socket } from 'node:net';
import { ReadStream as TerminalReadStream, isatty } from 'node:tty';
import { promisify } from 'node:util';

/** An opened input. Iterate `chunks` once; leaving the loop early (or reaching the end) closes the file. */
export interface InputSource {
  /** Bytes in the file when it is a regular file (it may still grow while read); null for pipes and devices. */
  size: number | null;
  chunks: AsyncIterable<Uint8Array>;
}

/** Why a path could not be opened, in words: `does not exist`, `is a directory`, `cannot be read (EACCES)`. */
export class InputOpenError extends Error {
  constructor(readonly code: string) {
    super(code === 'ENOENT' ? 'does not exist' : code === 'EISDIR' ? 'is a directory' : `cannot be read (${code})`);
    this.name = 'InputOpenError';
  }
}

const openFd = promisify(open);
const statFd = promisify(fstat);

/** Opens `path` for reading; refuses directories. Reading waits on the event loop only, never on a thread. */
export async function openInput(path: string): Promise<InputSource> {
  let fd: number;
  let stats: Stats;
  try {
    // O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer; regular files ignore it.
    fd = await openFd(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new InputOpenError((error as NodeJS.ErrnoException).code ?? 'EIO');
  }
  try {
    stats = await statFd(fd);
  } catch (error) {
    close(fd, () => undefined);
    throw new InputOpenError((error as NodeJS.ErrnoException).code ?? 'EIO');
  }
  if (stats.isDirectory()) {
    close(fd, () => undefined);
    throw new InputOpenError('EISDIR');
  }
  // A FIFO is read like a pipe of the event loop (epoll): no thread waits on it, and it ends when the
  // writer closes. A terminal likewise. Anything else (files, /dev/zero) never waits: read it in chunks.
  if (stats.isFIFO()) return { size: null, chunks: new Socket({ fd, readable: true, writable: false }) };
  if (stats.isCharacterDevice() && isatty(fd)) return { size: null, chunks: new TerminalReadStream(fd) };
  return { size: stats.isFile() ? stats.size : null, chunks: createReadStream('', { fd, highWaterMark: 1024 * 1024 }) };
}
