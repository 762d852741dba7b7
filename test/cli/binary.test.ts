/**
 * The built binary, spawned as a user runs it (`bin/svc.js` over `dist/`; `npm test` builds first). The
 * in-process tests cover the commands; these check what only a real process shows: the README quick start
 * word for word, exit codes as the shell sees them, and a real `svc serve` driven by a second process.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DIST_MAIN, ProcessSandbox, REPO_ROOT } from '../support/svc-process.js';

const UID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

describe('svc binary (spawned)', () => {
  let box: ProcessSandbox;
  beforeAll(() => {
    if (!existsSync(DIST_MAIN)) throw new Error('dist/ is missing: run `npm run build` (npm test does it first)');
  });
  afterEach(async () => {
    await box?.cleanup();
  });
  const sandbox = () => (box = new ProcessSandbox());

  it('binary: the README quick start `svc send --phone +14155550123 --text "Hello"` works in a fresh SVC_HOME', async () => {
    const sb = sandbox();
    const run = await sb.run(['send', '--phone', '+14155550123', '--text', 'Hello']);
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(UID);
    expect(run.stdout).toMatch(/\bSent\b/);
    // It created the local engine where SVC_HOME points, and nothing elsewhere.
    expect(existsSync(join(sb.home, 'data', 'svc.db'))).toBe(true);
  });

  it('binary: `svc send ... --json` prints the API data object and nothing else on stdout', async () => {
    const sb = sandbox();
    const run = await sb.ok(['send', '--phone', '+14155550123', '--text', 'Hello', '--json']);
    const data = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(data).toMatchObject({ status: 'Sent', credits: 1 });
    expect(data['message_uid']).toMatch(UID);
    expect(typeof data['chat_id']).toBe('number');
    expect(data).not.toHaveProperty('data');
  });

  it('binary: `svc --version` prints the package version; a usage error exits 2 with a hint', async () => {
    const sb = sandbox();
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const ver = await sb.ok(['--version']);
    expect(ver.stdout.trim()).toBe(version);

    const bad = await sb.run(['send', '--phone', '+14155550123', '--bogus']);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain('--bogus');
    expect(bad.stderr).toContain('--help');
  });

  it('binary: `svc serve --port 0`, then `svc send --base-url ... --token T`; a bad token exits 4; SIGTERM exits 0', async () => {
    const sb = sandbox();
    const dataDir = sb.tempDir('svc-proc-data-');
    const { token } = await sb.createWorkspace(dataDir, 'X');
    expect(token).toMatch(/^svc_/);
    const connected = await sb.ok(['sim', 'connect', '--phone', '+15550001', '--data', dataDir, '--token', token, '--json']);
    expect(JSON.parse(connected.stdout)).toMatchObject({ phone: '+15550001', status: 'connected' });

    const server = await sb.serve(dataDir);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const baseUrl = `${server.url}/api`;

    const sent = await sb.run(['send', '--phone', '+14155550123', '--text', 'Hello', '--base-url', baseUrl, '--token', token]);
    expect(sent.stderr).not.toMatch(/error/i);
    expect(sent.code).toBe(0);
    expect(sent.stdout).toMatch(UID);
    expect(sent.stdout).toMatch(/\bSent\b/);

    const json = await sb.ok(['send', '--phone', '+14155550123', '--text', 'Hello', '--base-url', baseUrl, '--token', token, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'Sent', credits: 1 });

    const refused = await sb.run(['send', '--phone', '+14155550123', '--text', 'Hello', '--base-url', baseUrl, '--token', 'svc_not-a-token']);
    expect(refused.code).toBe(4);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/token/i);

    const stopped = await sb.stop(server, 'SIGTERM');
    expect(stopped.code).toBe(0);
  });
});
