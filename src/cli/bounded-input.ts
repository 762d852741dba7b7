/**
 * Reads input up to a limit and stops there: a message text is known to be too long at its 10,001st
 * character, a file at its 25 MiB + 1st byte, so `svc send --text - < /dev/zero` refuses in a moment with
 * a few megabytes in memory rather than reading everything first (it once grew to gigabytes before saying
 * "at most 10000 characters").
 */

/** Thrown when the input passed the limit; the caller words the error for its flag. */
export class InputTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`input is larger than ${limit}`);
    this.name = 'InputTooLarge';
  }
}

/**
 * The UTF-8 text of `chunks` without its trailing line breaks (as `$(...)` drops them in a shell, so `echo hi`
 * sends "hi"), refused with InputTooLarge as soon as it must be longer than `maxCharacters` code points,
 * counted as the engine counts them. Reading stops there: leaving the loop closes the stream.
 */
export async function readTextWithin(chunks: AsyncIterable<Uint8Array | string>, maxCharacters: number): Promise<string> {
  const text = new TextCollector(maxCharacters);
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of chunks) text.add(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
  text.add(decoder.decode());
  return text.finish();
}

/**
 * Collects text while holding at most `max` characters. Line breaks at the current end are kept aside: they
 * are dropped if the input ends there and become part of the text if more follows. Only the `\n` / `\r\n`
 * run that ends the input is dropped (`/(\r?\n)+$/`), so a lone `\r` before it stays text.
 */
class TextCollector {
  private text = '';
  private length = 0;
  /** `\n` and `\r\n` units after `text`, held only while they would still fit. */
  private breaks = '';
  private breaksLength = 0;
  /** A `\r` after `breaks`, not yet known to start a `\r\n`. */
  private pendingCr = false;

  constructor(private readonly max: number) {}

  add(piece: string): void {
    for (const [, content, lineBreaks] of piece.matchAll(/([^\r\n]*)([\r\n]*)/g)) {
      if (content !== undefined && content !== '') this.content(content);
      for (const char of lineBreaks ?? '') this.lineBreak(char);
    }
  }

  finish(): string {
    if (this.pendingCr) this.settleBreaks();
    return this.text;
  }

  private content(content: string): void {
    this.settleBreaks();
    let count = 0;
    for (const _ of content) count += 1;
    this.append(content, count);
  }

  private lineBreak(char: string): void {
    if (char === '\n') {
      this.holdBreak(this.pendingCr ? '\r\n' : '\n');
      this.pendingCr = false;
    } else if (this.pendingCr) {
      // `\r\r`: the first `\r` can no longer be part of a trailing `\r\n`, so it and the breaks before it are text.
      this.settleBreaks();
      this.pendingCr = true;
    } else {
      this.pendingCr = true;
    }
  }

  /** More text follows the line breaks held aside: they are part of it after all. */
  private settleBreaks(): void {
    const held = this.breaks + (this.pendingCr ? '\r' : '');
    const heldLength = this.breaksLength + (this.pendingCr ? 1 : 0);
    this.breaks = '';
    this.breaksLength = 0;
    this.pendingCr = false;
    this.append(held, heldLength);
  }

  private holdBreak(unit: string): void {
    this.breaksLength += unit.length;
    // Past the limit they are not kept: were more text to follow, it would be too long anyway.
    if (this.length + this.breaksLength <= this.max) this.breaks += unit;
  }

  private append(piece: string, count: number): void {
    if (this.length + count > this.max) throw new InputTooLarge(this.max);
    this.text += piece;
    this.length += count;
  }
}

/**
 * The bytes of `chunks`, refused with InputTooLarge as soon as they pass `maxBytes` (or at once when `size`,
 * a regular file's length, already does). At most `maxBytes` plus one chunk is held.
 */
export async function readBytesWithin(source: { size: number | null; chunks: AsyncIterable<Uint8Array> }, maxBytes: number): Promise<Uint8Array> {
  if (source.size !== null && source.size > maxBytes) {
    await closeUnread(source.chunks);
    throw new InputTooLarge(maxBytes);
  }
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of source.chunks) {
    total += chunk.byteLength;
    if (total > maxBytes) throw new InputTooLarge(maxBytes);
    parts.push(chunk);
  }
  // A plain Uint8Array of its own (not a view into Buffer's shared pool), as uploads expect.
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  return bytes;
}

/** Closes a stream that was opened but will not be read (an async iterator's return() destroys it). */
async function closeUnread(chunks: AsyncIterable<Uint8Array>): Promise<void> {
  await chunks[Symbol.asyncIterator]().return?.();
}
