import type { Db } from './database.js';

/** State of the simulated network that every process must see: unreachable numbers, delivered messages. */
export function createSimStore(db: Db) {
  const setUnreachable = db.prepare(
    `INSERT INTO sim_numbers (phone, unreachable) VALUES (?, ?)
     ON CONFLICT (phone) DO UPDATE SET unreachable = excluded.unreachable`,
  );
  // Numbers are marked unreachable per workspace (the /sim controls are scoped to the caller's workspace), so
  // one tenant cannot make another tenant's sends fail: the key is "<workspace id>:<phone>", and a delivery
  // is judged by the workspace of the account that sends it.
  const isUnreachable = db.prepare<[string, string], { unreachable: number }>(
    `SELECT n.unreachable FROM messenger_accounts a JOIN sim_numbers n ON n.phone = a.workspace_id || ':' || ?
     WHERE a.phone = ?`,
  );
  const delivered = db.prepare<[string], { network_message_id: string }>(
    'SELECT network_message_id FROM sim_deliveries WHERE message_uid = ?',
  );
  const recordDelivery = db.prepare(
    'INSERT OR IGNORE INTO sim_deliveries (message_uid, network_message_id, delivered_at) VALUES (?, ?, ?)',
  );
  return {
    setUnreachable: (workspaceId: number, phone: string, unreachable: boolean) =>
      void setUnreachable.run(`${workspaceId}:${phone}`, unreachable ? 1 : 0),
    /** Whether `phone` is unreachable for sends from `accountPhone` (as set in that account's workspace). */
    isUnreachable: (accountPhone: string, phone: string) => isUnreachable.get(phone, accountPhone)?.unreachable === 1,
    deliveredId: (uid: string) => delivered.get(uid)?.network_message_id,
    recordDelivery: (uid: string, networkId: string, now: number) => void recordDelivery.run(uid, networkId, now),
  };
}

export type SimStore = ReturnType<typeof createSimStore>;
