import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { WorkspaceStore } from '../store/workspace-store.js';

/** A new Public API token: 32 random bytes, prefixed so leaked tokens are easy to recognise and revoke. */
export const generateToken = (): string => `svc_${randomBytes(32).toString('base64url')}`;

export const hashToken = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/**
 * Issues a new token for a workspace, revoking the previous ones (rotation makes them fail at once). Call
 * inside a write transaction (`store` is its store), so the revocation and the new token commit together.
 */
export async function issueToken(store: WorkspaceStore, workspaceId: number, now: number): Promise<string> {
  await store.revokeTokens(workspaceId, now);
  const token = generateToken();
  await store.insertToken(workspaceId, hashToken(token), token, now);
  return token;
}

/** Whether `token` could be a token at all: longer ones are refused before they are hashed. */
export const plausibleToken = (token: string): boolean => token.length > 0 && token.length <= 512;

/** Finds the workspace of a token by its hash (`hashToken`) and compares the hashes in constant time. */
export async function authenticateTokenHash(store: WorkspaceStore, hash: Buffer): Promise<number | null> {
  const row = await store.tokenByHash(hash);
  if (row === undefined) return null;
  return timingSafeEqual(hash, row.token_hash) ? row.workspace_id : null;
}
