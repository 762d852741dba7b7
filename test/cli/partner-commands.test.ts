import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/create-client.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { databasePath } from '../../src/runtime/open-engine.js';
import { openDatabase } from '../../src/store/database.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';
import { decodeTerminalQr } from '../support/terminal-qr-decode.js';
import { partnerSetup } from '../support/partner-setup.js';
import { runSvc, tempDir } from '../support/run-cli.js';

describe('svc partner: workspaces, users, tokens on the local engine', () => {
  it('svc partner workspace create|get|update, users create|list, token get|rotate', async () => {
    const { svc } = await partnerSetup();
    const created = await svc(['partner', 'workspace', 'create', '--name', 'Acme Dental', '--seats', '5', '--json']);
    expect(created.code).toBe(0);
    const ws = created.json<{ workspace_id: number }>().workspace_id;
    expect((await svc(['partner', 'workspace', 'get', String(ws), '--json'])).json()).toMatchObject({ display_name: 'Acme Dental', seats_purchased: 5 });

    const users = (await svc(['partner', 'users', 'create', String(ws), '--count', '3', '--json'])).json<Array<{ user_id: number }>>();
    expect(users).toHaveLength(3);
    const full = await svc(['partner', 'users', 'create', String(ws), '--count', '3', '--json']);
    expect(full.code).toBe(1);
    expect(JSON.parse(full.stderr)).toMatchObject({ error: { code: 'seats_full' } });
    const below = await svc(['partner', 'workspace', 'update', String(ws), '--seats', '2']);
    expect(below.code).toBe(1);
    expect(below.stderr).toContain('seats in use');
    const updated = await svc(['partner', 'workspace', 'update', String(ws), '--name', 'Acme Ortho', '--json']);
    expect(updated.json()).toMatchObject({ display_name: 'Acme Ortho' });

    const listed = await svc(['partner', 'users', 'list', String(ws)]);
    expect(listed.stdout.trim().split('\n')).toHaveLength(3);
    expect(listed.stdout).toContain('not connected');

    const token = (await svc(['partner', 'token', 'get', String(ws), '--json'])).json<{ token: string }>().token;
    const rotated = (await svc(['partner', 'token', 'rotate', String(ws), '--yes', '--json'])).json<{ token: string }>().token;
    expect(rotated).not.toBe(token);
    const old = await svc(['workspace', '--token', token, '--json']);
    expect(old.code).toBe(4);
    expect((await svc(['workspace', '--token', rotated, '--json'])).json()).toMatchObject({ id: ws });
  });

  it('svc partner: without credentials exits 4 and says how to log in', async () => {
    const result = await runSvc(['partner', 'workspace', 'get', '1']);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('svc login --partner');
  });

  it('svc partner: a wrong secret is refused by the local engine and never printed', async () => {
    const { env, partner } = await partnerSetup();
    const wrong = 'pts_wrong_secret_value_123';
    const result = await runSvc(['partner', 'workspace', 'get', '1'], {
      env: { ...env, SVC_PARTNER_ID: partner.partner_id, SVC_PARTNER_SECRET: wrong },
    });
    expect(result.code).toBe(4);
    expect(result.stderr).not.toContain(wrong);
  });
});

