/**
 * Rows a write transaction has decided to write but leaves for its end, so that the writes of one group commit
 * go out as one multi-row statement instead of one statement each: accepted sends (debit, message, send job,
 * ledger row), received messages, and the later writes of the layer above (`LaterWrite`). Every rule about them was checked when they were added (the quota, behind
 * the workspace's row lock), so writing them cannot fail for a reason of their own. A savepoint rolled back
 * drops what was added since it (`mark`/`undoTo`), as it undoes the statements.
 *
 * A received message is deferred only when its id was reserved ahead (`provideMessageIds`, by the batch's
 * prelude on PostgreSQL): the write answers with it and its events carry it. Reads of messages in the
 * transaction write the deferred ones first (`message-store.ts`), so an event's payload finds its message.
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
  /** PostgreSQL, where this process's dispatcher takes hand-offs: the send may be claimed as it is written. */
  claimAhead?: ClaimAhead;
}

/** What a send claimed at acceptance needs: the lease's owner and end, the account's spacing and run length. */
export interface ClaimAhead {
  owner: string;
  leaseUntil: number;
  /** Until the account's next send slot (0: unspaced). */
  spacingMs: number;
  /** How many of the account's first messages one claim takes (the dispatcher's unspaced run, or 1). */
  run: number;
  /** Told after the flush when the send was claimed (before the COMMIT's answer: it may still fail). */
  onClaimed: (claim: ClaimedSend) => void;
}

/** A message received from a contact, stored as Sent at `now`, with an id reserved for it. */
export interface ReceivedMessage {
  id: number;
  uid: string;
  workspaceId: number;
  chatId: number;
  accountId: number;
  text: string | null;
  fileId: number | null;
  replyToId: number | null;
  now: number;
}

import { hasNul, nulRefused } from '../wire/nul-text.js';
import type { ClaimedSend } from './rows.js';

/**
 * Work a layer above the store leaves for the end of the transaction, after the rows above are written: every
 * `arg` given with the same `run` goes to one call (the webhook deliveries of a batch's events, in one
 * statement). `run` holds what it needs to write (the transaction's stores) in its args.
 */
export interface LaterWrite {
  run: (args: unknown[]) => Promise<void>;
  arg: unknown;
}

/** Where a savepoint began, to drop what was deferred after it. */
export interface DeferredMark {
  sends: number;
  received: number;
  later: number;
  takenChats: number;
}

// The store's rule on NUL (src/store/sql.ts) checked when a row is deferred, so it refuses the write that
// brought it rather than the multi-row statement of the whole batch.
const refuseNul = (text: string | null): void => {
  if (text !== null && hasNul(text)) throw nulRefused('a text value');
};

export class DeferredWrites {
  private sends: AcceptedSend[] = [];
  /**
   * Whether the accepted sends, once written, need the dispatcher woken: false only when the store saw that
   * every one of them joined an account's queue that already held a send (PostgreSQL's flush), so the
   * dispatchers already know when that account is next due and reach the new message in turn, polls
   * included; true, the safe answer, otherwise. Spares the dispatcher's look and the NOTIFY of every batch of
   * a busy account's sends.
   */
  sendsNeedWake = true;
  private received: ReceivedMessage[] = [];
  private messageIds: number[] = [];
  private later: LaterWrite[] = [];
  /** Chats a batch's prelude created for its writes (PostgreSQL), and those a write has taken as its new chat. */
  private offeredChats = new Set<number>();
  private takenChats: number[] = [];

  addSend(send: AcceptedSend): void {
    refuseNul(send.text);
    this.sends.push(send);
  }

  /** Ids of messages reserved for this transaction's received messages (unused ones are simply never used). */
  provideMessageIds(ids: readonly number[]): void {
    this.messageIds.push(...ids);
  }

  /** A received message deferred under a reserved id; undefined (nothing deferred) when no id is left. */
  deferReceived(message: Omit<ReceivedMessage, 'id'>): number | undefined {
    const id = this.messageIds[0];
    if (id === undefined) return undefined;
    refuseNul(message.text);
    this.messageIds.shift();
    this.received.push({ ...message, id });
    return id;
  }

  hasReceived(): boolean {
    return this.received.length > 0;
  }

  /** The received messages deferred so far, in order; empties that list. */
  takeReceived(): ReceivedMessage[] {
    const received = this.received;
    this.received = [];
    return received;
  }

  /** Credits of `workspaceId` accepted so far and not yet written (the quota counts them). */
  creditsOf(workspaceId: number): number {
    let total = 0;
    for (const send of this.sends) if (send.workspaceId === workspaceId) total += send.credits;
    return total;
  }

  addLater(write: LaterWrite): void {
    this.later.push(write);
  }

  /** The later writes so far, their args grouped by `run` in the order each `run` first came; empties that list. */
  takeLater(): Array<{ run: LaterWrite['run']; args: unknown[] }> {
    const byRun = new Map<LaterWrite['run'], unknown[]>();
    for (const { run, arg } of this.later) {
      const args = byRun.get(run);
      if (args === undefined) byRun.set(run, [arg]);
      else args.push(arg);
    }
    this.later = [];
    return [...byRun].map(([run, args]) => ({ run, args }));
  }

  /** Chats made ahead for the writes of this transaction: the first write to use one takes it as its new chat. */
  offerChats(ids: readonly number[]): void {
    for (const id of ids) this.offeredChats.add(id);
  }

  /** True once for a chat offered ahead: the caller made it, and tells the world (its events). */
  takeChat(id: number): boolean {
    if (!this.offeredChats.has(id) || this.takenChats.includes(id)) return false;
    this.takenChats.push(id);
    return true;
  }

  /** The chats offered ahead that no write took (their writes failed): removed before the COMMIT. */
  untakenChats(): number[] {
    const untaken = [...this.offeredChats].filter((id) => !this.takenChats.includes(id));
    this.offeredChats = new Set();
    this.takenChats = [];
    return untaken;
  }

  mark(): DeferredMark {
    return { sends: this.sends.length, received: this.received.length, later: this.later.length, takenChats: this.takenChats.length };
  }

  undoTo(mark: DeferredMark): void {
    this.sends.length = Math.min(this.sends.length, mark.sends);
    this.received.length = Math.min(this.received.length, mark.received);
    this.later.length = Math.min(this.later.length, mark.later);
    this.takenChats.length = Math.min(this.takenChats.length, mark.takenChats);
  }

  /** Forgets everything (a connection that keeps one for all its transactions, at the start of each). */
  clear(): void {
    this.sendsNeedWake = true;
    this.sends = [];
    this.received = [];
    this.messageIds = [];
    this.later = [];
    this.offeredChats = new Set();
    this.takenChats = [];
  }

  /** The accepted sends, in order; empties that list. */
  takeSends(): AcceptedSend[] {
    const sends = this.sends;
    this.sends = [];
    return sends;
  }
}
