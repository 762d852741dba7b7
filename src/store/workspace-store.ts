import type { Db } from './database.js';

export interface WorkspaceRow {
  id: number;
  name: string;
  plan: 'standard' | 'business';
  is_local: number;
  partner_id: number | null;
  owner_email: string | null;
  seats_purchased: number;
  send_interval_ms: number | null;
  quota_total: number;
  quota_used: number;
  quota_period_start: number;
  /** NULL: the server's default storage quota. */
  storage_limit_bytes: number | null;
  storage_used_bytes: number;
  created_at: number;
}

export interface NewWorkspace {
  name: string;
  plan: 'standard' | 'business';
  isLocal: boolean;
  partnerId: number | null;
  ownerEmail: string | null;
  seatsPurchased: number;
  quotaTotal: number;
  now: number;
}

/** Workspaces, their API tokens, settings and the credit ledger: statements prepared once. */
export function createWorkspaceStore(db: Db) {
  const insert = db.prepare(
    `INSERT INTO workspaces (name, plan, is_local, partner_id, owner_email, seats_purchased, quota_total,
       quota_period_start, created_at)
     VALUES (@name, @plan, @isLocal, @partnerId, @ownerEmail, @seatsPurchased, @quotaTotal, @now, @now)`,
  );
  const byId = db.prepare<[number], WorkspaceRow>('SELECT * FROM workspaces WHERE id = ?');
  const count = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM workspaces');
  const local = db.prepare<[], WorkspaceRow>('SELECT * FROM workspaces WHERE is_local = 1 ORDER BY id LIMIT 1');
  const update = db.prepare(
    `UPDATE workspaces SET name = @name, plan = @plan, seats_purchased = @seats_purchased,
       send_interval_ms = @send_interval_ms, quota_total = @quota_total, owner_email = @owner_email,
       storage_limit_bytes = @storage_limit_bytes WHERE id = @id`,
  );
  const addStorage = db.prepare('UPDATE workspaces SET storage_used_bytes = MAX(0, storage_used_bytes + ?) WHERE id = ?');
  const setUsed = db.prepare('UPDATE workspaces SET quota_used = ?, quota_period_start = ? WHERE id = ?');
  const addUsed = db.prepare('UPDATE workspaces SET quota_used = quota_used + ? WHERE id = ?');
  const ledger = db.prepare(
    `INSERT INTO credit_ledger (workspace_id, message_id, delta, reason, created_at)
     VALUES (?, ?, ?, ?, ?)`,
  );
  const hasRestore = db.prepare<[number], { one: number }>(
    `SELECT 1 AS one FROM credit_ledger WHERE message_id = ? AND reason = 'restore'`,
  );
  const debitedAt = db.prepare<[number], { created_at: number }>(
    `SELECT created_at FROM credit_ledger WHERE message_id = ? AND reason = 'debit'`,
  );
  const insertToken = db.prepare(
    'INSERT INTO api_tokens (workspace_id, token_hash, token, created_at) VALUES (?, ?, ?, ?)',
  );
  const tokenByHash = db.prepare<[Buffer], { workspace_id: number; token_hash: Buffer }>(
    'SELECT workspace_id, token_hash FROM api_tokens WHERE token_hash = ? AND revoked_at IS NULL',
  );
  const activeToken = db.prepare<[number], { token: string }>(
    'SELECT token FROM api_tokens WHERE workspace_id = ? AND revoked_at IS NULL ORDER BY id DESC LIMIT 1',
  );
  const revokeTokens = db.prepare(
    'UPDATE api_tokens SET revoked_at = ? WHERE workspace_id = ? AND revoked_at IS NULL',
  );
  const seatsUsed = db.prepare<[number], { n: number }>('SELECT COUNT(*) AS n FROM users WHERE workspace_id = ?');
  const getSetting = db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?');
  const putSetting = db.prepare('INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)');
  // key >= prefix AND key < prefix || U+FFFF: a range of the primary key.
  const settingKeys = db.prepare<[string, string], { key: string }>('SELECT key FROM settings WHERE key >= ? AND key < ?');
  const deleteSetting = db.prepare('DELETE FROM settings WHERE key = ?');

  return {
    insert: (w: NewWorkspace): number =>
      Number(insert.run({ ...w, isLocal: w.isLocal ? 1 : 0 }).lastInsertRowid),
    byId: (id: number): WorkspaceRow | undefined => byId.get(id),
    local: (): WorkspaceRow | undefined => local.get(),
    count: (): number => count.get()?.n ?? 0,
    update: (row: WorkspaceRow): void => void update.run(row),
    resetPeriod: (id: number, periodStart: number): void => void setUsed.run(0, periodStart, id),
    addUsed: (id: number, delta: number): void => void addUsed.run(delta, id),
    /** Moves the workspace's stored-bytes total by `delta` (an upload adds, a delete subtracts). */
    addStorage: (id: number, delta: number): void => void addStorage.run(delta, id),
    recordCredit: (workspaceId: number, messageId: number | null, delta: number, reason: string, now: number) =>
      void ledger.run(workspaceId, messageId, delta, reason, now),
    isRestored: (messageId: number): boolean => hasRestore.get(messageId) !== undefined,
    debitedAt: (messageId: number): number | undefined => debitedAt.get(messageId)?.created_at,
    insertToken: (workspaceId: number, hash: Buffer, token: string, now: number): void =>
      void insertToken.run(workspaceId, hash, token, now),
    tokenByHash: (hash: Buffer) => tokenByHash.get(hash),
    activeToken: (workspaceId: number): string | undefined => activeToken.get(workspaceId)?.token,
    revokeTokens: (workspaceId: number, now: number): void => void revokeTokens.run(now, workspaceId),
    seatsUsed: (workspaceId: number): number => seatsUsed.get(workspaceId)?.n ?? 0,
    getSetting: (key: string): string | undefined => getSetting.get(key)?.value,
    /** First writer wins, so concurrent processes agree on one value. */
    putSettingOnce: (key: string, value: string): void => void putSetting.run(key, value),
    settingKeys: (prefix: string): string[] => settingKeys.all(prefix, `${prefix}\uffff`).map((row) => row.key),
    deleteSetting: (key: string): void => void deleteSetting.run(key),
  };
}

export type WorkspaceStore = ReturnType<typeof createWorkspaceStore>;
