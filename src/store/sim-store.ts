import type { Db } from './database.js';

/** State of the simulated network that every process must see: unreachable numbers, delivered messages. */
export function createSimStore(db: Db) {
  const setUnreachable = db.prepare(
    `INSERT INTO sim_numbers (phone, unreachable) VALUES (?, ?)
     ON CONFLICT (phone) DO UPDATE SET unreachable = excluded.unreachable`,
  );
  const isUnreachable = db.prepare<[string], { unreachable: number }>(
    'SELECT unreachable FROM sim_numbers WHERE phone = ?',
  );
  const delivered = db.prepare<[string], { network_message_id: string }>(
    'SELECT network_message_id FROM sim_deliveries WHERE message_uid = ?',
  );
  const recordDelivery = db.prepare(
    'INSERT OR IGNORE INTO sim_deliveries (message_uid, network_message_id, delivered_at) VALUES (?, ?, ?)',
  );
  return {
    setUnreachable: (phone: string, unreachable: boolean) => void setUnreachable.run(phone, unreachable ? 1 : 0),
    isUnreachable: (phone: string) => isUnreachable.get(phone)?.unreachable === 1,
    deliveredId: (uid: string) => delivered.get(uid)?.network_message_id,
    recordDelivery: (uid: string, networkId: string, now: number) => void recordDelivery.run(uid, networkId, now),
  };
}

export type SimStore = ReturnType<typeof createSimStore>;
