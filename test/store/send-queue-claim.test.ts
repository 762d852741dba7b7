/**
 * A send claim's read of the due queue heads (`claimDueHeads`, src/store/send-queue-store.ts), on both stores:
 * it says whether it may have left due messages behind, so the dispatcher claims again only then, instead of
 * running a claim transaction after every batch to find nothing.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { createSendQueueStore } from '../../src/store/send-queue-store.js';
import { postgresForThisFile, sqliteAndPostgres } from '../support/store-engine.js';
import { fixedRandom } from '../support/test-engine.js';

const pgUrl = postgresForThisFile('claimheads');

describe.each(sqliteAndPostgres(() => pgUrl()))('claiming due queue heads on %s', (_, open) => {
  it('tells whether it may have left due messages behind: the limit reached, or an unspaced run cut at its length', async () => {
    const clock = new FakeClock();
    const engine = createEngine({ database: open(), clock, random: fixedRandom(), deliverWebhooks: false });
    try {
      // Three spaced accounts (one workspace each), each with one message due.
      for (let n = 0; n < 3; n += 1) {
        const ws = (await engine.admin.createWorkspace({ name: `Heads ${n}`, quota: 100 })).workspace_id;
        await engine.sim(ws).connect({ phone: `+1555000710${n}` });
        await engine.workspace(ws).sendToPhone({ phone: '+14155559301', text: `spaced ${n}` });
      }
      const claim = (limit: number) => engine.context.database.write(async (tx) => {
        const { heads, more } = await createSendQueueStore(tx).claimDueHeads(clock.now(), limit);
        return { heads: heads.length, more };
      });
      expect(await claim(2)).toEqual({ heads: 2, more: true });
      expect(await claim(4)).toEqual({ heads: 3, more: false });

      // An unspaced account: a run is at most 8 of its messages. With 7 queued the claim takes them all; with 9,
      // 8 of them and it says so.
      const unspaced = (await engine.admin.createWorkspace({ name: 'Heads unspaced', quota: 100 })).workspace_id;
      await engine.admin.updateWorkspace(unspaced, { plan: 'business', send_interval_ms: 0 });
      await engine.sim(unspaced).connect({ phone: '+15550007109' });
      const send = (i: number) => engine.workspace(unspaced).sendToPhone({ phone: '+14155559302', text: `unspaced ${i}` });
      for (let i = 0; i < 7; i += 1) await send(i);
      expect(await claim(64)).toEqual({ heads: 3 + 7, more: false });
      for (let i = 7; i < 9; i += 1) await send(i);
      expect(await claim(64)).toEqual({ heads: 3 + 8, more: true });
    } finally {
      await engine.close();
    }
  });
});
