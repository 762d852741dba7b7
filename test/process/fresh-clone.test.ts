/**
 * The quick start's first send, timed as a newcomer meets it: in a fresh clone, right after `npm install`,
 * with an empty home, an empty svc data directory and an empty npm cache (npx keeps its installs there, so a
 * command going through npx would pay for that here too). The command is read from the README's first shell
 * block that runs `npm install`, so the docs cannot drift from what is timed.
 *
 * The clone's node_modules are a hard-link copy of this checkout's (what `npm install` would have put there,
 * without minutes of compiling), and its dist/ a copy of this checkout's build of the same commit (what
 * `prepare` builds on install).
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/run-cli.js';

const run = promisify(execFile);
const BUDGET_MS = 3000;

/** The command after `npm install` in the README's first shell block that has one. */
export function quickStartCommand(readme: string): string {
  for (const [, block] of readme.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const lines = block!.split('\n').map((line) => line.replace(/\s+#.*$/, '').trim()).filter(Boolean);
    const install = lines.findIndex((line) => /^npm (install|ci)$/.test(line));
    if (install !== -1 && lines[install + 1] !== undefined) return lines[install + 1]!;
  }
  throw new Error('README has no shell block with `npm install` followed by a command');
}

describe('fresh clone', () => {
  it(`the quick start's second command answers in under ${BUDGET_MS} ms the first time, and the next time`, async () => {
    expect(existsSync('dist/bundle/main.js'), 'run `npm run build` first').toBe(true);
    const command = quickStartCommand(readFileSync('README.md', 'utf8'));
    const clone = join(tempDir('svc-clone-'), 'svc');
    const head = (await run('git', ['rev-parse', 'HEAD'])).stdout.trim();
    await run('git', ['clone', '--quiet', '--no-checkout', resolve('.'), clone]);
    await run('git', ['-C', clone, 'checkout', '--quiet', head]);
    await run('cp', ['-al', resolve('node_modules'), join(clone, 'node_modules')]);
    // A real copy, not links: nothing run in the clone may write into this checkout's build.
    cpSync(resolve('dist'), join(clone, 'dist'), { recursive: true });

    const env = {
      PATH: process.env['PATH'],
      HOME: tempDir('svc-home-'),
      SVC_HOME: tempDir('svc-data-'),
      SVC_CONFIG_DIR: tempDir('svc-conf-'),
      npm_config_cache: tempDir('svc-npm-cache-'),
      npm_config_update_notifier: 'false',
      NO_COLOR: '1',
    };
    const timed = async () => {
      const began = performance.now();
      const { stdout } = await run('bash', ['-c', command], { cwd: clone, env, timeout: 60_000 });
      return { ms: Math.round(performance.now() - began), stdout };
    };
    const first = await timed();
    // Two sends of one account are spaced 1.5-2.5 s apart (a rule of the service, like a person's pace); a
    // person typing the command again takes longer than that, so the second run starts after it, and times
    // what the command itself costs. Started at once it would wait out the spacing: about 2.2-2.4 s here.
    await new Promise((done) => setTimeout(done, 2500));
    const second = await timed();
    console.log(`quick start "${command}": first ${first.ms} ms, second ${second.ms} ms`);
    for (const { stdout } of [first, second]) expect(stdout).toMatch(/^status: Sent$/m);
    expect(first.ms, command).toBeLessThan(BUDGET_MS);
    expect(second.ms, command).toBeLessThan(BUDGET_MS);
  }, 120_000);
});
