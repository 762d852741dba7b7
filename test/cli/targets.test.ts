import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/create-client.js';
import { createPartnerClient } from '../../src/client/create-partner-client.js';
import { startSandbox, type Sandbox } from '../../src/testing/index.js';
import { fakeClient } from '../support/fake-client.js';
import { runSvc, tempDir } from '../support/run-cli.js';

// Which instance a command reaches after `svc login`, and what svc says when a flag or variable decides otherwise.

const sandboxes: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(sandboxes.splice(0).map((s) => s.stop()));
});
async function sandbox(): Promise<Sandbox> {
  const started = await startSandbox();
  sandboxes.push(started);
  return started;
}

const shell = (extra: Record<string, string> = {}) => ({ SVC_CONFIG_DIR: tempDir('svc-conf-'), HOME: tempDir('svc-user-'), SVC_HOME: '', ...extra });

/** A port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('svc login --partner --profile NEW', () => {
  it('creates the profile NEW instead of failing with "profile does not exist" after asking for the credentials', async () => {
    const box = await sandbox();
    const env = shell();
    const login = await runSvc(['login', '--partner', '--partner-base-url', box.partnerUrl, '--profile', 'acme'], {
      env,
      tty: true,
      answers: [box.partner.partnerId, box.partner.partnerSecret],
      io: { createPartnerClient },
    });
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(login.questions.map((q) => q.message)).toEqual(['Partner ID:', 'Partner Secret:']);
    const created = await runSvc(['partner', 'workspace', 'create', '--name', 'Dental', '--seats', '1', '--json', '--profile', 'acme'], {
      env,
      io: { createPartnerClient },
    });
    expect(created.code).toBe(0);
    // Any other command still refuses a profile that does not exist.
    expect((await runSvc(['partner', 'workspace', 'get', '1', '--profile', 'nope'], { env })).code).toBe(2);
  });
});

describe('--base-url after svc login', () => {
  it('uses the saved token when the URL is the saved one, also with SVC_HOME set, and never sends it to another server', async () => {
    const env = shell({ SVC_HOME: tempDir('svc-home-') });
    expect((await runSvc(['login', '--base-url', 'http://127.0.0.1:1/api', '--token', 'saved-token'], { env })).code).toBe(0);
    for (const url of ['http://127.0.0.1:1/api', 'http://127.0.0.1:1/api/', 'http://127.0.0.1:1']) {
      const run = await runSvc(['workspace', '--base-url', url], { env });
      expect(run.code, run.stderr).toBe(0);
      expect(run.configs[0]).toMatchObject({ baseUrl: url, token: 'saved-token' });
    }
    const elsewhere = await runSvc(['workspace', '--base-url', 'http://127.0.0.1:2/api'], { env });
    expect(elsewhere.code).toBe(4);
    expect(elsewhere.stderr).toContain('no API token for http://127.0.0.1:2/api');
    expect(elsewhere.configs).toEqual([]);
  });
});

describe('warnings when a flag or variable sets the saved profile aside', () => {
  it('svc status warns that SVC_HOME or --data selects the local engine instead of the saved server', async () => {
    const env = shell();
    await runSvc(['login', '--base-url', 'http://127.0.0.1:1/api', '--token', 'saved-token'], { env });
    const byEnv = await runSvc(['status', '--json'], { env: { ...env, SVC_HOME: '/tmp/svc-elsewhere' } });
    expect(byEnv.stderr).toMatch(/warning: SVC_HOME selects the local engine \(SQLite \/tmp\/svc-elsewhere\/svc\.db\): the server saved in profile "default" \(http:\/\/127\.0\.0\.1:1\/api\) is not used; unset SVC_HOME/);
    expect(byEnv.json<{ target: string }>().target).toBe('local');
    const byFlag = await runSvc(['status', '--data', '/tmp/svc-elsewhere'], { env });
    expect(byFlag.stderr).toContain('warning: --data selects the local engine');
    expect(byFlag.stderr).toContain('drop --data to use it');
    // Nothing to say when the profile is what decides.
    expect((await runSvc(['status'], { env, client: fakeClient() })).stderr).not.toContain('warning');
  });

  it('svc login warns when SVC_HOME, --data, SVC_BASE_URL or SVC_TOKEN keep later commands away from what it saved', async () => {
    const login = (env: Record<string, string>, extra: string[] = []) =>
      runSvc(['login', '--base-url', 'http://127.0.0.1:1/api', '--token', 'saved-token', ...extra], { env });
    expect((await login(shell({ SVC_HOME: '/tmp/svc-elsewhere' }))).stderr).toContain('warning: SVC_HOME selects the local engine');
    expect((await login(shell(), ['--data', '/tmp/svc-elsewhere'])).stderr).toContain('warning: --data selects the local engine');
    expect((await login(shell({ SVC_BASE_URL: 'http://127.0.0.1:2/api' }))).stderr).toContain(
      'warning: SVC_BASE_URL is set: commands in this shell go to http://127.0.0.1:2/api',
    );
    const tokenSet = await login(shell({ SVC_TOKEN: 'other-token' }));
    expect(tokenSet.stderr).toContain('warning: SVC_TOKEN is set');
    expect(tokenSet.stderr).not.toContain('other-token');
    expect((await login(shell())).stderr).toBe('');
  });
});

describe('svc sim scan LINK', () => {
  async function qrLink(box: Sandbox): Promise<{ link: string; ws: number; user: number }> {
    const partner = await createPartnerClient({ baseUrl: box.partnerUrl, ...box.partner, dataDir: '' });
    try {
      const ws = (await partner.createWorkspace({ display_name: 'Dental', seats_purchased: 2 })).workspace_id;
      const user = (await partner.createUsers(ws, 1))[0]!.user_id;
      return { link: (await partner.createQrLink(ws, user)).qr_link, ws, user };
    } finally {
      await partner.close();
    }
  }

  it('connects on the server the link names, with or without local data, when no server is configured', async () => {
    const box = await sandbox();
    const first = await qrLink(box);
    // No local data at all: the link's server is asked, and no data directory is created for it.
    const home = tempDir('svc-home-');
    const scanned = await runSvc(['sim', 'scan', first.link, '--phone', '+15550007101', '--json'], { env: { SVC_HOME: home }, io: { createClient } });
    expect(scanned.stderr).toBe('');
    expect(scanned.json()).toMatchObject({ phone: '+15550007101', status: 'connected', workspace_id: first.ws, user_id: first.user });

    // Local data that does not know the link: the server is asked next.
    expect((await runSvc(['sim', 'connect', '--phone', '+15550007199'], { env: { SVC_HOME: home }, io: { createClient } })).code).toBe(0);
    const second = await qrLink(box);
    const again = await runSvc(['sim', 'scan', second.link, '--phone', '+15550007102', '--json'], { env: { SVC_HOME: home }, io: { createClient } });
    expect(again.stderr).toBe('');
    expect(again.json()).toMatchObject({ phone: '+15550007102', workspace_id: second.ws });
  });

  it('says which server could not be reached instead of "QR link not found"', async () => {
    const port = await closedPort();
    const home = tempDir('svc-home-');
    await runSvc(['sim', 'connect', '--phone', '+15550007199'], { env: { SVC_HOME: home }, io: { createClient } });
    const run = await runSvc(['sim', 'scan', `http://127.0.0.1:${port}/connect/abcdefghijklmnopqrstuvwx`, '--phone', '+15550007103'], {
      env: { SVC_HOME: home },
      io: { createClient },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`the local engine does not know this link, and the server the link names, http://127.0.0.1:${port}, cannot be reached (ECONNREFUSED)`);
    expect(run.stderr).toContain('hint: start `svc serve` there');
  });
});
