/**
 * The claiming flush of accepted sends (PostgreSQL, `flushAcceptedSends` with `ClaimAhead`, src/store/message-store.ts).
 * The engine asks for it only where its own read says a claim may succeed (`claimAheadOwner`), but that read may
 * be stale: the statement decides on the rows as they are. It claims the first message (of an unspaced
 * workspace, the first `run`) of each account whose queue held no send, that is connected and whose slot is open,
 * and nothing else; what it claims is leased, Sending, its slot reserved, and told to `onClaimed` as the
 * dispatcher's claim reads it.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/runtime/create-engine.js';
import { createMessageStore } from '../../src/store/message-store.js';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import type { ClaimedSend } from '../../src/store/rows.js';
import { query } from '../../src/store/sql.js';
import { FakeClock } from '../../src/wire/clock.js';
import { postgresForThisFile } from '../support/store-engine.js';
import { fixedRandom } from '../support/test-engine.js';

const pgUrl = postgresForThisFile('flushclaim');

const STATE = query<{ status: string; lease_owner: string | null; lease_until: string | null; attempts: number; next_send_at: string }>(
  `SELECT m.status, j.lease_owner, j.lease_until, j.attempts, a.next_send_at
   FROM messages m JOIN jobs j ON j.kind = 'send' AND j.ref_id = m.id JOIN messenger_accounts a ON a.id = m.messenger_account_id
   WHERE m.uid = @uid`,
);
const CLOSE_SLOT = query('UPDATE messenger_accounts SET next_send_at = @at WHERE id = @id');

describe('claiming accepted sends as they are written, on PostgreSQL', () => {
  it('claims an idle account\'s first message or unspaced run, and leaves the rest to the dispatcher\'s claim', async () => {
    const clock = new FakeClock();
    const engine = createEngine({ database: new PgDatabase({ url: pgUrl(), poolSize: 2 }), clock, random: fixedRandom(), deliverWebhooks: false });
    try {
      const accounts = new Map<string, { workspaceId: number; accountId: number; chatId: number }>();
      for (const [n, name] of ['unspaced', 'spaced', 'slot closed', 'suspended', 'queued'].entries()) {
        const ws = (await engine.admin.createWorkspace({ name, quota: 100 })).workspace_id;
        const phone = `+155500074${n}0`;
        await engine.sim(ws).connect({ phone });
        if (name !== 'spaced') await engine.admin.updateWorkspace(ws, { plan: 'business', send_interval_ms: 0 });
        // A first send makes the chat; the dispatcher then sends it, which empties the account's queue.
        const seed = await engine.workspace(ws).sendToPhone({ phone: '+14155559401', text: 'seed' });
        const message = (await engine.context.stores.messages.byUid(seed.message_uid))!;
        accounts.set(name, { workspaceId: ws, accountId: message.messenger_account_id, chatId: message.chat_id });
      }
      clock.advance(10_000);
      await engine.workers.runDue();
      clock.advance(10_000);
      const now = clock.now();
      await engine.context.sql.run(CLOSE_SLOT, { id: accounts.get('slot closed')!.accountId, at: now + 500 });
      await engine.sim(accounts.get('suspended')!.workspaceId).suspend('+15550007430');
      await engine.workspace(accounts.get('queued')!.workspaceId).sendToPhone({ phone: '+14155559401', text: 'already queued' });

      const claims: ClaimedSend[] = [];
      const sends = [
        ['unspaced', 8], ['unspaced', 8], ['spaced', 1], ['unspaced', 8], ['spaced', 1], ['slot closed', 8], ['suspended', 8], ['queued', 8],
      ] as const;
      const uids = sends.map((_, i) => `0190f000-0000-7000-8000-00000000000${i}`);
      await engine.context.database.write(async (tx) => {
        const messages = createMessageStore(tx);
        sends.forEach(([name, run], i) => {
          const { workspaceId, accountId, chatId } = accounts.get(name)!;
          messages.acceptSend({
            uid: uids[i]!, workspaceId, chatId, accountId, text: `${name} ${i}`, fileId: null, templateId: null, replyToId: null, credits: 1, now,
            claimAhead: { owner: 'flush-test', leaseUntil: now + 30_000, spacingMs: run === 8 ? 0 : 2_000, run, onClaimed: (claim) => void claims.push(claim) },
          });
        });
      });

      const states = await Promise.all(uids.map((uid) => engine.context.sql.get(STATE, { uid })));
      const claimed = states.map((state) => state!.status === 'Sending');
      // The unspaced account's three, the spaced account's first; nothing of the others.
      expect(claimed).toEqual([true, true, true, true, false, false, false, false]);
      for (const state of states.filter((s) => s!.status === 'Sending')) {
        expect(state).toMatchObject({ lease_owner: 'flush-test', attempts: 1 });
        expect(Number(state!.lease_until)).toBe(now + 30_000);
      }
      for (const state of states.filter((s) => s!.status === 'Pending')) expect(state).toMatchObject({ lease_owner: null, attempts: 0 });
      // Slots: the unspaced one open at once, the spaced one in 2 s, the closed one left as it was.
      expect(states.map((s) => Number(s!.next_send_at))).toEqual([now, now, now + 2_000, now, now + 2_000, now + 500, expect.any(Number), expect.any(Number)]);

      expect(claims.map((c) => c.message.uid).sort()).toEqual([uids[0], uids[1], uids[2], uids[3]].sort());
      const first = claims.find((c) => c.message.uid === uids[0])!;
      expect(first.message).toMatchObject({ status: 'Sending', text: 'unspaced 0', contact_phone: '+14155559401', account_phone: '+15550007400', reply_to_uid: null, file_uid: null });
      expect(first.account).toMatchObject({ id: accounts.get('unspaced')!.accountId, status: 'connected' });
      expect(first.jobId).toEqual(expect.any(Number));
    } finally {
      await engine.close();
    }
  });
});
