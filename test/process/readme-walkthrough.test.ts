/**
 * The README's Self-hosting, Webhooks, Partners and Scaling out blocks, run as written, top to bottom in one
 * bash on one ./data, which the last section copies into PostgreSQL and serves from two replicas: the
 * walkthrough a newcomer follows must work. Only the ports and the database URL are swapped for this run's.
 */
import { execFile } from 'node:child_process';
import { readFileSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { tempDir } from '../cli/run-cli.js';
import { createTestDatabase } from '../support/postgres.js';

const run = promisify(execFile);

/** The ```sh blocks of one `## Section` of the README. */
export function shellBlocks(readme: string, section: string): string[] {
  const start = readme.indexOf(`\n## ${section}\n`);
  if (start === -1) throw new Error(`README has no section ${section}`);
  const end = readme.indexOf('\n## ', start + 1);
  const body = readme.slice(start, end === -1 ? undefined : end);
  return [...body.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

const freePort = () =>
  new Promise<number>((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });

describe('README walkthrough', () => {
  it('Self-hosting, Webhooks, Partners and Scaling out run top to bottom on the same ./data', async () => {
    const readme = readFileSync('README.md', 'utf8');
    const blocks = ['Self-hosting', 'Webhooks', 'Partners', 'Scaling out'].flatMap((section) => shellBlocks(readme, section));
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    const port = await freePort();
    const replicaPorts = [await freePort(), await freePort()];
    const database = await createTestDatabase('readme');
    onTestFinished(() => database.drop());
    const script = [
      'set -eo pipefail',
      // Whatever the blocks left running in the background (the server, listen) stops with the script.
      'trap \'kill $(jobs -p) 2>/dev/null; wait\' EXIT',
      ...blocks.map((block) =>
        block
          .replaceAll('8080', String(port))
          .replaceAll('8081', String(replicaPorts[0]))
          .replaceAll('8082', String(replicaPorts[1]))
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
      throw new Error(`walkthrough failed (exit ${error.code})\n--- stdout\n${error.stdout}\n--- stderr\n${error.stderr}`);
    });
    expect(stdout).toContain(`listening on http://127.0.0.1:${port}`);
    expect(stdout).toMatch(/"status":"ok","data":\{"message_uid":"[^"]+","status":"Pending"/);
    expect(stdout).toMatch(/status: Sent/);
    expect(stdout).toContain(`remote instance http://127.0.0.1:${port}/api (from the environment)`);
    expect(stdout).toMatch(/Created webhook 1: message:received:new/);
    expect(stdout).toMatch(/triggered message:received:new: 2 deliveries queued|triggered message:received:new: 1 delivery queued/);
    expect(stdout).toMatch(/status: connected/);
    // The copied workspace, its token and all, answered by the second PostgreSQL replica.
    expect(stdout).toContain(`listening on http://127.0.0.1:${replicaPorts[1]}`);
    expect(stdout).toMatch(/"status":"ok","data":\{"id":1,"name":"Acme"/);
    expect(stderr).not.toMatch(/error:/);
  }, 90_000);
});
