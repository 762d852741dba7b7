/** Damaged storage and bad paths, as an operator meets them: the real `svc` binary in its own process. */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ProfileStore } from '../../src/client/config.js';
import { BIN } from '../support/svc-process.js';

const fresh = (prefix = 'svc-data-') => mkdtempSync(join(tmpdir(), prefix));

function svc(args: string[], options: { home?: string; asUser?: number } = {}) {
  const home = options.home ?? fresh('svc-cfg-');
  const env = { ...process.env, SVC_CONFIG_DIR: join(home, 'config'), SVC_HOME: join(home, 'data'), HOME: home, NO_COLOR: '1' };
  const command = options.asUser === undefined ? [process.execPath, BIN, ...args] : ['setpriv', `--reuid=${options.asUser}`, `--regid=${options.asUser}`, '--clear-groups', process.execPath, BIN, ...args];
  const started = Date.now();
  const result = spawnSync(command[0] as string, command.slice(1), { env, encoding: 'utf8', timeout: 15_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, ms: Date.now() - started };
}

/** A data directory with a Local workspace and one message in it. */
function seeded(): string {
  const dir = fresh();
  expect(svc(['send', '--phone', '+14155550100', '--text', 'seed', '--data', dir]).code).toBe(0);
  return dir;
}

describe('data directory: bad paths fail fast with advice', () => {
  it('--data naming a file, or a path under it, exits 1 within a second', () => {
    const file = join(fresh(), 'not-a-dir');
    writeFileSync(file, 'x');
    for (const data of [file, join(file, 'below')]) {
      const run = svc(['chats', 'list', '--data', data]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/file/);
      expect(run.stderr).toMatch(/hint: .*--data/);
      expect(run.ms).toBeLessThan(3000); // includes starting node; the check itself is a few stats
    }
  });

  it('--data under /proc exits 1 at once instead of spinning', () => {
    const run = svc(['chats', 'list', '--data', '/proc/svc-nonexistent/data']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/Cannot create the data directory/);
    expect(run.ms).toBeLessThan(3000);
  });

  it('an existing data directory made 0755 becomes 0700; so does the profile folder whatever the umask', () => {
    const dir = fresh();
    chmodSync(dir, 0o755);
    const home = fresh('svc-cfg-');
    mkdirSync(join(home, 'config'), { mode: 0o777 });
    chmodSync(join(home, 'config'), 0o777);
    expect(svc(['chats', 'list', '--data', dir], { home }).code).toBe(0);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'svc.db')).mode & 0o777).toBe(0o600);
    const previous = process.umask(0o000);
    try {
      new ProfileStore({ SVC_CONFIG_DIR: join(home, 'config') }).save('p', { base_url: 'http://127.0.0.1:9/api' });
    } finally {
      process.umask(previous);
    }
    expect(statSync(join(home, 'config')).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, 'config', 'config.json')).mode & 0o777).toBe(0o600);
  });
});

