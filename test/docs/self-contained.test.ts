/**
 * The project stands on its own: comments cite the project's own guides, never documents that are not in the
 * repository, and every guide a comment names exists.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs)$/.test(entry.name) ? [path] : [];
  });
}

const files = [...sourceFiles(join(ROOT, 'src')), ...sourceFiles(join(ROOT, 'test'))];

describe('the source cites its own documents', () => {
  it('no file cites SPEC.md or DESIGN.md, which are not in the repository', () => {
    const citing = files.filter((file) => !file.endsWith('self-contained.test.ts') && /\b(SPEC|DESIGN)\.md\b/.test(readFileSync(file, 'utf8')));
    expect(citing.map((file) => relative(ROOT, file))).toEqual([]);
  });

  it('every guide a comment names exists', () => {
    const named = new Set(files.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/\bdocs\/[a-z-]+\.md\b/g)].map((m) => m[0])));
    expect(named.size).toBeGreaterThan(0);
    expect([...named].filter((doc) => !existsSync(join(ROOT, doc)))).toEqual([]);
  });
});
