import { describe, expect, it } from 'vitest';
import { ledgerSum } from '../support/engine-fixtures.js';
import { testEngine } from '../support/test-engine.js';

const PHONE = '+14155550123';

async function withFile() {
  const t = await testEngine();
  const file = await t.api.uploadFile({ filename: 'a.txt', mimetype: 'text/plain', content: Buffer.from('hello') });
  const template = await t.api.createTemplate({ name: 'Brochure', file_uid: file.uid });
  return { ...t, file, template };
}

describe('credits: cost of a message', () => {
  it.each([
    ['text only', { text: 'Hi' }, 1],
    ['file only', { file: true }, 1],
    ['empty text and a file', { text: '', file: true }, 1],
    ['template only', { template: true }, 1],
    ['text and a file', { text: 'Hi', file: true }, 2],
    ['text and a template', { text: 'Hi', template: true }, 2],
  ] as const)('sendToPhone: %s costs %i, debited at acceptance', async (_name, shape, cost) => {
    const { api, file, template, db, local } = await withFile();
    const before = (await api.getWorkspace()).messaging_quota.used;
    const result = await api.sendToPhone({
      phone: PHONE,
      ...('text' in shape ? { text: shape.text } : {}),
      ...('file' in shape ? { file_uid: file.uid } : {}),
      ...('template' in shape ? { attachment_template_id: template.id } : {}),
    });
    expect(result.credits).toBe(cost);
    expect(await api.getMessage(result.message_uid)).toMatchObject({ status: 'Pending', credits: cost });
    const quota = (await api.getWorkspace()).messaging_quota;
    expect(quota.used - before).toBe(cost);
    expect(quota.remaining).toBe(quota.total - quota.used);
    expect(ledgerSum(db, local.workspace_id)).toBe(quota.used);
  });

  it('sendToPhone: a message with neither text nor attachment is refused and costs nothing', async () => {
    const { api } = await testEngine();
    await expect(api.sendToPhone({ phone: PHONE, text: '' })).rejects.toThrow(/needs text/);
    expect((await api.getWorkspace()).messaging_quota.used).toBe(0);
  });

  it('credit ledger: sums to quota_used across sends, failures and restores', async () => {
    const { api, engine, sim, clock, db, local } = await testEngine();
    await sim.setUnreachable('+14155550999', true);
    await api.sendToPhone({ phone: PHONE, text: 'one' });
    await api.sendToPhone({ phone: '+14155550999', text: 'lost' });
    await api.sendToPhone({ phone: '12345', text: 'bad number' });
    for (let i = 0; i < 3; i += 1) {
      await engine.workers.runDue();
      clock.advance(2000);
    }
    const used = (await api.getWorkspace()).messaging_quota.used;
    expect(used).toBe(1);
    expect(ledgerSum(db, local.workspace_id)).toBe(used);
  });
});
