import { postgresOnly, query, type SqlExecutor } from './sql.js';

const SET_UNREACHABLE = query(
  `INSERT INTO sim_numbers (phone, unreachable) VALUES (@key, @unreachable)
   ON CONFLICT (phone) DO UPDATE SET unreachable = excluded.unreachable`,
);
// Numbers are marked unreachable per workspace (the /sim controls are scoped to the caller's workspace), so
// one tenant cannot make another tenant's sends fail: the key is "<workspace id>:<phone>", and a delivery
// is judged by the workspace of the account that sends it.
const IS_UNREACHABLE = query<{ unreachable: number }>(
  `SELECT n.unreachable FROM messenger_accounts a
   JOIN sim_numbers n ON n.phone = CAST(a.workspace_id AS TEXT) || ':' || CAST(@phone AS TEXT)
   WHERE a.phone = @accountPhone`,
);
const DELIVERED = query<{ network_message_id: string }>('SELECT network_message_id FROM sim_deliveries WHERE message_uid = @uid');
const RECORD_DELIVERY = query(
  `INSERT INTO sim_deliveries (message_uid, network_message_id, delivered_at) VALUES (@uid, @networkId, @now)
   ON CONFLICT DO NOTHING`,
);
// The three above for a run of hand-overs (an unspaced account's claimed messages, in queue order) in one
// statement, one round trip on PostgreSQL however long the run: migration 20's function (its query is there), so
// the statement is planned once per connection, not at every call.
const HAND_OVER_RUN = postgresOnly<{ earlier: string | null; unreachable: boolean }>(
  `SELECT earlier_id AS earlier, is_unreachable AS unreachable
   FROM svc_sim_hand_over(@uids::text[], @networkIds::text[], @phones::text[], @accountPhones::text[], @ats::bigint[])
   ORDER BY run_index`,
);

/** One message handed to the simulated network: src/network's `SimHandOver` (a store may not import it). */
export type SimHandOver = { messageUid: string; networkMessageId: string; accountPhone: string; recipientPhone: string; at: number };

/**
 * The sim driver's `SimState.handOverRun` (src/network/sim-driver.ts): for each hand-over, in order, the network
 * id of an earlier delivery of the message, 'unreachable', or its own id, now recorded.
 */
async function handOverRun(sql: SqlExecutor, run: readonly SimHandOver[]): Promise<Array<string | 'unreachable'>> {
  if (run.length === 0) return [];
  if (sql.dialect === 'postgres') {
    const params = {
      uids: run.map((d) => d.messageUid), networkIds: run.map((d) => d.networkMessageId), phones: run.map((d) => d.recipientPhone),
      accountPhones: run.map((d) => d.accountPhone), ats: run.map((d) => d.at),
    };
    const rows = await sql.all(HAND_OVER_RUN, params);
    return run.map((d, i) => rows[i]!.earlier ?? (rows[i]!.unreachable ? 'unreachable' : d.networkMessageId));
  }
  const answers: Array<string | 'unreachable'> = [];
  for (const d of run) {
    const params = { uid: d.messageUid, networkId: d.networkMessageId, phone: d.recipientPhone, accountPhone: d.accountPhone, now: d.at };
    const earlier = (await sql.get(DELIVERED, params))?.network_message_id;
    if (earlier !== undefined) answers.push(earlier);
    else if ((await sql.get(IS_UNREACHABLE, params))?.unreachable === 1) answers.push('unreachable');
    else {
      await sql.run(RECORD_DELIVERY, params);
      answers.push(d.networkMessageId);
    }
  }
  return answers;
}

/** State of the simulated network that every process must see: unreachable numbers, delivered messages. */
export function createSimStore(sql: SqlExecutor) {
  return {
    setUnreachable: async (workspaceId: number, phone: string, unreachable: boolean): Promise<void> =>
      void (await sql.run(SET_UNREACHABLE, { key: `${workspaceId}:${phone}`, unreachable: unreachable ? 1 : 0 })),
    /** Whether `phone` is unreachable for sends from `accountPhone` (as set in that account's workspace). */
    isUnreachable: async (accountPhone: string, phone: string): Promise<boolean> =>
      (await sql.get(IS_UNREACHABLE, { phone, accountPhone }))?.unreachable === 1,
    handOverRun: (run: readonly SimHandOver[]) => handOverRun(sql, run),
  };
}
