/** Reading a message text or a file up to a limit: the same result as reading everything, but it stops at the limit. */
import { describe, expect, it } from 'vitest';
import { InputTooLarge, readBytesWithin, readTextWithin } from '../../src/cli/bounded-input.js';

/** `pieces` as a stream, counting how many the reader pulled. */
function stream(pieces: Array<string | Uint8Array>): { chunks: AsyncIterable<Uint8Array | string>; pulled: () => number; closed: () => boolean } {
  let pulled = 0;
  let closed = false;
  const chunks = {
    [Symbol.asyncIterator]() {
      return {
        next: async () => (pulled < pieces.length ? { done: false, value: pieces[pulled++]! } : { done: true as const, value: undefined }),
        return: async () => {
          closed = true;
          return { done: true as const, value: undefined };
        },
      };
    },
  };
  return { chunks, pulled: () => pulled, closed: () => closed };
}

const read = (pieces: Array<string | Uint8Array>, max: number) => readTextWithin(stream(pieces).chunks, max);
/** What `svc send` sent before: the whole input with its trailing `\n` / `\r\n` run dropped. */
const whole = (text: string) => text.replace(/(\r?\n)+$/, '');

describe('readTextWithin', () => {
  it('drops only the trailing \\n / \\r\\n run, as before, wherever the chunks split', async () => {
    const samples = ['hi\n', 'a\r\n\r\n', 'a\r', 'a\r\r\n', 'a\n\rb\n', 'a\n\n\nb', '\n\n', '\r', 'x\r\ry\r\n', 'é😀\n'];
    for (const text of samples) {
      for (let split = 0; split <= text.length; split += 1) {
        expect(await read([text.slice(0, split), text.slice(split)], 100)).toBe(whole(text));
      }
    }
  });

  it('counts code points as the engine does: exactly the limit passes, one more is refused', async () => {
    expect(await read(['😀'.repeat(5)], 5)).toBe('😀'.repeat(5));
    await expect(read(['😀'.repeat(6)], 5)).rejects.toBeInstanceOf(InputTooLarge);
    // A multi-byte character split across chunks is one character.
    const bytes = Buffer.from('é😀é');
    expect(await read([bytes.subarray(0, 1), bytes.subarray(1, 4), bytes.subarray(4)], 3)).toBe('é😀é');
    // Trailing line breaks do not count, however many; line breaks inside the text do.
    expect(await read(['abcde', '\n'.repeat(50), '\r\n'.repeat(50)], 5)).toBe('abcde');
    await expect(read(['abcd', '\n'.repeat(50), 'x'], 5)).rejects.toBeInstanceOf(InputTooLarge);
    expect(await read(['abc', '\n', 'd'], 5)).toBe('abc\nd');
    await expect(read(['abcde\r'], 5)).rejects.toBeInstanceOf(InputTooLarge);
  });

  it('stops pulling at the chunk that passes the limit and closes the stream', async () => {
    const input = stream(Array.from({ length: 1000 }, () => 'x'.repeat(100)));
    await expect(readTextWithin(input.chunks, 1000)).rejects.toBeInstanceOf(InputTooLarge);
    expect(input.pulled()).toBe(11);
    expect(input.closed()).toBe(true);
  });
});

describe('readBytesWithin', () => {
  const bytes = (n: number) => new Uint8Array(n).fill(7);

  it('returns every byte up to the limit and refuses the byte after it, without reading on', async () => {
    expect((await readBytesWithin({ size: null, chunks: stream([bytes(4), bytes(6)]).chunks as AsyncIterable<Uint8Array> }, 10)).byteLength).toBe(10);
    const endless = stream(Array.from({ length: 100 }, () => bytes(4)));
    await expect(readBytesWithin({ size: null, chunks: endless.chunks as AsyncIterable<Uint8Array> }, 10)).rejects.toBeInstanceOf(InputTooLarge);
    expect(endless.pulled()).toBe(3);
    expect(endless.closed()).toBe(true);
  });

  it('refuses a regular file whose size is already past the limit before reading it', async () => {
    const file = stream([bytes(4)]);
    await expect(readBytesWithin({ size: 11, chunks: file.chunks as AsyncIterable<Uint8Array> }, 10)).rejects.toBeInstanceOf(InputTooLarge);
    expect(file.pulled()).toBe(0);
    expect(file.closed()).toBe(true);
  });
});
