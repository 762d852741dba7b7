/**
 * The sim network's hand-over (src/store/sim-store.ts) answers alike on both stores, though PostgreSQL makes
 * it one statement, for one message or a run of them: a new delivery is recorded, a second hand-over of the
 * same message answers the first id, and a number marked unreachable in the sender's workspace is refused (in
 * that workspace only).
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { postgresForThisFile, sqliteAndPostgres } from '../support/store-engine.js';
import { fixedRandom } from '../support/test-engine.js';

const pgUrl = postgresForThisFile('simhandover');

describe.each(sqliteAndPostgres(() => pgUrl()))('sim hand-over on %s', (_, open) => {
  it('records once, answers the earlier id again, and refuses a number unreachable in the sender\'s workspace', async () => {
    const engine = createEngine({ database: open(), clock: new FakeClock(), random: fixedRandom() });
    try {
      const stamp = String(Date.now()).slice(-6);
      const [a, b] = [`+15551${stamp}`, `+15552${stamp}`];
      const wsA = (await engine.admin.createWorkspace({ name: `A ${stamp}`, quota: 10 })).workspace_id;
      const wsB = (await engine.admin.createWorkspace({ name: `B ${stamp}`, quota: 10 })).workspace_id;
      await engine.sim(wsA).connect({ phone: a });
      await engine.sim(wsB).connect({ phone: b });
      const contact = `+14153${stamp}`;
      await engine.context.stores.sim.setUnreachable(wsA, contact, true);
      const sim = engine.context.stores.sim;
      const handOver = (messageUid: string, accountPhone: string, networkMessageId = `sim-${messageUid}`) =>
        sim.handOverRun([{ messageUid, networkMessageId, accountPhone, recipientPhone: contact, at: 1 }]).then((answers) => answers[0]);

      expect(await handOver(`u1-${stamp}`, a)).toBe('unreachable');
      expect(await handOver(`u2-${stamp}`, b)).toBe(`sim-u2-${stamp}`);
      // Handed over again (a retry after a crash): the first delivery's id, nothing recorded twice.
      expect(await handOver(`u2-${stamp}`, b, 'another-id')).toBe(`sim-u2-${stamp}`);
      await engine.context.stores.sim.setUnreachable(wsB, contact, true);
      expect(await handOver(`u2-${stamp}`, b, 'another-id')).toBe(`sim-u2-${stamp}`);
      expect(await handOver(`u3-${stamp}`, b)).toBe('unreachable');

      // A run (an unspaced account's messages, one statement on PostgreSQL) answers each in order, as one by one.
      const reachable = `+14154${stamp}`;
      const at = (messageUid: string, accountPhone: string, recipientPhone: string) =>
        ({ messageUid, networkMessageId: `sim-${messageUid}`, accountPhone, recipientPhone, at: 2 });
      expect(await sim.handOverRun([
        at(`u4-${stamp}`, b, reachable),
        { ...at(`u2-${stamp}`, b, reachable), networkMessageId: 'another-id' },
        at(`u5-${stamp}`, b, contact),
        at(`u6-${stamp}`, a, reachable),
      ])).toEqual([`sim-u4-${stamp}`, `sim-u2-${stamp}`, 'unreachable', `sim-u6-${stamp}`]);
      // The new ones were recorded, the unreachable one was not.
      expect(await handOver(`u4-${stamp}`, b, 'another-id')).toBe(`sim-u4-${stamp}`);
      expect(await handOver(`u6-${stamp}`, a, 'another-id')).toBe(`sim-u6-${stamp}`);
      expect(await handOver(`u5-${stamp}`, b)).toBe('unreachable');
    } finally {
      await engine.close();
    }
  });
});