describe('svc partner qr and svc sim scan', () => {
  it('svc partner qr: on a terminal, the link and a QR that decodes back to it; piped, the link alone', async () => {
    const { svc } = await partnerSetup();
    const ws = (await svc(['partner', 'workspace', 'create', '--name', 'QR', '--seats', '1', '--json'])).json<{ workspace_id: number }>().workspace_id;
    const [user] = (await svc(['partner', 'users', 'create', String(ws), '--json'])).json<Array<{ user_id: number }>>();
    const piped = await svc(['partner', 'qr', String(ws), String(user!.user_id)]);
    expect(piped.code).toBe(0);
    expect(piped.stdout).toMatch(/^http:\/\/127\.0\.0\.1:8080\/connect\/[A-Za-z0-9_-]{32}\n$/);
    const shown = await svc(['partner', 'qr', String(ws), String(user!.user_id)], { tty: true });
    expect(shown.code).toBe(0);
    const link = shown.stdout.split('\n')[0]!;
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:8080\/connect\/[A-Za-z0-9_-]{32}$/);
    expect(decodeTerminalQr(shown.stdout)).toBe(link);

    const embed = await svc(['partner', 'qr', String(ws), String(user!.user_id), '--embed'], { tty: true });
    const embedLink = embed.stdout.split('\n')[0]!;
    expect(embedLink).toMatch(/\?display_mode=embedding$/);
    expect(decodeTerminalQr(embed.stdout)).toBe(embedLink);

    // The first link was revoked by the second; the newest one connects.
    expect((await svc(['sim', 'scan', link, '--phone', '+15550007001'])).code).toBe(1);
    const scanned = await svc(['sim', 'scan', embedLink, '--phone', '+15550007001', '--json']);
    expect(scanned.json()).toEqual({ phone: '+15550007001', status: 'connected', workspace_id: ws, user_id: user!.user_id });
    const users = (await svc(['partner', 'users', 'list', String(ws), '--json'])).json<{ items: Array<{ messenger_account: unknown }> }>().items;
    expect(users[0]!.messenger_account).toMatchObject({ phone: '+15550007001', status: 'connected' });

    const off = await svc(['partner', 'account', 'disconnect', String(ws), String(user!.user_id), '--yes', '--json']);
    expect(off.json()).toMatchObject({ disconnected: true, phone: '+15550007001' });
    const again = await svc(['partner', 'account', 'disconnect', String(ws), String(user!.user_id), '--yes']);
    expect(again.stdout).toContain('nothing to disconnect');
  });

  it('svc partner qr --wait: spins on stderr until the phone scans, then prints the phone', async () => {
    const { env, svc } = await partnerSetup();
    const ws = (await svc(['partner', 'workspace', 'create', '--name', 'Wait', '--seats', '1', '--json'])).json<{ workspace_id: number }>().workspace_id;
    const [user] = (await svc(['partner', 'users', 'create', String(ws), '--json'])).json<Array<{ user_id: number }>>();
    let sleeps = 0;
    // The "phone" scans from another connection to the same database while the command polls.
    const scanFromElsewhere = async () => {
      sleeps += 1;
      if (sleeps !== 2) return;
      const database = new SqliteDatabase(openDatabase(databasePath(env.SVC_HOME!)));
      const engine = createEngine({ database });
      const { code } = database.db.prepare('SELECT code FROM qr_links ORDER BY id DESC LIMIT 1').get() as { code: string };
      await engine.connect.scan({ qr_link: `http://x/connect/${code}`, phone: '+15550007002' });
      await engine.close();
    };
    const result = await svc(['partner', 'qr', String(ws), String(user!.user_id), '--wait'], { tty: true, io: { createClient, sleep: scanFromElsewhere } });
    expect(result.code).toBe(0);
    expect(result.stdout.trim().endsWith('connected +15550007002')).toBe(true);
    expect(result.stderr).toContain('waiting for the phone to scan');
    expect(sleeps).toBe(2);
  });
});

describe('svc login --partner', () => {
  it('svc login --partner: checks and saves the credentials in a 0600 profile without printing the secret', async () => {
    const { env, partner } = await partnerSetup();
    const login = await runSvc(['login', '--partner', '--partner-id', partner.partner_id], {
      env,
      tty: true,
      answers: [partner.partner_secret],
    });
    expect(login.code).toBe(0);
    expect(login.questions).toEqual([{ kind: 'password', message: 'Partner Secret:' }]);
    expect(login.stdout + login.stderr).not.toContain(partner.partner_secret);
    expect(statSync(join(env.SVC_CONFIG_DIR!, 'config.json')).mode & 0o777).toBe(0o600);

    // Later commands find the credentials in the profile.
    const created = await runSvc(['partner', 'workspace', 'create', '--name', 'Saved', '--seats', '1', '--json'], { env });
    expect(created.code).toBe(0);
    const shown = await runSvc(['profile', 'show', '--json'], { env });
    expect(shown.stdout).not.toContain(partner.partner_secret);
  });

  it('svc login --partner: a wrong secret exits 4 and saves nothing', async () => {
    const { env, partner } = await partnerSetup();
    const login = await runSvc(['login', '--partner', '--partner-id', partner.partner_id], {
      env: { ...env, SVC_PARTNER_SECRET: 'pts_not_it' },
    });
    expect(login.code).toBe(4);
    expect((await runSvc(['partner', 'workspace', 'get', '1'], { env })).code).toBe(4);
  });
});
