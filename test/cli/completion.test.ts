import { execFileSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSvc, tempDir } from '../support/run-cli.js';

const has = (shell: string): boolean => {
  try {
    execFileSync('sh', ['-c', `command -v ${shell}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** A PATH whose `svc` is this checkout's binary (built by `npm test` first), and a private home. */
function shellEnv(): NodeJS.ProcessEnv {
  const bin = tempDir('svc-bin-');
  symlinkSync(resolve('bin/svc.js'), join(bin, 'svc'));
  return { ...process.env, PATH: `${bin}:${process.env.PATH}`, SVC_CONFIG_DIR: tempDir('svc-conf-'), SVC_HOME: tempDir('svc-home-'), HOME: tempDir('svc-user-') };
}

async function script(shell: string): Promise<string> {
  const run = await runSvc(['completion', shell]);
  expect(run.code).toBe(0);
  return run.stdout;
}

describe('svc completion', () => {
  it('__complete offers subcommands of the deepest command named, and its options after a dash', async () => {
    expect((await runSvc(['__complete', 'partner', 'to'])).stdout).toBe('token\n');
    expect((await runSvc(['__complete', 'se'])).stdout).toBe('send\nserve\n');
    const options = (await runSvc(['__complete', 'webhooks', 'delete', '--'])).stdout.split('\n');
    expect(options).toEqual(expect.arrayContaining(['--yes', '--json', '--base-url', '--help']));
    expect(options).not.toContain('--text');
    expect(options).not.toContain('--version');
    expect((await runSvc(['__complete', 'send', '--text', 'hi', '--tex'])).stdout).toBe('--text\n--text-file\n');
    const unknown = await runSvc(['completion', 'tcsh']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('bash, zsh, fish');
  });

  it('bash: the script completes through the real binary', async () => {
    const file = join(tempDir(), 'svc.bash');
    execFileSync('sh', ['-c', `cat > ${file}`], { input: await script('bash') });
    // bash sets COMP_LINE and COMP_POINT (the cursor) for a completion function, as these runs do.
    const complete = (line: string) =>
      execFileSync('bash', ['-c', `source ${file}; COMP_LINE='${line}'; COMP_POINT=\${#COMP_LINE}; _svc_complete; printf '%s\\n' "\${COMPREPLY[@]}"`], {
        env: shellEnv(),
      }).toString();
    expect(complete('svc partner to')).toBe('token\n');
    // bash replaces only what follows the last ':' of the word (COMP_WORDBREAKS), so that is what it is given.
    expect(complete('svc trigger chat:un')).toBe('unassigned\n');
    expect(complete('svc webhooks create --event message:received')).toBe('received:new\n');
  });

  it.skipIf(!has('zsh'))('zsh: the script completes through the real binary (compadd stubbed)', async () => {
    const file = join(tempDir(), '_svc');
    execFileSync('sh', ['-c', `cat > ${file}`], { input: await script('zsh') });
    const program = `compdef() {}; compadd() { shift; print -l -- \${(P)1}; }; source ${file}; words=(svc webhooks del); CURRENT=3; _svc`;
    expect(execFileSync('zsh', ['-f', '-c', program], { env: shellEnv() }).toString()).toContain('delete\n');
  });

  it.skipIf(!has('fish'))('fish: the script completes through the real binary', async () => {
    const file = join(tempDir(), 'svc.fish');
    execFileSync('sh', ['-c', `cat > ${file}`], { input: await script('fish') });
    const out = execFileSync('fish', ['--no-config', '-c', `source ${file}; complete -C 'svc partner to'`], { env: shellEnv() }).toString();
    expect(out.split('\n').map((line) => line.split('\t')[0])).toContain('token');
  });
});
