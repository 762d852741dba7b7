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
// The three above in one round trip (PostgreSQL: the dispatcher hands an unspaced account's messages over one
// after the other, and each statement is a round trip). A copy recorded meanwhile by another process leaves
// `recorded` empty; both carry the same id.
const HAND_OVER = postgresOnly<{ earlier: string | null; unreachable: boolean }>(
  `WITH earlier AS (SELECT network_message_id FROM sim_deliveries WHERE message_uid = @uid),
     blocked AS (${IS_UNREACHABLE.text.postgres} AND n.unreachable = 1),
     recorded AS (INSERT INTO sim_deliveries (message_uid, network_message_id, delivered_at)
       SELECT @uid, @networkId, @now WHERE NOT EXISTS (SELECT 1 FROM earlier) AND NOT EXISTS (SELECT 1 FROM blocked)
       ON CONFLICT DO NOTHING)
   SELECT (SELECT network_message_id FROM earlier) AS earlier, EXISTS (SELECT 1 FROM blocked) AS unreachable`,
);

/** State of the simulated network that every process must see: unreachable numbers, delivered messages. */
export function createSimStore(sql: SqlExecutor) {
  return {
    setUnreachable: async (workspaceId: number, phone: string, unreachable: boolean): Promise<void> =>
      void (await sql.run(SET_UNREACHABLE, { key: `${workspaceId}:${phone}`, unreachable: unreachable ? 1 : 0 })),
    /** Whether `phone` is unreachable for sends from `accountPhone` (as set in that account's workspace). */
    isUnreachable: async (accountPhone: string, phone: string): Promise<boolean> =>
      (await sql.get(IS_UNREACHABLE, { phone, accountPhone }))?.unreachable === 1,
    /** The sim driver's `SimState.handOver` (src/network/sim-driver.ts). */
    async handOver(d: { messageUid: string; networkMessageId: string; accountPhone: string; recipientPhone: string; at: number }): Promise<string | 'unreachable'> {
      const params = { uid: d.messageUid, networkId: d.networkMessageId, phone: d.recipientPhone, accountPhone: d.accountPhone, now: d.at };
      if (sql.dialect === 'postgres') {
        const row = (await sql.get(HAND_OVER, params))!;
        return row.earlier ?? (row.unreachable ? 'unreachable' : d.networkMessageId);
      }
      const earlier = (await sql.get(DELIVERED, params))?.network_message_id;
      if (earlier !== undefined) return earlier;
      if ((await sql.get(IS_UNREACHABLE, params))?.unreachable === 1) return 'unreachable';
      await sql.run(RECORD_DELIVERY, params);
      return d.networkMessageId;
    },
  };
}
