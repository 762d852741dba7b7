/**
 * `onSettled` of a write transaction's context (src/engine/context.ts): what a transaction set aside outside the
 * database (the webhook worker's slots, `DeliveryHandOff`) is given back or used once it has ended, told whether
 * it committed, before its wake-ups go out.
 */
import { describe, expect, it } from 'vitest';
import { inWriteTransaction } from '../../src/engine/context.js';
import { testEngine } from '../support/test-engine.js';

describe('a write transaction tells what it set aside how it ended', () => {
  it('committed, rolled back, and before its wake-ups', async () => {
    const t = await testEngine();
    try {
      const told: string[] = [];
      const wake = t.ctx.wake;
      t.ctx.wake = (name) => void told.push(`wake ${name}`);
      await inWriteTransaction(t.ctx, async (tx) => {
        tx.onSettled?.((committed) => told.push(`settled ${committed}`));
        tx.wake('webhooks');
      });
      expect(told).toEqual(['settled true', 'wake webhooks']);

      told.length = 0;
      await expect(inWriteTransaction(t.ctx, async (tx) => {
        tx.onSettled?.((committed) => told.push(`settled ${committed}`));
        tx.wake('webhooks');
        throw new Error('the change failed');
      })).rejects.toThrow('the change failed');
      expect(told).toEqual(['settled false']);
      t.ctx.wake = wake;
      // Outside a transaction there is nothing to tell.
      expect(t.ctx.onSettled).toBeUndefined();
    } finally {
      await t.engine.close();
    }
  });
});
