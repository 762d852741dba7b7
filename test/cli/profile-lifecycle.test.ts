import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SvcError } from '../../src/wire/errors.js';
import { fakeClient } from '../support/fake-client.js';
import { runSvc, tempDir } from '../support/run-cli.js';

const sandbox = (extra: Record<string, string> = {}) => ({ SVC_CONFIG_DIR: tempDir('svc-conf-'), HOME: tempDir('svc-user-'), SVC_HOME: '', ...extra });

async function login(env: Record<string, string>, profile: string, baseUrl: string, token: string): Promise<void> {
  expect((await runSvc(['login', '--profile', profile, '--base-url', baseUrl, '--token', token], { env })).code).toBe(0);
}

describe('logout, profile delete and status', () => {
  it('logout: forgets the current profile, so commands go back to the local engine', async () => {
    const env = sandbox();
    await login(env, 'work', 'http://127.0.0.1:1/api', 'tok-logout-1');
    expect((await runSvc(['workspace'], { env })).configs[0]).toMatchObject({ baseUrl: 'http://127.0.0.1:1/api' });
    const out = await runSvc(['logout', '--json'], { env });
    expect(out.code).toBe(0);
    expect(out.json()).toEqual({ profile: 'work', logged_out: true });
    expect((await runSvc(['workspace'], { env })).configs[0]).toMatchObject({ baseUrl: undefined, token: undefined });
    expect((await runSvc(['profile', 'list', '--json'], { env })).json()).toMatchObject({ profiles: [] });
    expect((await runSvc(['logout', '--json'], { env })).json()).toMatchObject({ logged_out: false });
  });

  it('profile delete: needs --yes without a terminal (exit 2), asks on one, and keeps the other profiles', async () => {
    const env = sandbox();
    await login(env, 'a', 'http://127.0.0.1:1/api', 'token-a');
    await login(env, 'b', 'http://127.0.0.1:2/api', 'token-b');
    const refused = await runSvc(['profile', 'delete', 'a'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    const declined = await runSvc(['profile', 'delete', 'a'], { env, tty: true, answers: ['no'] });
    expect(declined.code).toBe(1);
    expect(declined.questions.map((q) => q.kind)).toEqual(['confirm']);
    expect((await runSvc(['profile', 'list', '--json'], { env })).json<{ profiles: unknown[] }>().profiles).toHaveLength(2);
    expect((await runSvc(['profile', 'delete', 'a'], { env, tty: true, answers: ['yes'] })).code).toBe(0);
    expect((await runSvc(['profile', 'delete', 'b', '--yes'], { env })).code).toBe(0);
    expect((await runSvc(['profile', 'list', '--json'], { env })).json()).toMatchObject({ profiles: [] });
    expect((await runSvc(['profile', 'delete', 'zzz', '--yes'], { env })).code).toBe(2);
  });

  it('destructive commands need --yes without a terminal and change nothing when refused', async () => {
    const forms = [
      ['webhooks', 'delete', '3'],
      ['files', 'delete', 'file_1'],
      ['partner', 'token', 'rotate', '1'],
      ['partner', 'account', 'disconnect', '1', '2'],
      ['partner', 'webhooks', 'delete', '3'],
    ];
    for (const form of forms) {
      const client = fakeClient();
      const run = await runSvc(form, { client });
      expect(run.code, form.join(' ')).toBe(2);
      expect(run.stderr, form.join(' ')).toContain('rerun with --yes');
      expect(client.calls, form.join(' ')).toEqual([]);
    }
  });

  it('status: a fresh machine uses the local engine by default and creates nothing', async () => {
    const env = sandbox();
    const run = await runSvc(['status', '--json'], { env });
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({
      target: 'local',
      data_dir: join(env.HOME, '.local', 'share', 'svc'),
      sources: { data_dir: 'default' },
      profile: null,
      workspace: null,
      problem: { code: 'not_created' },
    });
    expect(run.configs).toEqual([]);
  });

  it('status: names the remote, the workspace and where each setting came from', async () => {
    const env = sandbox();
    await login(env, 'work', 'http://127.0.0.1:1/api', 'tok-status-1');
    const run = await runSvc(['status', '--json'], { env });
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({
      target: 'remote',
      base_url: 'http://127.0.0.1:1/api',
      profile: 'work',
      sources: { base_url: 'profile', token: 'profile' },
      has_token: true,
      workspace: { id: 1 },
      problem: null,
    });
    expect(run.stdout).not.toContain('tok-status-1');
    const human = await runSvc(['status'], { env });
    expect(human.stdout).toContain('remote instance http://127.0.0.1:1/api (from the profile)');
    const local = await runSvc(['status', '--json'], { env: { ...env, SVC_HOME: tempDir('svc-home-') } });
    expect(local.json()).toMatchObject({ target: 'local', sources: { data_dir: 'env' } });
  });

  it('status: a rejected token is reported in the status and in the exit code', async () => {
    const env = sandbox();
    const client = fakeClient({ overrides: { getWorkspace: async () => Promise.reject(new SvcError('unauthorized', 'unauthorized')) } });
    const run = await runSvc(['status', '--json', '--base-url', 'http://127.0.0.1:1/api', '--token', 'bad-tok-7'], { env, client });
    expect(run.code).toBe(4);
    expect(run.json()).toMatchObject({ target: 'remote', sources: { base_url: 'flag', token: 'flag' }, problem: { code: 'unauthorized' } });
    expect(run.stdout).not.toContain('bad-tok-7');
  });
});
