import { query, type SqlExecutor } from './sql.js';

export interface QrLinkRow {
  id: number;
  code: string;
  pairing_key: string;
  workspace_id: number;
  user_id: number;
  expires_at: number;
  revoked_at: number | null;
  connected_account_id: number | null;
  connected_at: number | null;
  created_at: number;
}

const INSERT = query<{ id: number }>(
  `INSERT INTO qr_links (code, pairing_key, workspace_id, user_id, expires_at, created_at)
   VALUES (@code, @pairingKey, @workspaceId, @userId, @expiresAt, @now)
   RETURNING id`,
);
const REVOKE_LIVE = query('UPDATE qr_links SET revoked_at = @now WHERE user_id = @userId AND revoked_at IS NULL');
const BY_CODE = query<QrLinkRow>('SELECT * FROM qr_links WHERE code = @code');
const BY_PAIRING_KEY = query<QrLinkRow>('SELECT * FROM qr_links WHERE pairing_key = @key');
const MARK_CONNECTED = query('UPDATE qr_links SET connected_account_id = @accountId, connected_at = @now WHERE id = @id');

/** QR links of partner users; at most one live (unrevoked) link per user, held by a unique index. */
export function createQrLinkStore(sql: SqlExecutor) {
  return {
    insert: async (l: { code: string; pairingKey: string; workspaceId: number; userId: number; expiresAt: number; now: number }): Promise<number> =>
      (await sql.get(INSERT, { ...l }))!.id,
    revokeLive: (userId: number, now: number): Promise<number> => sql.run(REVOKE_LIVE, { userId, now }),
    byCode: (code: string): Promise<QrLinkRow | undefined> => sql.get(BY_CODE, { code }),
    byPairingKey: (key: string): Promise<QrLinkRow | undefined> => sql.get(BY_PAIRING_KEY, { key }),
    markConnected: async (id: number, accountId: number, now: number): Promise<void> =>
      void (await sql.run(MARK_CONNECTED, { id, accountId, now })),
  };
}
