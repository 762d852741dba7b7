import { describe, expect, it } from 'vitest';
import { testEngine } from '../support/test-engine.js';

describe('engine', () => {
  it('sendToPhone: accepts, then the dispatcher sends it', async () => {
    const { engine, api } = testEngine();
    const result = api.sendToPhone({ phone: '+14155550123', text: 'Hello' });
    expect(result.status).toBe('Pending');
    expect(await engine.workers.runDue()).toBe(1);
    expect(api.getMessage(result.message_uid).status).toBe('Sent');
    expect(api.getWorkspace().messaging_quota.used).toBe(1);
  });
});
