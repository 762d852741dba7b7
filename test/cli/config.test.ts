import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SvcError } from '../../src/wire/errors.js';
import { fakeClient } from '../support/fake-client.js';
import { runSvc, tempDir } from '../support/run-cli.js';

/** An environment with its own config and home directories, shared by several runs. */
function sandbox(extra: Record<string, string> = {}) {
  return { SVC_CONFIG_DIR: tempDir('svc-conf-'), HOME: tempDir('svc-user-'), SVC_HOME: '', ...extra };
}

async function login(env: Record<string, string>, profile: string, baseUrl: string, token: string) {
  const run = await runSvc(['login', '--profile', profile, '--base-url', baseUrl, '--token', token], { env });
  expect(run.code).toBe(0);
  return run;
}

describe('configuration and profiles', () => {
  it('config: with nothing set the local engine in ~/.local/share/svc is used', async () => {
    const env = sandbox();
    const run = await runSvc(['workspace', '--json'], { env });
    expect(run.code).toBe(0);
    expect(run.configs).toEqual([
      { baseUrl: undefined, token: undefined, dataDir: join(env.HOME, '.local', 'share', 'svc'), workspaceId: undefined },
    ]);
  });

  it('config: precedence is flag > environment > profile > default', async () => {
    const env = sandbox();
    await login(env, 'work', 'http://127.0.0.1:1/api', 'profile-token');

    const fromProfile = await runSvc(['workspace'], { env });
    expect(fromProfile.configs[0]).toMatchObject({ baseUrl: 'http://127.0.0.1:1/api', token: 'profile-token' });

    const fromEnv = await runSvc(['workspace'], { env: { ...env, SVC_BASE_URL: 'http://127.0.0.1:2/api', SVC_TOKEN: 'env-token' } });
    expect(fromEnv.configs[0]).toMatchObject({ baseUrl: 'http://127.0.0.1:2/api', token: 'env-token' });

    const fromFlag = await runSvc(['workspace', '--base-url', 'http://127.0.0.1:3/api', '--token', 'flag-token'], {
      env: { ...env, SVC_BASE_URL: 'http://127.0.0.1:2/api', SVC_TOKEN: 'env-token' },
    });
    expect(fromFlag.configs[0]).toMatchObject({ baseUrl: 'http://127.0.0.1:3/api', token: 'flag-token' });
  });

  it('config: --data beats SVC_HOME for the local engine', async () => {
    const env = sandbox({ SVC_HOME: '/tmp/from-env' });
    expect((await runSvc(['workspace'], { env })).configs[0]!.dataDir).toBe('/tmp/from-env');
    expect((await runSvc(['workspace', '--data', '/tmp/from-flag'], { env })).configs[0]!.dataDir).toBe('/tmp/from-flag');
  });

  it('config: after login, --data or SVC_HOME selects the local engine; the saved server and token step aside', async () => {
    const env = sandbox();
    await login(env, 'work', 'http://127.0.0.1:1/api', 'profile-token');
    const byFlag = await runSvc(['workspace', '--data', '/tmp/svc-local'], { env });
    expect(byFlag.configs[0]).toEqual({ baseUrl: undefined, token: undefined, dataDir: '/tmp/svc-local', workspaceId: undefined });
    const byEnv = await runSvc(['workspace'], { env: { ...env, SVC_HOME: '/tmp/svc-home' } });
    expect(byEnv.configs[0]).toMatchObject({ baseUrl: undefined, token: undefined, dataDir: '/tmp/svc-home' });
    // A --data flag beats SVC_BASE_URL too; a server named by flag still wins over a data directory.
    const overEnv = await runSvc(['workspace', '--data', '/tmp/svc-local'], { env: { ...env, SVC_BASE_URL: 'http://127.0.0.1:2/api', SVC_TOKEN: 't' } });
    expect(overEnv.configs[0]).toMatchObject({ baseUrl: undefined, dataDir: '/tmp/svc-local' });
    const both = await runSvc(['workspace', '--data', '/tmp/svc-local', '--base-url', 'http://127.0.0.1:3/api', '--token', 't'], { env });
    expect(both.configs[0]).toMatchObject({ baseUrl: 'http://127.0.0.1:3/api' });
  });

  it('config: --profile and SVC_PROFILE pick a saved profile; an unknown one is a usage error', async () => {
    const env = sandbox();
    await login(env, 'a', 'http://127.0.0.1:1/api', 'token-a');
    await login(env, 'b', 'http://127.0.0.1:2/api', 'token-b');
    expect((await runSvc(['workspace', '--profile', 'a'], { env })).configs[0]!.token).toBe('token-a');
    expect((await runSvc(['workspace'], { env: { ...env, SVC_PROFILE: 'a' } })).configs[0]!.token).toBe('token-a');
    expect((await runSvc(['workspace'], { env })).configs[0]!.token).toBe('token-b');
    const missing = await runSvc(['workspace', '--profile', 'nope'], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('svc login --profile nope');
  });

  it('profile: the profile file is written with mode 0600', async () => {
    const env = sandbox();
    await login(env, 'default', 'http://127.0.0.1:1/api', 'secret-token');
    const mode = statSync(join(env.SVC_CONFIG_DIR, 'config.json')).mode & 0o777;
    expect(mode).toBe(0o600);
  });

  it('login: verifies the token, saves the profile, makes it current and never prints the token', async () => {
    const env = sandbox();
    const client = fakeClient();
    const run = await runSvc(['login', '--base-url', 'http://127.0.0.1:1/api', '--token', 'tok-12345', '--profile', 'work', '--json'], {
      env,
      client,
    });
    expect(run.code).toBe(0);
    expect(client.calls.map((c) => c.method)).toEqual(['getWorkspace']);
    expect(run.json()).toEqual({ profile: 'work', base_url: 'http://127.0.0.1:1/api', workspace: { id: 1, name: 'Local' } });
    expect(run.stdout + run.stderr).not.toContain('tok-12345');
    const list = await runSvc(['profile', 'list', '--json'], { env });
    expect(list.json()).toEqual({
      current: 'work',
      profiles: [{ name: 'work', base_url: 'http://127.0.0.1:1/api', data_dir: null, has_token: true }],
    });
    expect(list.stdout).not.toContain('tok-12345');
  });

  it('login: on a terminal, missing base URL and token are asked for through the prompt', async () => {
    const env = sandbox();
    const run = await runSvc(['login'], { env, tty: true, answers: ['http://127.0.0.1:8080/api', 'typed-token'] });
    expect(run.code).toBe(0);
    expect(run.questions.map((q) => q.kind)).toEqual(['input', 'password']);
    expect(run.configs[0]).toMatchObject({ baseUrl: 'http://127.0.0.1:8080/api', token: 'typed-token' });
    expect(run.stdout).not.toContain('typed-token');
  });

  it('login: without a terminal a missing token is a usage error, not a prompt', async () => {
    const run = await runSvc(['login', '--base-url', 'http://127.0.0.1:1/api'], { env: sandbox() });
    expect(run.code).toBe(2);
    expect(run.questions).toEqual([]);
    expect(run.stderr).toContain('--token');
  });

  it('login: a rejected token exits 4 and saves nothing', async () => {
    const env = sandbox();
    const client = fakeClient({ overrides: { getWorkspace: async () => Promise.reject(new SvcError('unauthorized', 'unauthorized')) } });
    const run = await runSvc(['login', '--base-url', 'http://127.0.0.1:1/api', '--token', 'bad-token-1'], { env, client });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('rejected the token');
    expect(run.stderr).not.toContain('bad-token-1');
    expect((await runSvc(['profile', 'list', '--json'], { env })).json()).toMatchObject({ profiles: [] });
  });

  it('profile: show hides the token unless --show-token is given', async () => {
    const env = sandbox();
    await login(env, 'work', 'http://127.0.0.1:1/api', 'tok-abcdef');
    const hidden = await runSvc(['profile', 'show'], { env });
    expect(hidden.code).toBe(0);
    expect(hidden.stdout).toContain('token: (set; hidden)');
    expect(hidden.stdout).not.toContain('tok-abcdef');
    expect((await runSvc(['profile', 'show', '--json'], { env })).json()).not.toHaveProperty('token');
    const shown = await runSvc(['profile', 'show', 'work', '--show-token', '--json'], { env });
    expect(shown.json()).toMatchObject({ name: 'work', token: 'tok-abcdef', current: true });
  });

  it('profile: use switches the current profile; an unknown name exits 2', async () => {
    const env = sandbox();
    await login(env, 'a', 'http://127.0.0.1:1/api', 'token-a');
    await login(env, 'b', 'http://127.0.0.1:2/api', 'token-b');
    expect((await runSvc(['profile', 'use', 'a'], { env })).code).toBe(0);
    expect((await runSvc(['profile', 'list', '--json'], { env })).json()).toMatchObject({ current: 'a' });
    const unknown = await runSvc(['profile', 'use', 'zzz'], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('svc profile list');
  });

  it('config: a token never appears in error messages', async () => {
    const client = fakeClient({
      overrides: { getWorkspace: async () => Promise.reject(new SvcError('internal_error', 'boom with tok-secret-99 inside')) },
    });
    const run = await runSvc(['workspace', '--token', 'tok-secret-99'], { client });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('boom with *** inside');
    expect(run.stderr).not.toContain('tok-secret-99');
  });
});
