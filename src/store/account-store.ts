import type { Db } from './database.js';

export interface AccountRow {
  id: number;
  workspace_id: number;
  user_id: number | null;
  phone: string;
  full_name: string;
  email: string;
  status: 'connected' | 'disconnected' | 'suspended';
  connected_at: number | null;
  next_send_at: number;
  created_at: number;
}

/** Messenger accounts; the default sender is the most recently connected one. */
export function createAccountStore(db: Db) {
  const byPhone = db.prepare<[string], AccountRow>('SELECT * FROM messenger_accounts WHERE phone = ?');
  const byId = db.prepare<[number], AccountRow>('SELECT * FROM messenger_accounts WHERE id = ?');
  const list = db.prepare<[number], AccountRow>(
    'SELECT * FROM messenger_accounts WHERE workspace_id = ? ORDER BY connected_at DESC, id DESC',
  );
  const defaultSender = db.prepare<[number], AccountRow>(
    `SELECT * FROM messenger_accounts WHERE workspace_id = ? AND status = 'connected'
     ORDER BY connected_at DESC, id DESC LIMIT 1`,
  );
  const insert = db.prepare(
    `INSERT INTO messenger_accounts (workspace_id, user_id, phone, full_name, email, status, connected_at, created_at)
     VALUES (@workspaceId, @userId, @phone, @fullName, @email, 'connected', @now, @now)`,
  );
  const reconnect = db.prepare(
    `UPDATE messenger_accounts SET status = 'connected', connected_at = @now, user_id = COALESCE(@userId, user_id),
       full_name = @fullName, email = @email WHERE id = @id`,
  );
  const setStatus = db.prepare('UPDATE messenger_accounts SET status = ? WHERE id = ?');
  const reserveSlot = db.prepare('UPDATE messenger_accounts SET next_send_at = ? WHERE id = ?');
  const byUser = db.prepare<[number], AccountRow>(
    'SELECT * FROM messenger_accounts WHERE user_id = ? ORDER BY id DESC LIMIT 1',
  );

  return {
    byPhone: (phone: string) => byPhone.get(phone),
    byId: (id: number) => byId.get(id),
    byUser: (userId: number) => byUser.get(userId),
    list: (workspaceId: number) => list.all(workspaceId),
    defaultSender: (workspaceId: number) => defaultSender.get(workspaceId),
    insert: (a: { workspaceId: number; userId: number | null; phone: string; fullName: string; email: string; now: number }) =>
      Number(insert.run(a).lastInsertRowid),
    reconnect: (a: { id: number; userId: number | null; fullName: string; email: string; now: number }) =>
      void reconnect.run(a),
    setStatus: (id: number, status: AccountRow['status']) => void setStatus.run(status, id),
    reserveSlot: (id: number, nextSendAt: number) => void reserveSlot.run(nextSendAt, id),
  };
}

export type AccountStore = ReturnType<typeof createAccountStore>;
