import { postgresOnly, query, type SqlExecutor } from './sql.js';
import { TurnLookup } from './turn-lookup.js';

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

const INSERT = query<{ id: number }>(
  `INSERT INTO workspaces (name, plan, is_local, partner_id, owner_email, seats_purchased, quota_total,
     quota_period_start, created_at)
   VALUES (@name, @plan, @isLocal, @partnerId, @ownerEmail, @seatsPurchased, @quotaTotal, @now, @now)
   RETURNING id`,
);
const BY_ID = query<WorkspaceRow>('SELECT * FROM workspaces WHERE id = @id');
// PostgreSQL: the row lock that orders one workspace's sends across replicas (SQLite has one writer anyway).
// NO KEY UPDATE, the lock the row's own UPDATEs take: unlike FOR UPDATE it lets other transactions insert rows
// that refer to the workspace (a foreign key check takes KEY SHARE), so a batch of sends holding it does not
// stall another transaction's new chat, message or file meanwhile.
const LOCK_BY_ID = query<WorkspaceRow>({
  sqlite: 'SELECT * FROM workspaces WHERE id = @id',
  postgres: 'SELECT * FROM workspaces WHERE id = @id FOR NO KEY UPDATE',
});
const COUNT = query<{ n: number }>('SELECT COUNT(*) AS n FROM workspaces');
const LOCAL = query<WorkspaceRow>('SELECT * FROM workspaces WHERE is_local = 1 ORDER BY id LIMIT 1');
const UPDATE = query(
  `UPDATE workspaces SET name = @name, plan = @plan, seats_purchased = @seats_purchased,
     send_interval_ms = @send_interval_ms, quota_total = @quota_total, owner_email = @owner_email,
     storage_limit_bytes = @storage_limit_bytes WHERE id = @id`,
);
const ADD_STORAGE = query({
  sqlite: 'UPDATE workspaces SET storage_used_bytes = MAX(0, storage_used_bytes + @delta) WHERE id = @id',
  postgres: 'UPDATE workspaces SET storage_used_bytes = GREATEST(0, storage_used_bytes + @delta) WHERE id = @id',
});
// Only a workspace still in an earlier period is reset, so two writers rolling it over reset it once.
const RESET_PERIOD = query(
  'UPDATE workspaces SET quota_used = 0, quota_period_start = @periodStart WHERE id = @id AND quota_period_start < @periodStart',
);
const ADD_USED = query('UPDATE workspaces SET quota_used = quota_used + @delta WHERE id = @id');
const LEDGER = query(
  `INSERT INTO credit_ledger (workspace_id, message_id, delta, reason, created_at)
   VALUES (@workspaceId, @messageId, @delta, @reason, @now)`,
);
const HAS_RESTORE = query<{ one: number }>(`SELECT 1 AS one FROM credit_ledger WHERE message_id = @messageId AND reason = 'restore'`);
const DEBITED_AT = query<{ created_at: number }>(
  `SELECT created_at FROM credit_ledger WHERE message_id = @messageId AND reason = 'debit'`,
);
const INSERT_TOKEN = query(
  'INSERT INTO api_tokens (workspace_id, token_hash, token, created_at) VALUES (@workspaceId, @hash, @token, @now)',
);
// Every authenticated request asks this; on SQLite it was a sixth of a send's CPU time (a read transaction
// of its own, outside the send's). A rotation or any other write to api_tokens forgets what was remembered.
const TOKEN_BY_HASH = query<{ workspace_id: number; token_hash: Buffer }>(
  'SELECT workspace_id, token_hash FROM api_tokens WHERE token_hash = @hash AND revoked_at IS NULL',
  { cachedUntilWritten: ['api_tokens'] },
);
// PostgreSQL: the lookups of one turn in one statement (`TurnLookup`); SQLite answers TOKEN_BY_HASH from memory.
const TOKENS_BY_HASHES = postgresOnly<{ workspace_id: number; token_hash: Buffer }>(
  'SELECT workspace_id, token_hash FROM api_tokens WHERE token_hash = ANY(@hashes) AND revoked_at IS NULL',
);
type TokenRow = { workspace_id: number; token_hash: Buffer };
// One per autocommit executor (the engine's); a transaction's executor looks its tokens up alone.
const tokenLookups = new WeakMap<SqlExecutor, TurnLookup<TokenRow>>();

/** The live tokens among `hashes` (distinct): one statement on PostgreSQL, SQLite's cached reads one by one. */
async function tokensByHashes(sql: SqlExecutor, hashes: readonly Buffer[]): Promise<TokenRow[]> {
  if (hashes.length === 1) return sql.all(TOKEN_BY_HASH, { hash: hashes[0] });
  if (sql.dialect === 'postgres') return sql.all(TOKENS_BY_HASHES, { hashes });
  const rows: TokenRow[] = [];
  for (const hash of hashes) rows.push(...(await sql.all(TOKEN_BY_HASH, { hash })));
  return rows;
}

