import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fdLineWriter } from '../../src/cli/fd-line-writer.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const tempFile = () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-fd-writer-'));
  dirs.push(dir);
  return join(dir, 'log');
};

/** Resolves once `path` holds `expected` bytes (the writes run on the thread pool). */
const settled = async (path: string, length: number) => {
  for (let i = 0; i < 200 && readFileSync(path, 'utf8').length < length; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  return readFileSync(path, 'utf8');
};

describe('fdLineWriter', () => {
  it('write: returns at once and writes every line in order', async () => {
    const path = tempFile();
    const fd = openSync(path, 'w');
    const write = fdLineWriter(fd);
    const lines = Array.from({ length: 500 }, (_, i) => `line ${i}\n`);
    for (const line of lines) write(line);
    expect(await settled(path, lines.join('').length)).toBe(lines.join(''));
    closeSync(fd);
  });

  it('write: past maxPendingBytes lines are dropped, and the next write says how many', async () => {
    const path = tempFile();
    const fd = openSync(path, 'w');
    const write = fdLineWriter(fd, { maxPendingBytes: 10 });
    write('aaaa\n'); // goes out at once
    write('bbbb\n'); // waits: 5 bytes
    write('cccc\n'); // waits: 10 bytes
    write('dddd\neeee\n'); // would be 20: dropped, two lines
    const expected = 'aaaa\nbbbb\ncccc\nsvc: 2 log line(s) dropped: the reader of this output fell behind\n';
    expect(await settled(path, expected.length)).toBe(expected);
    closeSync(fd);
  });

  it('write: a descriptor that fails is given up without throwing', async () => {
    const path = tempFile();
    const fd = openSync(path, 'w');
    closeSync(fd);
    const write = fdLineWriter(fd);
    write('lost\n');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(() => write('also lost\n')).not.toThrow();
    expect(readFileSync(path, 'utf8')).toBe('');
  });
});
