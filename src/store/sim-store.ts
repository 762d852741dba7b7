import { query, type SqlExecutor } from './sql.js';

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

/** State of the simulated network that every process must see: unreachable numbers, delivered messages. */
export function createSimStore(sql: SqlExecutor) {
  return {
    setUnreachable: async (workspaceId: number, phone: string, unreachable: boolean): Promise<void> =>
      void (await sql.run(SET_UNREACHABLE, { key: `${workspaceId}:${phone}`, unreachable: unreachable ? 1 : 0 })),
    /** Whether `phone` is unreachable for sends from `accountPhone` (as set in that account's workspace). */
    isUnreachable: async (accountPhone: string, phone: string): Promise<boolean> =>
      (await sql.get(IS_UNREACHABLE, { phone, accountPhone }))?.unreachable === 1,
    deliveredId: async (uid: string): Promise<string | undefined> => (await sql.get(DELIVERED, { uid }))?.network_message_id,
    recordDelivery: async (uid: string, networkId: string, now: number): Promise<void> =>
      void (await sql.run(RECORD_DELIVERY, { uid, networkId, now })),
  };
}
