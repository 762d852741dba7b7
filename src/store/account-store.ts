import { query, type SqlExecutor, type StatementOptions } from './sql.js';
import type { AccountRow } from './rows.js';
import { forgetKnownViews } from './known-event-views.js';

export type { AccountRow };

const BY_PHONE = query<AccountRow>('SELECT * FROM messenger_accounts WHERE phone = @phone');
export const ACCOUNT_BY_ID = query<AccountRow>('SELECT * FROM messenger_accounts WHERE id = @id');
// PostgreSQL would put never-connected accounts first without NULLS LAST, which is SQLite's order for DESC
// already; SQLite keeps the plain form, which its index (workspace_id, status, connected_at) can serve.
const byConnectedAt = (text: string, options?: StatementOptions) =>
  query<AccountRow>({ sqlite: text, postgres: text.replace('connected_at DESC', 'connected_at DESC NULLS LAST') }, options);
const LIST = byConnectedAt('SELECT * FROM messenger_accounts WHERE workspace_id = @workspaceId ORDER BY connected_at DESC, id DESC');
const DEFAULT_SENDER = byConnectedAt(
  `SELECT * FROM messenger_accounts WHERE workspace_id = @workspaceId AND status = 'connected'
   ORDER BY connected_at DESC, id DESC LIMIT 1`,
  // Read by every send without a sender; accounts change rarely (connects, status, a send's slot reserved).
  { cachedUntilWritten: ['messenger_accounts'] },
);
const INSERT = query<{ id: number }>(
  `INSERT INTO messenger_accounts (workspace_id, user_id, phone, full_name, email, status, connected_at, created_at)
   VALUES (@workspaceId, @userId, @phone, @fullName, @email, 'connected', @now, @now)
   RETURNING id`,
);
const RECONNECT = query(
  `UPDATE messenger_accounts SET status = 'connected', connected_at = @now, user_id = COALESCE(CAST(@userId AS BIGINT), user_id),
     full_name = @fullName, email = @email WHERE id = @id`,
);
const SET_STATUS = query('UPDATE messenger_accounts SET status = @status WHERE id = @id');
const BY_USER = query<AccountRow>('SELECT * FROM messenger_accounts WHERE user_id = @userId ORDER BY id DESC LIMIT 1');

/** Messenger accounts; the default sender is the most recently connected one. */
export function createAccountStore(sql: SqlExecutor) {
  return {
    byPhone: (phone: string): Promise<AccountRow | undefined> => sql.get(BY_PHONE, { phone }),
    byId: (id: number): Promise<AccountRow | undefined> => sql.get(ACCOUNT_BY_ID, { id }),
    byUser: (userId: number): Promise<AccountRow | undefined> => sql.get(BY_USER, { userId }),
    list: (workspaceId: number): Promise<AccountRow[]> => sql.all(LIST, { workspaceId }),
    defaultSender: (workspaceId: number): Promise<AccountRow | undefined> => sql.get(DEFAULT_SENDER, { workspaceId }),
    insert: async (a: { workspaceId: number; userId: number | null; phone: string; fullName: string; email: string; now: number }): Promise<number> =>
      (await sql.get(INSERT, { ...a }))!.id,
    reconnect: async (a: { id: number; userId: number | null; fullName: string; email: string; now: number }): Promise<void> =>
      (forgetKnownViews(sql), void (await sql.run(RECONNECT, { ...a }))),
    setStatus: async (id: number, status: AccountRow['status']): Promise<void> => (forgetKnownViews(sql), void (await sql.run(SET_STATUS, { id, status }))),
  };
}