function tokenLookupOf(sql: SqlExecutor): TurnLookup<TokenRow> {
  let lookup = tokenLookups.get(sql);
  if (lookup === undefined) {
    // A turn's one token (the common case) by equality: PostgreSQL then keeps a generic plan of the lookup,
    // where `= ANY(array)` was planned anew at every call (mixed load, one run each: 2,036 lookups planned 1,987
    // times, 123 ms of planning and execution in all; then 1,907 lookups planned 137 times, 43 ms).
    const fetch = (hashes: Buffer[]) => tokensByHashes(sql, hashes);
    lookup = new TurnLookup(fetch, (row) => row.token_hash);
    tokenLookups.set(sql, lookup);
  }
  return lookup;
}
const ACTIVE_TOKEN = query<{ token: string }>(
  'SELECT token FROM api_tokens WHERE workspace_id = @workspaceId AND revoked_at IS NULL ORDER BY id DESC LIMIT 1',
);
const REVOKE_TOKENS = query('UPDATE api_tokens SET revoked_at = @now WHERE workspace_id = @workspaceId AND revoked_at IS NULL');
const SEATS_USED = query<{ n: number }>('SELECT COUNT(*) AS n FROM users WHERE workspace_id = @workspaceId');
const GET_SETTING = query<{ value: string }>('SELECT value FROM settings WHERE key = @key');
const PUT_SETTING = query('INSERT INTO settings (key, value) VALUES (@key, @value) ON CONFLICT DO NOTHING');
// key >= prefix AND key < prefix || U+FFFF: a range of the primary key. PostgreSQL compares in code-point
// order ("C", as SQLite does) so the range means the same whatever the database's collation.
const SETTING_KEYS = query<{ key: string }>({
  sqlite: 'SELECT key FROM settings WHERE key >= @prefix AND key < @end',
  postgres: 'SELECT key FROM settings WHERE key COLLATE "C" >= @prefix AND key COLLATE "C" < @end',
});
const DELETE_SETTING = query('DELETE FROM settings WHERE key = @key');

/** Workspaces, their API tokens, settings and the credit ledger. */
export function createWorkspaceStore(sql: SqlExecutor) {
  return {
    insert: async (w: NewWorkspace): Promise<number> => (await sql.get(INSERT, { ...w, isLocal: w.isLocal ? 1 : 0 }))!.id,
    byId: (id: number): Promise<WorkspaceRow | undefined> => sql.get(BY_ID, { id }),
    /** The row, locked until the transaction ends (PostgreSQL); later statements see what the last holder wrote. */
    lockById: (id: number): Promise<WorkspaceRow | undefined> => sql.get(LOCK_BY_ID, { id }),
    local: (): Promise<WorkspaceRow | undefined> => sql.get(LOCAL),
    count: async (): Promise<number> => (await sql.get(COUNT))?.n ?? 0,
    update: async (row: WorkspaceRow): Promise<void> => void (await sql.run(UPDATE, { ...row })),
    /** Moves the workspace into the period starting at `periodStart`; false when it already was there. */
    resetPeriod: async (id: number, periodStart: number): Promise<boolean> => (await sql.run(RESET_PERIOD, { id, periodStart })) > 0,
    addUsed: async (id: number, delta: number): Promise<void> => void (await sql.run(ADD_USED, { id, delta })),
    /** Moves the workspace's stored-bytes total by `delta` (an upload adds, a delete subtracts). */
    addStorage: async (id: number, delta: number): Promise<void> => void (await sql.run(ADD_STORAGE, { id, delta })),
    recordCredit: async (workspaceId: number, messageId: number | null, delta: number, reason: string, now: number): Promise<void> =>
      void (await sql.run(LEDGER, { workspaceId, messageId, delta, reason, now })),
    isRestored: async (messageId: number): Promise<boolean> => (await sql.get(HAS_RESTORE, { messageId })) !== undefined,
    debitedAt: async (messageId: number): Promise<number | undefined> => (await sql.get(DEBITED_AT, { messageId }))?.created_at,
    insertToken: async (workspaceId: number, hash: Buffer, token: string, now: number): Promise<void> =>
      void (await sql.run(INSERT_TOKEN, { workspaceId, hash, token, now })),
    tokenByHash: (hash: Buffer): Promise<TokenRow | undefined> =>
      sql.dialect === 'postgres' && sql.memo === undefined ? tokenLookupOf(sql).get(hash) : sql.get(TOKEN_BY_HASH, { hash }),
    /** The live tokens among `hashes` (distinct; one statement on PostgreSQL): a batch's check of its writes' tokens. */
    liveTokens: (hashes: readonly Buffer[]): Promise<TokenRow[]> => tokensByHashes(sql, hashes),
    activeToken: async (workspaceId: number): Promise<string | undefined> => (await sql.get(ACTIVE_TOKEN, { workspaceId }))?.token,
    revokeTokens: async (workspaceId: number, now: number): Promise<void> => void (await sql.run(REVOKE_TOKENS, { workspaceId, now })),
    seatsUsed: async (workspaceId: number): Promise<number> => (await sql.get(SEATS_USED, { workspaceId }))?.n ?? 0,
    getSetting: async (key: string): Promise<string | undefined> => (await sql.get(GET_SETTING, { key }))?.value,
    /** First writer wins, so concurrent processes agree on one value. */
    putSettingOnce: async (key: string, value: string): Promise<void> => void (await sql.run(PUT_SETTING, { key, value })),
    settingKeys: async (prefix: string): Promise<string[]> =>
      (await sql.all(SETTING_KEYS, { prefix, end: `${prefix}\uffff` })).map((row) => row.key),
    deleteSetting: async (key: string): Promise<void> => void (await sql.run(DELETE_SETTING, { key })),
  };
}

export type WorkspaceStore = ReturnType<typeof createWorkspaceStore>;
