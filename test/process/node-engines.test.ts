/**
 * svc declares the oldest Node.js it runs on (`engines.node`). No dependency may ask for a newer one: npm
 * prints EBADENGINE for it on install, and the dependency may use what that Node lacks. Checked on the lock
 * file (what every fresh `npm install` gets) and on the packages installed here.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

interface Semver {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
}
const semver = createRequire(import.meta.url)('semver') as Semver;

interface PackageJson {
  name?: string;
  version?: string;
  engines?: { node?: unknown };
}
const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;

const declared = readJson<PackageJson>('package.json').engines?.node;
const minimum = typeof declared === 'string' ? semver.minVersion(declared)?.version : undefined;

/** `where name@version wants node RANGE` for each package whose range leaves out the declared minimum. */
const excluding = (packages: Array<{ where: string; pkg: PackageJson }>): string[] =>
  packages
    .filter(({ pkg }) => typeof pkg.engines?.node === 'string' && !semver.satisfies(minimum as string, pkg.engines.node))
    .map(({ where, pkg }) => `${where} (${pkg.name ?? '?'}@${pkg.version ?? '?'}) wants node ${String(pkg.engines?.node)}`);

/** Every package.json under node_modules, nested node_modules and scopes included. */
function installedPackages(dir: string): Array<{ where: string; pkg: PackageJson }> {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || !(entry.isDirectory() || entry.isSymbolicLink())) return [];
    const path = join(dir, entry.name);
    if (entry.name.startsWith('@')) return installedPackages(path);
    const manifest = join(path, 'package.json');
    const own = existsSync(manifest) ? [{ where: path, pkg: readJson<PackageJson>(manifest) }] : [];
    return [...own, ...installedPackages(join(path, 'node_modules'))];
  });
}

describe('Node.js engines', () => {
  it('svc declares a minimum Node.js version, and this run is on one it allows', () => {
    expect(minimum, `package.json engines.node is ${String(declared)}`).toBeDefined();
    expect(semver.satisfies(process.versions.node, declared as string)).toBe(true);
  });

  it('no package in package-lock.json asks for a Node.js newer than svc\'s minimum', () => {
    const lock = readJson<{ packages: Record<string, PackageJson> }>('package-lock.json');
    const packages = Object.entries(lock.packages)
      .filter(([where]) => where !== '')
      .map(([where, pkg]) => ({ where, pkg: { ...pkg, name: pkg.name ?? where.split('node_modules/').pop() } }));
    expect(packages.length).toBeGreaterThan(100);
    expect(excluding(packages)).toEqual([]);
  });

  it('no installed package asks for a Node.js newer than svc\'s minimum (else: node_modules predates the lock file, run npm install)', () => {
    const packages = installedPackages('node_modules');
    expect(packages.length).toBeGreaterThan(100);
    expect(excluding(packages)).toEqual([]);
  });
});
