/**
 * Every relative link of the README, the guides in docs/ and bench/README.md points at a file that exists, and
 * a `#fragment` at a heading of that file (GitHub's anchors), so moving a guide or renaming a heading cannot
 * leave a dead link behind.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const pages = ['README.md', 'bench/README.md', ...readdirSync('docs').filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

/** GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces to hyphens. */
export const anchor = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** Anchors of a Markdown file's headings (outside code blocks), with GitHub's -1, -2 for repeats. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of markdown.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const base = anchor(heading!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** Relative links `[text](target)` outside code blocks and inline code. */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/i.test(target));
}

describe('documentation links', () => {
  it('GitHub anchors are computed as GitHub does', () => {
    expect(anchor('A local loop with `svc dev`')).toBe('a-local-loop-with-svc-dev');
    expect(anchor('Stores: SQLite and PostgreSQL')).toBe('stores-sqlite-and-postgresql');
    expect(anchor('E-mail notices')).toBe('e-mail-notices');
  });

  it.each(pages)('%s: every relative link points at an existing file and heading', (page) => {
    const links = relativeLinks(readFileSync(page, 'utf8'));
    const dead = links.filter((link) => {
      const [path, fragment] = link.split('#') as [string, string | undefined];
      const file = path === '' ? page : normalize(join(dirname(page), path));
      if (!existsSync(file)) return true;
      return fragment !== undefined && !anchors(readFileSync(file, 'utf8')).has(fragment);
    });
    expect(dead).toEqual([]);
  });

  it('the README links every guide in docs/', () => {
    const readme = relativeLinks(readFileSync('README.md', 'utf8')).map((link) => link.split('#')[0]);
    for (const page of pages.filter((name) => name.startsWith('docs/'))) expect(readme).toContain(page);
  });
});
