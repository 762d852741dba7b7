import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/create-client.js';
import { interrupts, runSvc, tempDir } from '../support/run-cli.js';

// `svc dev` in process, with the real engine and server: which workspace it serves, and what it refuses.
// test/process/dev.test.ts drives the binary end to end.

/** Runs `svc dev ...args` until its Ready line, then Ctrl-C; returns the run and what it printed. */
async function devUntilReady(args: string[], env: Record<string, string>) {
  const signals = interrupts();
  let stdout = '';
  const running = runSvc(['dev', '--port', '0', ...args], {
    env,
    io: { createClient, onInterrupt: signals.onInterrupt, stdout: (text) => void (stdout += text) },
  });
  for (let i = 0; i < 200 && !/^Ready!|"type":"ready"/m.test(stdout); i++) {
    const finished = await Promise.race([running, new Promise((resolve) => setTimeout(() => resolve(null), 50))]);
    if (finished !== null) break;
  }
  signals.fire('SIGINT');
  const run = await running;
  return { ...run, stdout };
}

describe('svc dev', () => {
  it('serves the workspace of --token, connecting a simulated account when it has none', async () => {
    const env = { SVC_HOME: tempDir('svc-home-'), SVC_CONFIG_DIR: tempDir('svc-conf-') };
    // A server's data directory: a workspace of its own and no Local one.
    const created = (await runSvc(['admin', 'workspace', 'create', '--name', 'Acme', '--json'], { env })).json<{ workspace_id: number; token: string }>();
    const refused = await devUntilReady([], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('hint: pass --token T of the workspace to serve');

    const run = await devUntilReady(['--token', created.token, '--json'], env);
    expect(run.code).toBe(130);
    expect(JSON.parse(run.stdout.split('\n')[0]!)).toMatchObject({
      type: 'ready',
      workspace: { id: created.workspace_id, name: 'Acme' },
      account: '+15550100001',
      token: created.token,
    });
    const accounts = await runSvc(['accounts', 'list', '--token', created.token, '--jq', '.items[] | [.phone, .status]'], { env, io: { createClient } });
    expect(accounts.stdout).toBe('["+15550100001","connected"]\n');
  });

  it('refuses --base-url and --workspace, and a bad --port or --forward-to, before starting anything', async () => {
    const env = { SVC_HOME: tempDir('svc-home-') };
    for (const args of [['--base-url', 'http://127.0.0.1:1/api'], ['--workspace', '2'], ['--port', '70000'], ['--forward-to', '0']]) {
      const run = await runSvc(['dev', ...args], { env });
      expect(run.code, args.join(' ')).toBe(2);
    }
  });
});
