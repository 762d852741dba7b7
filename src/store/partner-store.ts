import type { Db } from './database.js';
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

/** Partners, their workspaces' users, tokens and threshold alerts: statements prepared once. */
export function createPartnerStore(db: Db) {
  const insertPartner = db.prepare(
    'INSERT INTO partners (public_id, name, secret, email, created_at) VALUES (@publicId, @name, @secret, @email, @now)',
  );
  const byPublicId = db.prepare<[string], PartnerRow>('SELECT * FROM partners WHERE public_id = ? AND disabled_at IS NULL');
  const workspaceOf = db.prepare<[number, number], WorkspaceRow>('SELECT * FROM workspaces WHERE id = ? AND partner_id = ?');
  const partnerOfWorkspace = db.prepare<[number], { partner_id: number | null }>('SELECT partner_id FROM workspaces WHERE id = ?');
  const rename = db.prepare('UPDATE workspaces SET name = ?, seats_purchased = ? WHERE id = ?');
  const insertUser = db.prepare(
    'INSERT INTO users (workspace_id, name, email, created_at) VALUES (@workspaceId, @name, @email, @now)',
  );
  // The latest account of each user: a user has at most one connected at a time (SPEC.md 2.6).
  const userColumns = `u.id, u.workspace_id, u.name, u.created_at, a.id AS account_id, a.phone, a.status, a.connected_at
     FROM users u LEFT JOIN messenger_accounts a
       ON a.id = (SELECT id FROM messenger_accounts WHERE user_id = u.id ORDER BY id DESC LIMIT 1)`;
  const usersOf = db.prepare<[number], PartnerUserRow>(`SELECT ${userColumns} WHERE u.workspace_id = ? ORDER BY u.id`);
  const userOf = db.prepare<[number, number], PartnerUserRow>(`SELECT ${userColumns} WHERE u.id = ? AND u.workspace_id = ?`);
  const activeToken = db.prepare<[number], { token: string; created_at: number }>(
    'SELECT token, created_at FROM api_tokens WHERE workspace_id = ? AND revoked_at IS NULL ORDER BY id DESC LIMIT 1',
  );
  const insertAlert = db.prepare(
    'INSERT OR IGNORE INTO partner_alerts (workspace_id, event, period_key, created_at) VALUES (?, ?, ?, ?)',
  );

  return {
    insertPartner: (p: { publicId: string; name: string; secret: string; email: string | null; now: number }): number =>
      Number(insertPartner.run(p).lastInsertRowid),
    byPublicId: (publicId: string): PartnerRow | undefined => byPublicId.get(publicId),
    /** The workspace only when it belongs to the partner, so another partner's id reads as missing. */
    workspaceOf: (workspaceId: number, partnerId: number): WorkspaceRow | undefined => workspaceOf.get(workspaceId, partnerId),
    partnerOfWorkspace: (workspaceId: number): number | null => partnerOfWorkspace.get(workspaceId)?.partner_id ?? null,
    updateWorkspace: (workspaceId: number, name: string, seats: number): void => void rename.run(name, seats, workspaceId),
    insertUser: (u: { workspaceId: number; name: string; email: string; now: number }): number =>
      Number(insertUser.run(u).lastInsertRowid),
    usersOf: (workspaceId: number): PartnerUserRow[] => usersOf.all(workspaceId),
    userOf: (userId: number, workspaceId: number): PartnerUserRow | undefined => userOf.get(userId, workspaceId),
    activeToken: (workspaceId: number) => activeToken.get(workspaceId),
    /** True when this crossing was not recorded before (the caller emits the alert then). */
    recordAlert: (workspaceId: number, event: string, periodKey: number, now: number): boolean =>
      insertAlert.run(workspaceId, event, periodKey, now).changes === 1,
  };
}

export type PartnerStore = ReturnType<typeof createPartnerStore>;
