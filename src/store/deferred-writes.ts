/**
 * Rows a write transaction has decided to write but leaves for its end, so that the writes of one group commit
 * go out as one multi-row statement instead of one statement each: accepted sends (debit, message, send job,
 * ledger row). Every rule about them was checked when they were added (the quota, behind the workspace's row
 * lock), so writing them cannot fail for a reason of their own. A savepoint rolled back drops what was added
 * since it (`mark`/`undoTo`), as it undoes the statements.
 */
export interface AcceptedSend {
  uid: string;
  workspaceId: number;
  chatId: number;
  accountId: number;
  text: string | null;
  fileId: number | null;
  templateId: number | null;
  replyToId: number | null;
  credits: number;
  now: number;
}

import { hasNul, nulRefused } from '../wire/nul-text.js';

export class DeferredWrites {
  private sends: AcceptedSend[] = [];

  addSend(send: AcceptedSend): void {
    // The store's rule on NUL (src/store/sql.ts) checked now, so it refuses the send that brought it rather
    // than the multi-row statement of the whole batch.
    if (send.text !== null && hasNul(send.text)) throw nulRefused('a text value');
    this.sends.push(send);
  }

  /** Credits of `workspaceId` accepted so far and not yet written (the quota counts them). */
  creditsOf(workspaceId: number): number {
    let total = 0;
    for (const send of this.sends) if (send.workspaceId === workspaceId) total += send.credits;
    return total;
  }

  mark(): number {
    return this.sends.length;
  }

  undoTo(mark: number): void {
    this.sends.length = Math.min(this.sends.length, mark);
  }

  /** Everything added, in order; empties the list. */
  take(): AcceptedSend[] {
    const sends = this.sends;
    this.sends = [];
    return sends;
  }
}
