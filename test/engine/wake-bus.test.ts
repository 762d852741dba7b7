/**
 * The wake bus: this process's subscribers hear a wake-up at once; other replicas hear the topics woken within
 * a few milliseconds, sent together (one statement, so one round trip and one commit for all of them).
 */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/engine/context.js';
import { createWakeBus } from '../../src/runtime/wake-bus.js';
import type { SqlDatabase } from '../../src/store/sql-database.js';

describe('wake bus', () => {
  it('wakes its own subscribers at once and notifies the topics of a few milliseconds in one call', async () => {
    const notified: string[][] = [];
    const database = {
      sql: {},
      notifications: {
        notify: async (_tx: unknown, topics: readonly string[]) => void notified.push([...topics]),
        subscribe: () => () => undefined,
      },
    } as unknown as SqlDatabase;
    const bus = createWakeBus(database, silentLogger, { listen: false });
    const heard: string[] = [];
    bus.subscribe((topic) => heard.push(topic));
    bus.wake('send');
    bus.wake('webhooks');
    bus.wake('send');
    expect(heard).toEqual(['send', 'webhooks', 'send']);
    expect(notified).toEqual([]);
    for (let waited = 0; notified.length === 0 && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(notified).toHaveLength(1);
    // Each carries this process's mark, so its own listener skips it.
    expect(notified[0]!.map((payload) => payload.split(' ')[1])).toEqual(['send', 'webhooks']);
    expect(new Set(notified[0]!.map((payload) => payload.split(' ')[0])).size).toBe(1);
    bus.close();
  });
});
