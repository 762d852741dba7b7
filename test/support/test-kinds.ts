/**
 * Which test files are unit tests, integration tests or timed tests, read from what each file uses, so a new
 * file needs no list to be kept. A file is an integration test when it, or a helper of test/ it imports
 * (followed through relative imports), starts processes, opens PostgreSQL, drives a browser, runs the built
 * package, or serves real HTTP on loopback (receivers that answer on real timers); it is a timed test when it
 * (or such a helper) times its own work on the real clock or in CPU time. `npm test` runs the unit tests (which
 * start nothing: SQLite, Fastify's inject, fake clocks) a file per core, the integration tests two files at a
 * time, and the timed tests one file at a time.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const INTEGRATION_MARKERS = [
  /from 'node:child_process'/,
  /support\/(private-)?postgres\.js'/,
  /from 'pg'/,
  /support\/compiled-engine\.js'/,
  /chromium|puppeteer|playwright/i,
  /\bdist\//,
  /from 'node:http'/,
];
// A bound on elapsed or CPU time holds for a file alone, not beside another on the same cores (8 sandboxes'
// start: 315 ms of CPU against a bound of 300, measured once with a second file running).
const TIMED_MARKER = /performance\.now\(\)|process\.cpuUsage|Date\.now\(\) - /;

type Kind = 'unit' | 'integration' | 'timed';
const RANK: Record<Kind, number> = { unit: 0, integration: 1, timed: 2 };
const heavier = (a: Kind, b: Kind): Kind => (RANK[a] >= RANK[b] ? a : b);

const importsOf = (file: string, source: string): string[] =>
  [...source.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)]
    .map((match) => resolve(dirname(file), match[1]!.replace(/\.js$/, '.ts')))
    .filter((path) => path.includes('/test/') && existsSync(path));

/** The file's own kind, made heavier by the helpers it imports. */
function kindOf(file: string, seen: Map<string, Kind>): Kind {
  const known = seen.get(file);
  if (known !== undefined) return known;
  seen.set(file, 'unit'); // a circle among helpers adds nothing
  const source = readFileSync(file, 'utf8');
  const own: Kind = TIMED_MARKER.test(source) ? 'timed' : INTEGRATION_MARKERS.some((marker) => marker.test(source)) ? 'integration' : 'unit';
  const result = importsOf(file, source).reduce<Kind>((kind, dep) => heavier(kind, kindOf(dep, seen)), own);
  seen.set(file, result);
  return result;
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Test files (relative to `root`) split by kind. */
export function testKinds(root: string): Record<Kind, string[]> {
  const seen = new Map<string, Kind>();
  const kinds: Record<Kind, string[]> = { unit: [], integration: [], timed: [] };
  for (const file of testFiles(join(root, 'test')).sort()) kinds[kindOf(file, seen)].push(file.slice(root.length + 1));
  return kinds;
}
