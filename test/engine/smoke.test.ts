import { describe, expect, it } from 'vitest';
import { testEngine } from '../support/test-engine.js';

describe('engine', () => {
  it('sendToPhone: accepts, then the dispatcher sends it', async () => {
    const { engine, api } = await testEngine();
    const result = await api.sendToPhone({ phone: '+14155550123', text: 'Hello' });
    expect(result.status).toBe('Pending');
    expect(await engine.workers.runDue()).toBe(1);
    expect((await api.getMessage(result.message_uid)).status).toBe('Sent');
    expect((await api.getWorkspace()).messaging_quota.used).toBe(1);
  });
});
