/**
 * Which test files are unit tests and which are integration tests, read from what each file uses, so a new
 * file needs no list to be kept: a file is an integration test when it, or a helper of test/ it imports
 * (followed through relative imports), starts processes, opens PostgreSQL, drives a browser, runs the built
 * package, serves real HTTP on loopback (receivers that answer on real timers), or times its own work on the
 * real clock or in CPU time. `npm test` runs those one file at a time, and the rest, which run in one process,
 * on SQLite, through Fastify's inject and fake clocks, a file per core.
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
  // A bound on elapsed or CPU time holds for a file alone, not beside another on the same cores (8 sandboxes'
  // CPU: 315 ms against a bound of 300, measured once with a second file running).
  /performance\.now\(\)|process\.cpuUsage|Date\.now\(\) - /,
];

const importsOf = (file: string, source: string): string[] =>
  [...source.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)]
    .map((match) => resolve(dirname(file), match[1]!.replace(/\.js$/, '.ts')))
    .filter((path) => path.includes('/test/') && existsSync(path));

function usesIntegration(file: string, seen: Map<string, boolean>): boolean {
  const known = seen.get(file);
  if (known !== undefined) return known;
  seen.set(file, false); // a circle among helpers adds nothing
  const source = readFileSync(file, 'utf8');
  const result = INTEGRATION_MARKERS.some((marker) => marker.test(source)) || importsOf(file, source).some((dep) => usesIntegration(dep, seen));
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
export function testKinds(root: string): { unit: string[]; integration: string[] } {
  const seen = new Map<string, boolean>();
  const unit: string[] = [];
  const integration: string[] = [];
  for (const file of testFiles(join(root, 'test')).sort()) {
    (usesIntegration(file, seen) ? integration : unit).push(file.slice(root.length + 1));
  }
  return { unit, integration };
}
