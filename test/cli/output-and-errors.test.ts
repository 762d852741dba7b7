import { describe, expect, it } from 'vitest';
import { SvcError } from '../../src/wire/errors.js';
import { fakeClient } from '../support/fake-client.js';
import { runSvc } from '../support/run-cli.js';

const ANSI = /\x1b\[/;
const failing = (error: unknown, target = 'fake') =>
  fakeClient({ overrides: { target, getWorkspace: async () => Promise.reject(error) } });

describe('output', () => {
  it('output: a list is a cli-table3 table on a terminal and tab-separated lines in a pipe', async () => {
    const tty = await runSvc(['chats', 'list'], { tty: true });
    expect(tty.stdout).toContain('┌');
    expect(tty.stdout).toContain('Alice');
    const piped = await runSvc(['chats', 'list']);
    expect(piped.stdout).toBe('7\tAlice\t+14155550123\t+15550001\t\t\n');
  });

  it('output: --json prints exactly the data object', async () => {
    const run = await runSvc(['chats', 'list', '--json'], { tty: true });
    expect(run.json()).toEqual({ items: [expect.objectContaining({ id: 7, name: 'Alice' })], page: 1, has_more_pages: false });
    expect(run.stderr).toBe('');
  });

  it('output: colour on a terminal, none with NO_COLOR or --no-color', async () => {
    expect((await runSvc(['workspace'], { tty: true })).stdout).toMatch(ANSI);
    expect((await runSvc(['workspace'], { tty: true, env: { NO_COLOR: '1' } })).stdout).not.toMatch(ANSI);
    expect((await runSvc(['workspace', '--no-color'], { tty: true })).stdout).not.toMatch(ANSI);
    expect((await runSvc(['workspace'])).stdout).not.toMatch(ANSI);
  });

  it('output: more pages are announced on stderr with the next command', async () => {
    const run = await runSvc(['files', 'list']);
    expect(run.stderr).toContain('svc files list --page 2');
    expect((await runSvc(['files', 'list', '--json'])).stderr).toBe('');
  });

  it('output: --version and --help exit 0', async () => {
    const version = await runSvc(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
    const help = await runSvc(['send', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--chat-name');
  });
});

describe('errors and exit codes', () => {
  it('errors: unknown commands and options are usage errors (exit 2)', async () => {
    expect((await runSvc(['nope'])).code).toBe(2);
    expect((await runSvc(['chats', 'list', '--bogus'])).code).toBe(2);
    expect((await runSvc(['chats', 'assign', '7'])).code).toBe(2);
    expect((await runSvc([])).code).toBe(2);
  });

  it('errors: unauthorized exits 4 and says to check --token or run svc login', async () => {
    const run = await runSvc(['workspace'], { client: failing(new SvcError('unauthorized', 'Access token missing or invalid')) });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('Access token missing or invalid');
    expect(run.stderr).toContain('svc login');
  });

  it('errors: with --json the error is one JSON line on stderr and stdout stays empty', async () => {
    const run = await runSvc(['workspace', '--json'], { client: failing(new SvcError('not_found', 'chat not found')) });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(JSON.parse(run.stderr)).toEqual({ error: { code: 'not_found', message: 'chat not found', hint: expect.any(String) } });
  });

  it('errors: the hint of an SvcError is printed as what to do next', async () => {
    const error = new SvcError('quota_exceeded', 'Messaging quota exhausted', { hint: 'raise it with svc admin workspace update' });
    const run = await runSvc(['workspace'], { client: failing(error) });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('hint: raise it with svc admin workspace update');
  });

  it('errors: a refused connection asks whether svc serve is running at the URL', async () => {
    const refused = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    const run = await runSvc(['workspace', '--base-url', 'http://127.0.0.1:9/api', '--token', 't'], { client: failing(refused, 'http://127.0.0.1:9/api') });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('cannot reach http://127.0.0.1:9/api');
    expect(run.stderr).toContain('is `svc serve` running at http://127.0.0.1:9/api?');
  });

  it('errors: an unexpected exception exits 1 instead of crashing', async () => {
    const run = await runSvc(['workspace'], { client: failing(new Error('kaboom')) });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('kaboom');
  });

  it('errors: a cancelled prompt exits 130', async () => {
    const cancelled = Object.assign(new Error('User force closed the prompt'), { name: 'ExitPromptError' });
    const run = await runSvc(['send'], { tty: true, io: { prompt: async () => Promise.reject(cancelled) } });
    expect(run.code).toBe(130);
  });
});
