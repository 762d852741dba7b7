import { query, type SqlExecutor } from './sql.js';
import type { WorkspaceRow } from './workspace-store.js';

export interface PartnerRow {
  id: number;
  public_id: string;
  name: string;
  secret: string;
  /** Where failure notices of the partner's webhooks go (migration 005). */
  email: string | null;
  created_at: number;
  disabled_at: number | null;
}

/** A user with the latest messenger account linked to it, if any. */
export interface PartnerUserRow {
  id: number;
  workspace_id: number;
  name: string;
  created_at: number;
  account_id: number | null;
  phone: string | null;
  status: 'connected' | 'disconnected' | 'suspended' | null;
  connected_at: number | null;
}

const INSERT_PARTNER = query<{ id: number }>(
  `INSERT INTO partners (public_id, name, secret, email, created_at) VALUES (@publicId, @name, @secret, @email, @now)
   RETURNING id`,
);
const BY_PUBLIC_ID = query<PartnerRow>('SELECT * FROM partners WHERE public_id = @publicId AND disabled_at IS NULL');
const WORKSPACE_OF = query<WorkspaceRow>('SELECT * FROM workspaces WHERE id = @workspaceId AND partner_id = @partnerId');
const PARTNER_OF_WORKSPACE = query<{ partner_id: number | null }>('SELECT partner_id FROM workspaces WHERE id = @workspaceId');
const RENAME = query('UPDATE workspaces SET name = @name, seats_purchased = @seats WHERE id = @workspaceId');
const INSERT_USER = query<{ id: number }>(
  'INSERT INTO users (workspace_id, name, email, created_at) VALUES (@workspaceId, @name, @email, @now) RETURNING id',
);
// The latest account of each user: a user has at most one connected at a time (docs/api-behaviour.md).
const USER_COLUMNS = `u.id, u.workspace_id, u.name, u.created_at, a.id AS account_id, a.phone, a.status, a.connected_at
   FROM users u LEFT JOIN messenger_accounts a
     ON a.id = (SELECT id FROM messenger_accounts WHERE user_id = u.id ORDER BY id DESC LIMIT 1)`;
const USERS_OF = query<PartnerUserRow>(`SELECT ${USER_COLUMNS} WHERE u.workspace_id = @workspaceId ORDER BY u.id`);
const USER_OF = query<PartnerUserRow>(`SELECT ${USER_COLUMNS} WHERE u.id = @userId AND u.workspace_id = @workspaceId`);
const ACTIVE_TOKEN = query<{ token: string; created_at: number }>(
  'SELECT token, created_at FROM api_tokens WHERE workspace_id = @workspaceId AND revoked_at IS NULL ORDER BY id DESC LIMIT 1',
);
const INSERT_ALERT = query(
  `INSERT INTO partner_alerts (workspace_id, event, period_key, created_at) VALUES (@workspaceId, @event, @periodKey, @now)
   ON CONFLICT DO NOTHING`,
);

/** Partners, their workspaces' users, tokens and threshold alerts. */
export function createPartnerStore(sql: SqlExecutor) {
  return {
    insertPartner: async (p: { publicId: string; name: string; secret: string; email: string | null; now: number }): Promise<number> =>
      (await sql.get(INSERT_PARTNER, { ...p }))!.id,
    byPublicId: (publicId: string): Promise<PartnerRow | undefined> => sql.get(BY_PUBLIC_ID, { publicId }),
    /** The workspace only when it belongs to the partner, so another partner's id reads as missing. */
    workspaceOf: (workspaceId: number, partnerId: number): Promise<WorkspaceRow | undefined> =>
      sql.get(WORKSPACE_OF, { workspaceId, partnerId }),
    partnerOfWorkspace: async (workspaceId: number): Promise<number | null> =>
      (await sql.get(PARTNER_OF_WORKSPACE, { workspaceId }))?.partner_id ?? null,
    updateWorkspace: async (workspaceId: number, name: string, seats: number): Promise<void> =>
      void (await sql.run(RENAME, { workspaceId, name, seats })),
    insertUser: async (u: { workspaceId: number; name: string; email: string; now: number }): Promise<number> =>
      (await sql.get(INSERT_USER, { ...u }))!.id,
    usersOf: (workspaceId: number): Promise<PartnerUserRow[]> => sql.all(USERS_OF, { workspaceId }),
    userOf: (userId: number, workspaceId: number): Promise<PartnerUserRow | undefined> => sql.get(USER_OF, { userId, workspaceId }),
    activeToken: (workspaceId: number) => sql.get(ACTIVE_TOKEN, { workspaceId }),
    /** True when this crossing was not recorded before (the caller emits the alert then). */
    recordAlert: async (workspaceId: number, event: string, periodKey: number, now: number): Promise<boolean> =>
      (await sql.run(INSERT_ALERT, { workspaceId, event, periodKey, now })) === 1,
  };
}
