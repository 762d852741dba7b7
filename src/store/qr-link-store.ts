import type { Db } from './database.js';

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

/** QR links of partner users; at most one live (unrevoked) link per user, held by a unique index. */
export function createQrLinkStore(db: Db) {
  const insert = db.prepare(
    `INSERT INTO qr_links (code, pairing_key, workspace_id, user_id, expires_at, created_at)
     VALUES (@code, @pairingKey, @workspaceId, @userId, @expiresAt, @now)`,
  );
  const revokeLive = db.prepare('UPDATE qr_links SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL');
  const byCode = db.prepare<[string], QrLinkRow>('SELECT * FROM qr_links WHERE code = ?');
  const byPairingKey = db.prepare<[string], QrLinkRow>('SELECT * FROM qr_links WHERE pairing_key = ?');
  const markConnected = db.prepare('UPDATE qr_links SET connected_account_id = ?, connected_at = ? WHERE id = ?');

  return {
    insert: (l: { code: string; pairingKey: string; workspaceId: number; userId: number; expiresAt: number; now: number }): number =>
      Number(insert.run(l).lastInsertRowid),
    revokeLive: (userId: number, now: number): number => revokeLive.run(now, userId).changes,
    byCode: (code: string): QrLinkRow | undefined => byCode.get(code),
    byPairingKey: (key: string): QrLinkRow | undefined => byPairingKey.get(key),
    markConnected: (id: number, accountId: number, now: number): void => void markConnected.run(accountId, now, id),
  };
}

export type QrLinkStore = ReturnType<typeof createQrLinkStore>;
