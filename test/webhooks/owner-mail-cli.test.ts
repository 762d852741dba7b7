import { describe, expect, it } from 'vitest';
import type { ServeOptions } from '../../src/cli/io.js';
import type { Engine } from '../../src/engine/engine-api.js';
import { serve } from '../../src/http/serve.js';
import { interrupts, runSvc, tempDir } from '../support/run-cli.js';
import { sampleWorkspace } from '../support/fake-client.js';

/** Runs `svc serve ...` against a fake server that stops at once; returns the options it was given. */
async function serveWith(args: string[], env: Record<string, string> = {}) {
  const signals = interrupts();
  let seen: ServeOptions | undefined;
  const fake = async (opts: ServeOptions) => {
    seen = opts;
    setTimeout(() => signals.fire('SIGTERM'), 5);
    return { url: 'http://127.0.0.1:8080', close: async () => undefined };
  };
  const run = await runSvc(['serve', '--port', '0', ...args], { io: { serve: fake, onInterrupt: signals.onInterrupt }, env });
  return { run, seen };
}

describe('svc serve SMTP settings', () => {
  it('--smtp-url and --smtp-from reach the server; the environment fills in; a flag beats the environment', async () => {
    const flags = await serveWith(['--smtp-url', 'smtp://u:p@127.0.0.1:2525', '--smtp-from', 'svc@example.com']);
    expect(flags.run.code).toBe(0);
    expect(flags.seen).toMatchObject({ smtpUrl: 'smtp://u:p@127.0.0.1:2525', smtpFrom: 'svc@example.com' });

    const env = { SVC_SMTP_URL: 'smtps://env:pw@mail.example.com:465', SVC_SMTP_FROM: 'env@example.com' };
    expect((await serveWith([], env)).seen).toMatchObject({ smtpUrl: env.SVC_SMTP_URL, smtpFrom: env.SVC_SMTP_FROM });
    const both = await serveWith(['--smtp-url', 'smtp://flag@127.0.0.1:25'], env);
    expect(both.seen).toMatchObject({ smtpUrl: 'smtp://flag@127.0.0.1:25', smtpFrom: 'env@example.com' });

    const none = await serveWith([]);
    expect(none.seen !== undefined && 'smtpUrl' in none.seen).toBe(false);
  });

  it('a bad SMTP URL exits 2 without repeating it (it may hold a password); --smtp-from alone too', async () => {
    const bad = await serveWith(['--smtp-url', 'http://user:hunter2@mail.example.com']);
    expect(bad.run.code).toBe(2);
    expect(bad.seen).toBeUndefined();
    expect(bad.run.stderr).toContain('smtp://');
    expect(bad.run.stderr + bad.run.stdout).not.toContain('hunter2');
    const junk = await serveWith([], { SVC_SMTP_URL: 'smtp://user:hunter2@' });
    expect(junk.run.code).toBe(2);
    expect(junk.run.stderr).not.toContain('hunter2');
    expect((await serveWith(['--smtp-from', 'a@example.com'])).run.code).toBe(2);
  });

  it('the real server says where it mails with the password masked', async () => {
    const lines: string[] = [];
    const server = await serve({
      port: 0,
      host: '127.0.0.1',
      dataDir: tempDir('svc-owner-mail-serve-'),
      dev: false,
      smtpUrl: 'smtp://notify%40example.com:s3cr%3At@127.0.0.1:2525',
      log: (line) => lines.push(line),
    });
    await server.close();
    expect(lines).toContain('owner notifications: e-mailed via smtp://notify%40example.com:***@127.0.0.1:2525');
    expect(lines.join('\n')).not.toMatch(/s3cr/);
  });
});

describe('svc admin owner e-mails', () => {
  it('workspace update --owner-email sets it, "none" removes it; partner create --email', async () => {
    const calls: unknown[] = [];
    const engine = {
      admin: {
        updateWorkspace: (id: number, input: unknown) => (calls.push(['update', id, input]), sampleWorkspace()),
        createPartner: (input: unknown) => (calls.push(['partner', input]), { partner_id: 'pid', partner_secret: 'psec', name: 'P' }),
      },
      close: async () => undefined,
    } as unknown as Engine;
    const io = { openEngine: async () => engine };
    expect((await runSvc(['admin', 'workspace', 'update', '2', '--owner-email', 'o@example.com'], { io })).code).toBe(0);
    expect((await runSvc(['admin', 'workspace', 'update', '2', '--owner-email', 'none'], { io })).code).toBe(0);
    expect((await runSvc(['admin', 'partner', 'create', '--name', 'P', '--email', 'ops@example.com', '--json'], { io })).code).toBe(0);
    expect(calls).toEqual([
      ['update', 2, { owner_email: 'o@example.com' }],
      ['update', 2, { owner_email: null }],
      ['partner', { name: 'P', email: 'ops@example.com' }],
    ]);
  });
});
