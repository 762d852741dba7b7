import type { AccountRow, ClaimedSend } from '../store/rows.js';
import type { Random } from '../wire/clock.js';

/**
 * PostgreSQL: sends claimed as they are accepted, for this process's send dispatcher. Its claim would otherwise
 * cost the send two round trips and the wait for the dispatcher's round under way (about 20 ms at p50 under the
 * project's mixed load), where SQLite's costs a fraction of a millisecond. One shared object per engine; the
 * dispatcher fills it in while its loop runs.
 */
export interface SendHandOff {
  /** The lease owner of this process's dispatcher, while it takes hand-offs; undefined: claim nothing ahead. */
  owner?: string | undefined;
  /** Takes a send claimed at acceptance, after its COMMIT. */
  give?: ((claim: ClaimedSend) => void) | undefined;
  /**
   * Whether the dispatcher holds a message of this account now (handed over, or in its batch under way): a send
   * to it queues behind that one, so claiming it ahead is not tried (the plain flush costs PostgreSQL less).
   */
  busyWith?: ((accountId: number) => boolean) | undefined;
}

/**
 * The lease owner to claim a send to `account` for as it is accepted, or undefined: no dispatcher takes hand-offs
 * here, or the account as this transaction read it cannot be claimed now (not connected, its slot not open) or
 * the dispatcher already holds one of its messages. Only a hint, to spare the claiming flush (it costs PostgreSQL
 * more) where it would claim nothing: the flush checks again on the rows as they are.
 */
export function claimAheadOwner(handOff: SendHandOff | undefined, account: AccountRow, now: number): string | undefined {
  if (handOff?.owner === undefined || account.status !== 'connected' || account.next_send_at > now) return undefined;
  return handOff.busyWith?.(account.id) === true ? undefined : handOff.owner;
}

/** Until an account's next send slot: the workspace's own interval (Business plan) or a uniform random delay of about 2 seconds. */
export function sendSpacingFor(ctx: { config: { sendSpacingMs: { min: number; max: number } }; random: Random }, sendIntervalMs: number | null): number {
  if (sendIntervalMs !== null) return sendIntervalMs;
  const { min, max } = ctx.config.sendSpacingMs;
  return Math.round(min + ctx.random.next() * (max - min));
}
