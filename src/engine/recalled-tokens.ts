/**
 * API tokens this process found live a moment ago, for requests whose write checks the token again in its own
 * transaction (sends and incoming messages: `admission`). Such a request is let in from memory, so it costs no
 * lookup before its batch (on PostgreSQL a round trip per turn, before the batch's own), and the check inside
 * the batch keeps the rotation rule exact on every replica: a token revoked by a committed rotation fails the
 * next send, whichever process remembers it. Only live tokens are remembered (a new token works at once), each
 * for RECALL_MS after the database last said so, and at most MAX_RECALLED at a time.
 */
import { SvcError } from '../wire/errors.js';
import type { BatchAdmission } from '../store/sql-database.js';
import type { SqlExecutor } from '../store/sql.js';
import { createWorkspaceStore } from '../store/workspace-store.js';
import { hashToken } from './tokens.js';

/**
 * How long a token is let in from memory after the database last found it live. A revoked token is refused by
 * every write regardless; until this runs out it can still have a send's body parsed and validated (a 400
 * rather than a 401 for a malformed one), which only a token that was valid a minute ago can do.
 */
export const RECALL_MS = 60_000;
/** A bound on memory: past it the oldest entry goes (a token seen again is looked up again). */
export const MAX_RECALLED = 10_000;

const unauthorized = (): Error => new SvcError('unauthorized', 'The API token is missing or invalid');

interface TokenCheck {
  token: string;
  workspaceId: number;
}

export class RecalledTokens {
  private readonly byHash = new Map<string, { workspaceId: number; until: number }>();
  /** The batch check every admission of this memory shares, so a batch checks all its tokens in one statement. */
  private readonly check: BatchAdmission['check'];

  constructor(private readonly now: () => number) {
    this.check = async (tx: SqlExecutor, args: unknown[]) => {
      const checks = args as TokenCheck[];
      // Each token hashed once a batch, not once a write: a batch's writes mostly share a few tokens.
      const hashes = new Map<string, Buffer>();
      for (const { token } of checks) if (!hashes.has(token)) hashes.set(token, hashToken(token));
      const live = new Map((await createWorkspaceStore(tx).liveTokens([...hashes.values()])).map((row) => [row.token_hash.toString('hex'), row.workspace_id]));
      return checks.map(({ token, workspaceId }) => {
        const hash = hashes.get(token)!;
        const admitted = live.get(hash.toString('hex')) === workspaceId;
        if (admitted) this.confirm(hash, workspaceId);
        else this.forget(hash);
        return admitted;
      });
    };
  }

  /** The workspace of a token found live within RECALL_MS, or undefined. */
  recall(hash: Buffer): number | undefined {
    const key = hash.toString('hex');
    const entry = this.byHash.get(key);
    if (entry === undefined) return undefined;
    if (entry.until > this.now()) return entry.workspaceId;
    this.byHash.delete(key);
    return undefined;
  }

  /** The database just found this token live for `workspaceId`. */
  confirm(hash: Buffer, workspaceId: number): void {
    const key = hash.toString('hex');
    // Re-inserted, so the Map's order stays the order of confirmation and the first entry is the oldest.
    this.byHash.delete(key);
    this.byHash.set(key, { workspaceId, until: this.now() + RECALL_MS });
    if (this.byHash.size > MAX_RECALLED) this.byHash.delete(this.byHash.keys().next().value!);
  }

  forget(hash: Buffer): void {
    this.byHash.delete(hash.toString('hex'));
  }

  /** The admission of a write made with `token` for `workspaceId`: refused (unauthorized) unless the token is live then. */
  admission(token: string, workspaceId: number): BatchAdmission {
    return { check: this.check, arg: { token, workspaceId } satisfies TokenCheck, refusal: unauthorized };
  }
}
