import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { openDatabase } from '../../src/store/database.js';
import { failDeliveries, failingEngine, freePort, notificationRows, startSmtp, subscribedWorkspace } from '../support/owner-mail-helpers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function smtpServer(port?: number) {
  const smtp = await startSmtp(port);
  cleanups.push(smtp.close);
  return smtp;
}

function engineOn(...args: Parameters<typeof failingEngine>) {
  const t = failingEngine(...args);
  cleanups.push(() => t.engine.close());
  return t;
}

describe('owner notification e-mails', () => {
  it('after the threshold, exactly one plain-text mail reaches the owner: subscription, streak, last error, next steps, no secret', async () => {
    const smtp = await smtpServer();
    const t = engineOn(openDatabase(':memory:'), { smtp: { url: smtp.url('notify%40example.com:smtp-pa55@'), from: 'alerts@example.com' } });
    const { ws, hooks, subscription } = await subscribedWorkspace(t.engine, 'owner@example.com');

    await failDeliveries(t.engine, hooks, subscription.id, 2);
    expect(smtp.mails).toHaveLength(0);
    await failDeliveries(t.engine, hooks, subscription.id, 1);
    expect(smtp.mails).toHaveLength(1);
    // More failures past the threshold, and more runs: still the one mail.
    await failDeliveries(t.engine, hooks, subscription.id, 2);
    t.clock.advance(3_600_000);
    await t.engine.workers.runDue();
    expect(smtp.mails).toHaveLength(1);

    const mail = smtp.mails[0]!;
    expect(mail.to).toEqual(['owner@example.com']);
    expect(mail.from).toBe('alerts@example.com');
    expect(mail.raw).toContain(`Subject: [svc] Webhook ${subscription.id} is failing: 3 deliveries in a row`);
    expect(mail.raw).toMatch(/Content-Type: text\/plain/i);
    expect(mail.raw).toContain(`Subscription:     ${subscription.id}`);
    expect(mail.raw).toContain('Event type:       message:received:new');
    expect(mail.raw).toContain('URL:              https://hooks.example.com/in (query string not shown)');
    expect(mail.raw).toContain('Failed in a row:  3 deliveries');
    expect(mail.raw).toContain('Last error:       HTTP 500');
    expect(mail.raw).toContain(`svc webhooks deliveries ${subscription.id}`);
    expect(mail.raw).toContain(`svc webhooks redeliver ${subscription.id} DELIVERY_ID`);
    for (const secret of [subscription.secret, ws.token, 'qs-secret-123', 'smtp-pa55']) expect(mail.raw).not.toContain(secret);

    const [row] = notificationRows(t.db);
    expect(row).toMatchObject({ mail_status: 'sent', mail_attempts: 0, mail_error: null });
    expect(row!.emailed_at).toBe(new FakeClock().now());
  });

  it('without SMTP the notification is only recorded: no mail, emailed_at stays NULL', async () => {
    const smtp = await smtpServer();
    const t = engineOn(openDatabase(':memory:'));
    const { hooks, subscription } = await subscribedWorkspace(t.engine, 'owner@example.com');
    await failDeliveries(t.engine, hooks, subscription.id, 3);
    t.clock.advance(60_000);
    await t.engine.workers.runDue();
    expect(smtp.mails).toHaveLength(0);
    expect(notificationRows(t.db)).toEqual([expect.objectContaining({ mail_status: 'pending', emailed_at: null, mail_attempts: 0 })]);
  });

  it('a workspace without an owner address: the notification is marked skipped, not retried', async () => {
    const smtp = await smtpServer();
    const t = engineOn(openDatabase(':memory:'), { smtp: { url: smtp.url() } });
    const { hooks, subscription } = await subscribedWorkspace(t.engine);
    await failDeliveries(t.engine, hooks, subscription.id, 3);
    expect(notificationRows(t.db)).toEqual([expect.objectContaining({ mail_status: 'skipped', mail_error: 'no owner e-mail address' })]);
    await expect(t.engine.workers.runDue()).resolves.toBe(0);
    expect(smtp.mails).toHaveLength(0);
  });

  it('SMTP server down: the mail is retried later with backoff and not lost; the log never shows the password', async () => {
    const port = await freePort();
    const log: string[] = [];
    const url = `smtp://notify:very-secret-pw@127.0.0.1:${port}`;
    const t = engineOn(openDatabase(':memory:'), { smtp: { url }, ownerMailer: { log: (line) => log.push(line) } });
    const { hooks, subscription } = await subscribedWorkspace(t.engine, 'owner@example.com');
    await failDeliveries(t.engine, hooks, subscription.id, 3);

    const [failed] = notificationRows(t.db);
    expect(failed).toMatchObject({ mail_status: 'pending', mail_attempts: 1, emailed_at: null, mail_next_at: t.clock.now() + 60_000 });
    expect(failed!.mail_error).toMatch(/ECONNREFUSED|connect/i);
    expect(log.join('\n')).toContain('retrying in 60 s');
    expect(log.join('\n')).not.toContain('very-secret-pw');

    // Still down a minute later: the next wait doubles.
    t.clock.advance(60_000);
    await t.engine.workers.runDue();
    expect(notificationRows(t.db)[0]).toMatchObject({ mail_attempts: 2, mail_next_at: t.clock.now() + 120_000 });

    const smtp = await smtpServer(port);
    await t.engine.workers.runDue();
    expect(smtp.mails).toHaveLength(0); // not due yet
    t.clock.advance(120_000);
    await t.engine.workers.runDue();
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0]!.to).toEqual(['owner@example.com']);
    expect(notificationRows(t.db)[0]).toMatchObject({ mail_status: 'sent', mail_error: null });
  });

  it('a partner subscription: the mail goes to the partner e-mail and names the partner commands', async () => {
    const smtp = await smtpServer();
    const t = engineOn(openDatabase(':memory:'), { smtp: { url: smtp.url() } });
    const partner = await t.engine.admin.createPartner({ name: 'Resell', email: 'ops@resell.example' });
    const hooks = t.engine.partner(partner.partner_id).webhooks();
    const { id, secret } = await hooks.create({ event_type: 'workspace:quota_full', url: 'https://partner.example.com/hook' });
    await failDeliveries(t.engine, hooks, id, 3);
    expect(smtp.mails.map((m) => m.to)).toEqual([['ops@resell.example']]);
    expect(smtp.mails[0]!.raw).toContain('partner "Resell"');
    expect(smtp.mails[0]!.raw).toContain(`svc partner webhooks deliveries ${id}`);
    for (const hidden of [secret, partner.partner_secret]) expect(smtp.mails[0]!.raw).not.toContain(hidden);
  });

  it('owner addresses are checked: one address, no header tricks; admin update can set and remove it', async () => {
    const t = engineOn(openDatabase(':memory:'));
    await expect(t.engine.admin.createWorkspace({ name: 'X', owner_email: 'a@b.example\r\nBcc: evil@x.example' })).rejects.toThrow(/e-mail address/);
    await expect(t.engine.admin.createPartner({ name: 'P', email: 'not-an-address' })).rejects.toThrow(/e-mail address/);
    const { workspace_id } = await t.engine.admin.createWorkspace({ name: 'X', owner_email: ' owner@example.com ' });
    const email = () => t.db.prepare('SELECT owner_email FROM workspaces WHERE id = ?').pluck().get(workspace_id);
    expect(email()).toBe('owner@example.com');
    await t.engine.admin.updateWorkspace(workspace_id, { owner_email: 'new@example.com' });
    expect(email()).toBe('new@example.com');
    await t.engine.admin.updateWorkspace(workspace_id, { owner_email: null });
    expect(email()).toBeNull();
  });

  it('two engines on one database file mail each notification exactly once', async () => {
    const smtp = await smtpServer();
    const path = join(mkdtempSync(join(tmpdir(), 'svc-owner-mail-')), 'svc.db');
    const clock = new FakeClock();
    // A process without SMTP records the notifications; two with SMTP then race for them (three connections to
    // one file, whose write transactions this process queues one after another, as separate processes would).
    const writer = engineOn(openDatabase(path), { clock });
    const a = engineOn(openDatabase(path), { clock, smtp: { url: smtp.url() } });
    const b = engineOn(openDatabase(path), { clock, smtp: { url: smtp.url() } });
    const owners = ['one@example.com', 'two@example.com', 'three@example.com'];
    for (const owner of owners) {
      const { hooks, subscription } = await subscribedWorkspace(writer.engine, owner);
      for (let i = 0; i < 3; i += 1) await hooks.test(subscription.id);
    }
    await writer.engine.workers.runDue();
    expect(notificationRows(a.db)).toHaveLength(3);
    await Promise.all([a.engine.workers.runDue(), b.engine.workers.runDue(), a.engine.workers.runDue(), b.engine.workers.runDue()]);
    clock.advance(10 * 60_000);
    await Promise.all([a.engine.workers.runDue(), b.engine.workers.runDue()]);

    expect(smtp.mails.map((m) => m.to[0]).sort()).toEqual([...owners].sort());
    expect(notificationRows(a.db).map((r) => r.mail_status)).toEqual(['sent', 'sent', 'sent']);
  });
});
