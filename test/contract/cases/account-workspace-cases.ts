/** Messenger accounts, the workspace record with its quota, and attachment templates. */
import { expect, it } from 'vitest';
import type { CaseGroup } from '../contract-cases.js';
import { bytes, expectCode } from '../contract-target.js';

export const accountAndWorkspaceCases: CaseGroup = (target) => {
  it('listAccounts: lists the accounts, the most recently connected is the default sender', async () => {
    const ws = await target().workspace();
    const [only] = (await ws.client.listAccounts()).items;
    expect(only).toMatchObject({ phone: ws.accountPhone, full_name: 'Contract sender', status: 'connected', is_default_sender: true });
    expect(only?.connected_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    const second = ws.newPhone();
    await ws.client.sim.connect({ phone: second, full_name: 'Second', email: 'second@example.com' });
    const accounts = (await ws.client.listAccounts()).items;
    expect(accounts).toHaveLength(2);
    const byPhone = new Map(accounts.map((a) => [a.phone, a]));
    expect(byPhone.get(second)).toMatchObject({ full_name: 'Second', email: 'second@example.com', is_default_sender: true });
    expect(byPhone.get(ws.accountPhone)?.is_default_sender).toBe(false);

    // Reconnecting the first account makes it the most recent again (connected_at has millisecond resolution).
    await new Promise((resolve) => setTimeout(resolve, 5));
    await ws.client.sim.connect({ phone: ws.accountPhone });
    const after = new Map((await ws.client.listAccounts()).items.map((a) => [a.phone, a.is_default_sender]));
    expect([after.get(ws.accountPhone), after.get(second)]).toEqual([true, false]);
  });

  it('getWorkspace: plan, seats and the messaging quota of the current month', async () => {
    const ws = await target().workspace({ quota: 42 });
    const workspace = await ws.client.getWorkspace();
    expect(workspace).toMatchObject({ id: ws.id, plan: 'business', send_interval_ms: 0, seats_purchased: 1 });
    expect(workspace.name).toMatch(/^Contract /);
    expect(workspace.messaging_quota).toMatchObject({ total: 42, used: 0, remaining: 42, period: 'month' });
    const start = Date.parse(workspace.messaging_quota.period_start);
    const end = Date.parse(workspace.messaging_quota.period_end);
    expect(start).toBeLessThanOrEqual(Date.now());
    expect(end).toBeGreaterThan(Date.now());
    expect(end - start).toBeGreaterThanOrEqual(28 * 86_400_000);
    expect(end - start).toBeLessThanOrEqual(31 * 86_400_000);
  });

  it('templates: create returns the template, list shows it', async () => {
    const ws = await target().workspace();
    expect(await ws.client.listTemplates()).toEqual({ items: [], page: 1, has_more_pages: false });
    const file = await ws.client.uploadFile({ filename: 'menu.pdf', mimetype: 'application/pdf', content: bytes('%PDF') });
    const template = await ws.client.createTemplate({ name: 'Menu', file_uid: file.uid });
    expect(template).toMatchObject({ name: 'Menu', file_uid: file.uid });
    expect(template.id).toBeGreaterThan(0);
    const page = await ws.client.listTemplates();
    expect(page).toEqual({ items: [template], page: 1, has_more_pages: false });
  });

  it('createTemplate: an empty name is validation_error', async () => {
    const ws = await target().workspace();
    const file = await ws.client.uploadFile({ filename: 'x.txt', mimetype: 'text/plain', content: bytes('x') });
    await expectCode(ws.client.createTemplate({ name: ' ', file_uid: file.uid }), 'validation_error');
  });
};