describe('data directory: damaged storage', () => {
  it('an emptied svc.db is refused with how to restore it, and left as it is', () => {
    const dir = seeded();
    truncateSync(join(dir, 'svc.db'), 0);
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(dir, 'svc.db'), old, old);
    const run = svc(['send', '--phone', '+14155550100', '--text', 'x', '--data', dir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/svc\.db is empty \(0 bytes\)/);
    expect(run.stderr).toMatch(/hint: restore svc\.db from a backup/);
    expect(statSync(join(dir, 'svc.db')).size).toBe(0);
  });

  it('an svc.db emptied a moment ago is refused at once, and the svc.db-wal beside it is kept byte for byte', () => {
    const dir = seeded();
    const path = join(dir, 'svc.db');
    // A WAL holding committed changes, as a killed process leaves it: written, then put back after the close
    // (which would have merged and removed it).
    const writer = new Database(path);
    writer.pragma('wal_autocheckpoint = 0');
    writer.exec("CREATE TABLE pending_changes (x BLOB); INSERT INTO pending_changes VALUES (randomblob(100000))");
    const wal = readFileSync(`${path}-wal`);
    writer.close();
    writeFileSync(`${path}-wal`, wal);
    truncateSync(path, 0); // `: > svc.db`, and no waiting afterwards
    for (const args of [['chats', 'list'], ['send', '--phone', '+14155550100', '--text', 'x']]) {
      const run = svc([...args, '--data', dir]);
      expect(run.code, run.stdout).toBe(1);
      expect(run.stderr).toMatch(/svc\.db is empty \(0 bytes\)/);
      expect(statSync(path).size).toBe(0);
      expect(readFileSync(`${path}-wal`).equals(wal)).toBe(true);
    }
  });

  it('what a creation killed half-way left (svc.db.new-PID-...) is swept once its process is gone, not while it runs', () => {
    const dir = seeded();
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(gone.stdout);
    const abandoned = [`svc.db.new-${deadPid}-0a1b2c3d`, `svc.db.new-${deadPid}-0a1b2c3d-journal`];
    const running = `svc.db.new-${process.pid}-4e5f6a7b`; // this test's process is alive: a creation in progress
    for (const name of [...abandoned, running]) writeFileSync(join(dir, name), 'half');
    expect(svc(['chats', 'list', '--data', dir]).code).toBe(0);
    const left = readdirSync(dir);
    for (const name of abandoned) expect(left).not.toContain(name);
    expect(left).toContain(running);
    expect(left).toContain('svc.db');
  });

  it('a missing svc.db with its svc.db-wal still beside it is refused, not started afresh over that WAL', () => {
    const dir = seeded();
    const path = join(dir, 'svc.db');
    const writer = new Database(path);
    writer.pragma('wal_autocheckpoint = 0');
    writer.exec("CREATE TABLE pending_changes (x BLOB); INSERT INTO pending_changes VALUES (randomblob(1000))");
    const wal = readFileSync(`${path}-wal`);
    writer.close();
    writeFileSync(`${path}-wal`, wal);
    rmSync(path);
    const run = svc(['chats', 'list', '--data', dir]);
    expect(run.code, run.stdout).toBe(1);
    expect(run.stderr).toMatch(/svc\.db-wal/);
    expect(run.stderr).toMatch(/hint: /);
    expect(existsSync(path)).toBe(false);
    expect(readFileSync(`${path}-wal`).equals(wal)).toBe(true);
  });

  it('an SQLite file of another program named svc.db is refused and left unchanged', () => {
    const dir = fresh();
    const path = join(dir, 'svc.db');
    const other = new Database(path);
    other.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('not svc')");
    other.close();
    const before = readFileSync(path);
    const run = svc(['chats', 'list', '--data', dir]);
    expect(run.code, run.stdout).toBe(1);
    expect(run.stderr).toMatch(/is not an svc database/);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('commands started together on a new data directory share one instance, and no temporary file is left', async () => {
    const dir = join(fresh(), 'data');
    const home = fresh('svc-cfg-');
    const env = { ...process.env, SVC_CONFIG_DIR: join(home, 'config'), HOME: home, NO_COLOR: '1' };
    const runs = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        new Promise<{ code: number | null; stderr: string }>((resolve) => {
          const child = spawn(process.execPath, [BIN, 'send', '--no-wait', '--phone', `+1415555010${i}`, '--text', 'together', '--data', dir], { env });
          let stderr = '';
          child.stderr.on('data', (chunk) => (stderr += chunk));
          child.on('close', (code) => resolve({ code, stderr }));
        }),
      ),
    );
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    expect(readdirSync(dir).filter((name) => !/^svc\.db(-wal|-shm)?$/.test(name))).toEqual([]);
    const listed = svc(['chats', 'list', '--data', dir, '--json'], { home });
    expect(JSON.parse(listed.stdout).items).toHaveLength(6);
  });

  it('svc serve on a corrupted database exits 1 with a clear message and never says "listening on"', async () => {
    const dir = seeded();
    const path = join(dir, 'svc.db');
    const size = statSync(path).size;
    const fd = openSync(path, 'r+');
    // Garbage over every page but the first (the header stays valid, so the damage is found only by reading).
    for (let offset = 4096; offset < size; offset += 4096) writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, offset);
    closeSync(fd);
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data', dir], {
      env: { ...process.env, SVC_CONFIG_DIR: join(dir, 'cfg'), HOME: dir, NO_COLOR: '1' },
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(out).not.toContain('listening on');
    expect(out).toMatch(/damaged or is not an svc database/);
    expect(out).toMatch(/restore svc\.db from a backup/);
    expect(out).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('svc send without --token on a server\'s data directory does not create a Local workspace; --workspace picks one', () => {
    const dir = fresh();
    expect(svc(['admin', 'workspace', 'create', '--name', 'Tenant', '--data', dir, '--json']).code).toBe(0);
    const run = svc(['send', '--phone', '+14155550100', '--text', 'x', '--data', dir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/--token/);
    expect(run.stderr).toMatch(/--workspace/);
    const listed = svc(['chats', 'list', '--data', dir, '--workspace', '1', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
  });

  // Root ignores permission bits, so the read-only case runs as "nobody" where the machine allows it.
  const asNobody = process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0;
  it.runIf(asNobody)('a read-only data directory: reads work, a write gets a clear error and changes nothing', () => {
    const dir = seeded();
    const home = fresh('svc-cfg-');
    for (const path of [dir, join(dir, 'svc.db'), home]) chownSync(path, 65534, 65534);
    chmodSync(dir, 0o500);
    chmodSync(home, 0o700);
    const before = readFileSync(join(dir, 'svc.db'));
    const chats = svc(['chats', 'list', '--data', dir, '--json'], { home, asUser: 65534 });
    expect(chats.code, chats.stderr).toBe(0);
    expect(JSON.parse(chats.stdout).items).toHaveLength(1);
    const send = svc(['send', '--phone', '+14155550100', '--text', 'x', '--data', dir], { home, asUser: 65534 });
    expect(send.code).toBe(1);
    expect(send.stderr).toMatch(/read-only/);
    expect(readFileSync(join(dir, 'svc.db')).equals(before)).toBe(true);
  });
});
