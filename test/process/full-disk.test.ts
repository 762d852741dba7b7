/**
 * A full disk, as an operator meets it: the real `svc` binary on a data directory inside a 4 MiB tmpfs that the
 * test mounts and fills (the machine's own disk is never filled). Mounting needs root (CAP_SYS_ADMIN); where the
 * machine does not allow it, these tests are skipped and say so in their names.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../support/svc-process.js';

const mountPoint = mkdtempSync(join(tmpdir(), 'svc-full-disk-'));
const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,mode=0700', 'tmpfs', mountPoint]).status === 0;
const filler = join(mountPoint, 'filler');

function svc(args: string[]) {
  const home = mkdtempSync(join(tmpdir(), 'svc-cfg-'));
  const env = { ...process.env, SVC_CONFIG_DIR: join(home, 'config'), HOME: home, NO_COLOR: '1' };
  const result = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8', timeout: 20_000 });
  rmSync(home, { recursive: true, force: true });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Writes zeros until the file system refuses another byte (tmpfs counts whole pages). */
function fillDisk(): void {
  const fd = openSync(filler, 'a');
  try {
    for (const size of [65_536, 4096, 1]) {
      const chunk = Buffer.alloc(size);
      for (let i = 0; i < 10_000; i++) {
        try {
          writeSync(fd, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

const freeDisk = () => rmSync(filler, { force: true });

describe.runIf(mounted)('full disk (a 4 MiB tmpfs the test mounts)', () => {
  afterAll(() => {
    if (spawnSync('umount', [mountPoint]).status !== 0) spawnSync('umount', ['-l', mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });
  beforeAll(freeDisk);

  it('the first command on a full disk says so, where and what to do, and leaves nothing behind', () => {
    const existing = join(mountPoint, 'existing-empty');
    mkdirSync(existing, { mode: 0o700 });
    const created = join(mountPoint, 'new', 'data');
    fillDisk();
    try {
      for (const dir of [existing, created]) {
        const run = svc(['send', '--phone', '+14155550100', '--text', 'hello', '--data', dir]);
        expect(run.code, run.stdout).toBe(1);
        expect(run.stderr).toMatch(/disk holding .* is full/);
        expect(run.stderr).toContain(dir);
        expect(run.stderr).toMatch(/hint: free space/);
        expect(run.stderr).not.toMatch(/bug in svc/);
      }
      expect(readdirSync(existing)).toEqual([]);
      expect(existsSync(join(mountPoint, 'new'))).toBe(false);
    } finally {
      freeDisk();
    }
    // With space again, the same command creates the instance: nothing left behind stood in its way.
    for (const dir of [existing, created]) {
      const run = svc(['send', '--phone', '+14155550100', '--text', 'hello', '--data', dir]);
      expect(run.code, run.stderr).toBe(0);
    }
  });

  it('svc serve and a command on an existing instance on a full disk say the disk is full, not "a bug in svc"', () => {
    const dir = join(mountPoint, 'serve');
    expect(svc(['send', '--phone', '+14155550100', '--text', 'seed', '--data', dir]).code).toBe(0);
    const before = readFileSync(join(dir, 'svc.db'));
    fillDisk();
    try {
      for (const args of [['serve', '--port', '0', '--host', '127.0.0.1'], ['chats', 'list']]) {
        const run = svc([...args, '--data', dir]);
        expect(run.code, run.stdout).toBe(1);
        expect(run.stdout).not.toContain('listening on');
        expect(run.stderr).toMatch(/disk holding .* is full/);
        expect(run.stderr).toContain(dir);
        expect(run.stderr).not.toMatch(/bug in svc|disk I\/O error/);
        expect(run.stderr).not.toMatch(/\n\s+at /);
      }
    } finally {
      freeDisk();
    }
    expect(readFileSync(join(dir, 'svc.db')).equals(before)).toBe(true);
    expect(svc(['chats', 'list', '--data', dir]).code).toBe(0);
  });
});

describe.skipIf(mounted)('full disk', () => {
  it.skip('skipped: mounting a small tmpfs needs root (CAP_SYS_ADMIN), which this machine does not give the tests', () => undefined);
});
