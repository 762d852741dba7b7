/**
 * Every ```sh block of the README and of every guide in docs/, run as written: each guide top to bottom in one
 * bash of its own, from an empty directory and a clean environment, as a newcomer follows it. Scaling out runs
 * last (it needs PostgreSQL). Only the ports and the database URL are swapped for this run's. A block that is
 * not meant to run here (the install, the whole test suite) is preceded by a `<!-- not run: why -->` line.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { tempDir } from '../support/run-cli.js';
import { createTestDatabase } from '../support/postgres.js';

const run = promisify(execFile);

/** The ```sh blocks of a Markdown file, in order, leaving out those marked `<!-- not run: ... -->`. */
export function shellBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/(<!-- not run:[^\n]*-->\n)?```sh\n([\s\S]*?)```/g)].filter((m) => m[1] === undefined).map((m) => m[2]!);
}

/** README first, then the guides by name, scaling out last: each runs on its own, so the order only sets the report's. */
function guideFiles(): string[] {
  const docs = readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .sort((a, b) => Number(a === 'scaling-out.md') - Number(b === 'scaling-out.md') || a.localeCompare(b));
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

const freePort = () =>
  new Promise<number>((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });

interface Run {
  stdout: string;
  stderr: string;
  ports: Record<'server' | 'replica1' | 'replica2' | 'app', number>;
}

/** Runs one guide's blocks in a fresh directory, HOME and config folder; background jobs stop with the script. */
async function runGuide(file: string): Promise<Run> {
  const blocks = shellBlocks(readFileSync(file, 'utf8'));
  const ports = { server: await freePort(), replica1: await freePort(), replica2: await freePort(), app: await freePort() };
  const database = await createTestDatabase('walkthrough');
  onTestFinished(() => database.drop());
  const script = [
    'set -eo pipefail',
    // What a guide leaves running stops with the script (`|| true`: with nothing left, kill fails under -e).
    'trap \'kill $(jobs -p) 2>/dev/null || true; wait\' EXIT',
    ...blocks.map((block) =>
      block
        .replace(/\b8080\b/g, String(ports.server))
        .replace(/\b8081\b/g, String(ports.replica1))
        .replace(/\b8082\b/g, String(ports.replica2))
        .replace(/\b3000\b/g, String(ports.app))
        .replaceAll('postgres://svc@db.internal:5432/svc', database.url),
    ),
  ].join('\n');

  const bin = tempDir('svc-bin-');
  symlinkSync(resolve('bin/svc.js'), join(bin, 'svc'));
  const cwd = tempDir('svc-walkthrough-');
  const env = {
    PATH: `${bin}:${process.env.PATH}`,
    HOME: tempDir('svc-user-'),
    SVC_CONFIG_DIR: tempDir('svc-conf-'),
    SVC_HOME: join(cwd, 'unused-home'),
    NO_COLOR: '1',
  };
  const { stdout, stderr } = await run('bash', ['-c', script], { cwd, env, timeout: 60_000 }).catch((error: { stdout: string; stderr: string; code: number }) => {
    throw new Error(`${file}: walkthrough failed (exit ${error.code})\n--- stdout\n${error.stdout}\n--- stderr\n${error.stderr}`);
  });
  expect(stderr).not.toMatch(/error:/);
  return { stdout, stderr, ports };
}

/** What each guide's run must show, beyond exiting 0 with no error on stderr. */
const expectations: Record<string, (result: Run) => void> = {
  'README.md': ({ stdout, ports }) => {
    expect(stdout).toContain(`listening on http://127.0.0.1:${ports.server}`);
    expect(stdout).toMatch(/"status":"ok","data":\{"message_uid":"[^"]+","status":"Pending"/);
    expect(stdout).toMatch(/status: Sent/);
    expect(stdout).toContain(`remote instance http://127.0.0.1:${ports.server}/api (from the environment)`);
  },
  'docs/self-hosting.md': ({ stdout, ports }) => {
    expect(stdout).toContain(`listening on http://127.0.0.1:${ports.server}`);
    expect(stdout).toMatch(/"status":"ok","data":\{"message_uid":"[^"]+","status":"Pending"/);
    expect(stdout).toMatch(/status: Sent/);
    expect(stdout).toContain(`remote instance http://127.0.0.1:${ports.server}/api (from the environment)`);
  },
  'docs/webhooks.md': ({ stdout, ports }) => {
    // svc dev forwarded the send's, the incoming message's and the sample event to the app, which answered.
    expect(stdout).toMatch(/^--> message:sent:new \[msg_\w+\] message_uid /m);
    expect(stdout).toMatch(/^--> message:received:new \[msg_\w+\] message_uid test-/m);
    expect(stdout).toContain(`<-- [200] POST http://localhost:${ports.app}/hooks`);
    expect(stdout).toMatch(/^1$/m);
    expect(stdout).toMatch(/Created webhook 1: message:received:new -> http:\/\/localhost:\d+\/hooks/);
  },
  'docs/partners.md': ({ stdout }) => {
    expect(stdout).toMatch(/status: connected/);
    expect(stdout).toMatch(/Created webhook 1: messenger_account:connected/);
  },
  'docs/cli.md': ({ stdout }) => {
    expect(stdout).toMatch(/^Sent\n1 \+14155550123$/m);
    expect(stdout).toContain('target: local engine in ./data (from the environment)');
  },
  'docs/operations.md': ({ stdout }) => {
    expect(stdout).toContain('{"status":"ok"}');
    expect(stdout).toMatch(/^svc_queue_depth\{queue="send",state="queued"\} 0$/m);
    expect(stdout).toMatch(/^ok$/m);
    // The backup, restored into a directory of its own, serves the workspace.
    expect(stdout).toMatch(/"status":"ok","data":\{"id":1,"name":"Acme"/);
  },
  // The copied workspace, its token and all, answered by the second PostgreSQL replica.
  'docs/scaling-out.md': ({ stdout, ports }) => {
    expect(stdout).toContain(`listening on http://127.0.0.1:${ports.replica2}`);
    expect(stdout).toMatch(/"status":"ok","data":\{"id":1,"name":"Acme"/);
  },
};

describe('README and guide walkthroughs', () => {
  const files = guideFiles();

  it('every guide with shell blocks has its expectations here, and scaling out runs last', () => {
    const withBlocks = files.filter((file) => shellBlocks(readFileSync(file, 'utf8')).length > 0);
    expect(withBlocks.sort()).toEqual(Object.keys(expectations).sort());
    expect(files.at(-1)).toBe('docs/scaling-out.md');
  });

  for (const file of files.filter((name) => shellBlocks(readFileSync(name, 'utf8')).length > 0)) {
    it(`${file} runs top to bottom from an empty directory`, async () => {
      const result = await runGuide(file);
      expectations[file]?.(result);
    }, 90_000);
  }
});
