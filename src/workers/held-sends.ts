import type { ClaimedSend } from '../store/rows.js';

/**
 * The messages a send dispatcher holds, by account: those handed over at acceptance (`SendHandOff`) until its
 * next run takes them, and those of the batch under way until it ends. What the engine asks before claiming a
 * send ahead (`SendHandOff.busyWith`): a send to an account held here queues behind it.
 */
export class HeldSends {
  private handedOver: ClaimedSend[] = [];
  private readonly counts = new Map<number, number>();

  /** A send handed over, held until a run takes it and its batch ends. */
  handOver(send: ClaimedSend): void {
    this.handedOver.push(send);
    this.hold([send]);
  }

  /** The sends handed over since the last take; they stay held until `release`. */
  takeHandedOver(): ClaimedSend[] {
    const taken = this.handedOver;
    this.handedOver = [];
    return taken;
  }

  hold(batch: readonly ClaimedSend[]): void {
    for (const { account } of batch) this.counts.set(account.id, (this.counts.get(account.id) ?? 0) + 1);
  }

  release(batch: readonly ClaimedSend[]): void {
    for (const { account } of batch) {
      const count = (this.counts.get(account.id) ?? 0) - 1;
      if (count > 0) this.counts.set(account.id, count);
      else this.counts.delete(account.id);
    }
  }

  holdsAccount(accountId: number): boolean {
    return this.counts.has(accountId);
  }
}
