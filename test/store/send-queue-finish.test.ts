/**
 * A send completion's one statement (`finishJobsOf`, src/store/send-queue-store.ts), on both stores: the jobs go,
 * the messages the network took are marked Sent unless already final, and the messages come back as they were
 * before, so the completion leaves a message another process finished alone.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { createSendQueueStore } from '../../src/store/send-queue-store.js';
import { query } from '../../src/store/sql.js';
import { postgresForThisFile, sqliteAndPostgres } from '../support/store-engine.js';
import { fixedRandom } from '../support/test-engine.js';

const pgUrl = postgresForThisFile('finishjobs');

const STATE = query<{ status: string; network_message_id: string | null; sent_at: number | null; jobs: number }>(
  `SELECT m.status, m.network_message_id, m.sent_at, (SELECT COUNT(*) FROM jobs j WHERE j.kind = 'send' AND j.ref_id = m.id) AS jobs
   FROM messages m WHERE m.id = @id`,
);
const FAIL = query("UPDATE messages SET status = 'Failed', failure_reason = 'network_error' WHERE id = @id");

describe.each(sqliteAndPostgres(() => pgUrl()))('finishing send jobs on %s', (_, open) => {
  it('removes the jobs, marks Sent what is not final yet, and answers the messages as they were', async () => {
    const engine = createEngine({ database: open(), clock: new FakeClock(), random: fixedRandom(), deliverWebhooks: false });
    try {
      const ws = (await engine.admin.createWorkspace({ name: `Finish ${Date.now()}`, quota: 10 })).workspace_id;
      const accountPhone = `+1555${String(Date.now()).slice(-7)}`;
      await engine.sim(ws).connect({ phone: accountPhone });
      const api = engine.workspace(ws);
      const uids = [];
      for (const text of ['pending', 'failed meanwhile', 'not taken', 'taken too']) uids.push((await api.sendToPhone({ phone: '+14155559201', text })).message_uid);
      const ids = await Promise.all(uids.map(async (uid) => (await engine.context.stores.messages.byUid(uid))!.id)) as [number, number, number, number];
      await engine.context.sql.run(FAIL, { id: ids[1] });

      // The network's ids in another order than the messages': each must land on its own message.
      const sent = [{ id: ids[3], networkMessageId: 'net-3' }, { id: ids[1], networkMessageId: 'net-1' }, { id: ids[0], networkMessageId: 'net-0' }];
      const finished = await engine.context.database.write((tx) => createSendQueueStore(tx).finishJobsOf(ids, sent, 4242));
      expect(ids.map((id) => finished.messages.get(id)?.status)).toEqual(['Pending', 'Failed', 'Pending', 'Pending']);
      expect(finished.messages.get(ids[0])).toMatchObject({ account_phone: accountPhone, contact_phone: '+14155559201', file_uid: null, reply_to_uid: null });
      const state = await Promise.all(ids.map(async (id) => engine.context.sql.get(STATE, { id })));
      expect(state).toEqual([
        { status: 'Sent', network_message_id: 'net-0', sent_at: 4242, jobs: 0 },
        { status: 'Failed', network_message_id: null, sent_at: null, jobs: 0 },
        { status: 'Pending', network_message_id: null, sent_at: null, jobs: 0 },
        { status: 'Sent', network_message_id: 'net-3', sent_at: 4242, jobs: 0 },
      ]);
    } finally {
      await engine.close();
    }
  });
});
