import type { DeliveryOutcome, DeliveryRequest } from '../network/driver.js';
import type { AccountRow, ClaimedSend, MessageRow } from '../store/rows.js';
import type { HeadClaim } from '../store/send-queue-store.js';
import { inWriteTransaction, type EngineContext } from '../engine/context.js';
import { restoreCredits } from '../engine/credits.js';
import { noteSubscribedEvents } from '../engine/memo-keys.js';
import { sendSpacingFor } from '../engine/send-hand-off.js';
import { fromStorageError, isSvcError } from '../wire/errors.js';
import { createDeadLeaseReaper, processOwner } from './lease-owners.js';
import { HeldSends } from './held-sends.js';
import type { JobRunner } from './worker-runner.js';

/** A delivery that could not be attempted for a passing reason (the store busy): claimed again later. */
const TRY_AGAIN = Symbol('try again');

/** The events of a message the network took, in the order they are emitted. */
const SENT_EVENTS = ['message:sent:new', 'message:new'] as const;

/** Most messages one claim transaction takes. */
const SEND_BATCH = 64;

/**
 * Takes queued messages to the network. A claim (inside a write transaction) leases the job, moves the
 * message to Sending and reserves the account's next send slot, so spacing holds across processes. A
 * process killed mid-send leaves a lease that runs out; the next claim hands the message over again and
 * the driver, idempotent on the message uid, answers with the earlier result.
 *
 * On PostgreSQL, while its loop runs, it also takes the sends this process claimed as it accepted them
 * (`SendHandOff`): they go to the network at its next run, ahead of its own claim.
 */
export function createSendDispatcher(ctx: EngineContext, owner: string = processOwner()): JobRunner {
  const reapDeadLeases = createDeadLeaseReaper(ctx.stores.jobs, ctx.clock);
  // When the last look found nothing due, the time it found is the answer to the runner's next question
  // (`nextDueAt`, asked right after the run): a wake-up that finds nothing (every accepted batch wakes the
  // dispatcher) costs one statement, not two.
  let idleUntil: { at: number | null } | undefined;
  // What it holds (handed over at acceptance, or in its batch under way).
  const held = new HeldSends();
  /** A claim's messages, and whether it may have left due ones behind (`claimDueHeads`). */
  const claimBatch = async (expectWork: boolean): Promise<{ claimed: ClaimedSend[]; more: boolean }> => {
    idleUntil = undefined;
    // A plain read first: most polls find nothing due, and they should not take the write lock for it. The
    // earliest time a queue head is due is due now exactly when some head is (the claim's own conditions).
    // On PostgreSQL a claim that expects work skips that read: right after a batch that left some behind, and on
    // a wake-up (a send was just queued): the read would be one more round trip before the claim. Finding nothing
    // then costs three statements more, once: an empty claim transaction, then the runner's own look.
    if (!expectWork || ctx.database.dialect === 'sqlite') {
      const dueAt = await ctx.stores.jobs.nextSendTime();
      if (dueAt === null || dueAt > ctx.clock.now()) {
        idleUntil = { at: dueAt };
        return { claimed: [], more: false };
      }
    }
    // Read committed: on PostgreSQL the claim locks the jobs it takes and their accounts (SKIP LOCKED), so
    // replicas racing for the same job skip to the next instead of failing and retrying; each account's next
    // send slot is reserved before that lock is released at the commit, so spacing holds across replicas. One
    // transaction claims the head of every account that is due (up to a batch), and of an unspaced account the
    // messages after it in turn: a commit per batch, not per message; a spaced account's next message is not
    // due within it (its slot was just reserved). On PostgreSQL its statements run on their generic plans, planned
    // once per connection (each reaches its rows by key: test/store/query-plans-pg.test.ts).
    return inWriteTransaction(
      ctx,
      async (tx) => {
        const now = tx.clock.now();
        const claimed: ClaimedSend[] = [];
        const claims: HeadClaim[] = [];
        const gone: number[] = [];
        const nextSlot = new Map<number, number>();
        const { heads, more } = await tx.stores.sendQueue.claimDueHeads(now, SEND_BATCH);
        for (const { job, message, account, sendIntervalMs } of heads) {
          if (message === undefined || account === undefined) {
            gone.push(job.id);
            continue;
          }
          // One slot per account and claim (its later messages here are unspaced ones: interval 0).
          const nextSendAt = nextSlot.get(account.id) ?? now + sendSpacingFor(tx, sendIntervalMs);
          nextSlot.set(account.id, nextSendAt);
          claims.push({ jobId: job.id, accountId: account.id, nextSendAt, messageId: message.id });
          claimed.push({ jobId: job.id, message, account });
        }
        for (const jobId of gone) await tx.stores.jobs.remove(jobId);
        await tx.stores.sendQueue.applyClaims(claims, owner, now + tx.config.sendLeaseMs);
        return { claimed, more };
      },
      { isolation: 'read committed', genericPlans: true },
    );
  };

  // Outside any transaction: the network may take seconds, and no lock or connection is held meanwhile.
  const requestOf = async ({ message, account }: ClaimedSend): Promise<DeliveryRequest> => {
    const attachment = message.file_id === null ? null : ((await ctx.stores.files.byId(message.file_id)) ?? null);
    return {
      messageUid: message.uid,
      accountPhone: account.phone,
      recipientPhone: message.contact_phone,
      text: message.text,
      attachment: attachment && { filename: attachment.filename, mimetype: attachment.mimetype, size: attachment.size },
      replyToUid: message.reply_to_uid,
    };
  };
  const notConnected = (account: AccountRow): DeliveryOutcome => ({
    status: 'failed', reason: 'account_not_connected', detail: `account ${account.phone} is ${account.status}`,
  });
  // The store busy or unreachable (the simulated network keeps its records in it) is not the network refusing
  // the message: it goes out again at the next claim, and the driver answers with the earlier result if it was
  // handed over after all. SQLite's own busy error (SQLITE_BUSY, the write lock held by another process past the
  // wait) is the same passing condition as PostgreSQL's `unavailable`: failing the message would refund its credit.
  const isPassing = (error: unknown): boolean => {
    const storage = fromStorageError(error) ?? error;
    return isSvcError(storage) && storage.code === 'unavailable';
  };

  const deliverOne = async (claimed: ClaimedSend): Promise<DeliveryOutcome | typeof TRY_AGAIN> => {
    if (claimed.account.status !== 'connected') return notConnected(claimed.account);
    const request = await requestOf(claimed);
    try {
      return await ctx.network.deliver(request);
    } catch (error) {
      if (isPassing(error)) return TRY_AGAIN;
      ctx.logger.error('network driver failed', { messageUid: request.messageUid, error: String(error) });
      return { status: 'failed', reason: 'network_error', detail: 'the network did not accept the message' };
    }
  };

  /**
   * An account's run in one call, where the driver takes runs (`NetworkDriver.deliverRun`; the sim records a run
   * in one statement instead of a round trip a message): their outcomes, TRY_AGAIN for all when the store is
   * busy, or undefined when the run failed otherwise (its messages then go one by one, each idempotent).
   */
  const deliverWhole = async (run: readonly ClaimedSend[]): Promise<Array<DeliveryOutcome | typeof TRY_AGAIN> | undefined> => {
    const { account } = run[0]!;
    if (account.status !== 'connected') return run.map(() => notConnected(account));
    const requests = await Promise.all(run.map(requestOf));
    try {
      const outcomes = await ctx.network.deliverRun!(requests);
      if (outcomes.length === run.length) return outcomes;
      ctx.logger.error('network driver answered a run with the wrong number of outcomes', { expected: run.length, got: outcomes.length });
    } catch (error) {
      if (isPassing(error)) return run.map(() => TRY_AGAIN);
      ctx.logger.error('network driver failed a run; its messages go one by one', { messageUids: requests.map((r) => r.messageUid), error: String(error) });
    }
    return undefined;
  };

  /**
   * The network calls of a batch: accounts at once (spacing is not at stake between them), each account's
   * messages in queue order: in one call where the driver takes runs, otherwise one after the other. A message to
   * try again stops its account's run there, as does half the lease gone by (the rest would risk another process
   * claiming them meanwhile): the rest of the run is tried again too, so nothing of an account overtakes its
   * earlier message.
   */
  const deliver = async (batch: readonly ClaimedSend[]): Promise<Array<DeliveryOutcome | typeof TRY_AGAIN>> => {
    const outcomes: Array<DeliveryOutcome | typeof TRY_AGAIN> = batch.map(() => TRY_AGAIN);
    const runs = new Map<number, number[]>();
    batch.forEach(({ account }, i) => {
      const run = runs.get(account.id);
      if (run === undefined) runs.set(account.id, [i]);
      else run.push(i);
    });
    const deadline = ctx.clock.now() + ctx.config.sendLeaseMs / 2;
    await Promise.all(
      [...runs.values()].map(async (run) => {
        if (run.length > 1 && ctx.network.deliverRun !== undefined) {
          const whole = await deliverWhole(run.map((i) => batch[i]!));
          if (whole !== undefined) return run.forEach((i, n) => (outcomes[i] = whole[n]!));
        }
        for (const [n, i] of run.entries()) {
          if (n > 0 && ctx.clock.now() > deadline) return;
          const outcome = await deliverOne(batch[i]!);
          outcomes[i] = outcome;
          if (outcome === TRY_AGAIN) return;
        }
      }),
    );
    return outcomes;
  };

  // A message to try again: its lease is ended now, so the next claim (after the account's spacing) takes it.
  const releaseForRetry = async (claimed: readonly ClaimedSend[]): Promise<void> => {
    if (claimed.length === 0) return;
    try {
      await inWriteTransaction(ctx, async (tx) => {
        for (const { jobId } of claimed) await tx.stores.jobs.lease(jobId, owner, tx.clock.now());
      });
    } catch (error) {
      // Still busy: the leases run out by themselves (sendLeaseMs) and the messages are claimed then.
      ctx.logger.error('could not release send leases', { error: String(error) });
    }
  };

  // Whether a workspace's last completion found a subscription to a sent message's events (PostgreSQL tells it with
  // the completion's first statement). Only a hint: a workspace known not to subscribe has its sent messages'
  // bodies read when an event wants them, as before, not ahead.
  const sentEventsWanted = new Map<number, boolean>();
  // Finishes each message exactly once, a batch in one transaction: a copy of a job finished by another
  // process changes nothing. Should the transaction fail, the leases run out and the messages are handed to
  // the network again, which answers with its earlier result (idempotent on the uid). On generic plans, as the claim.
  const completeBatch = async (batch: ReadonlyArray<{ claimed: ClaimedSend; outcome: DeliveryOutcome }>): Promise<void> => {
    if (batch.length === 0) return;
    // The messages this completion finished (not those another process had), counted once it committed.
    let finished: Array<{ message: MessageRow; outcome: DeliveryOutcome }> = [];
    await inWriteTransaction(ctx, async (tx) => {
      const now = tx.clock.now();
      const sent = batch.flatMap(({ claimed, outcome }) => (outcome.status === 'sent' ? [{ id: claimed.message.id, networkMessageId: outcome.networkMessageId }] : []));
      // The bodies of the sent messages' events are read in the completion's first round trip, behind the statement
      // that marks them Sent, instead of in a round trip of their own before the COMMIT.
      const viewsAhead = batch.flatMap(({ claimed, outcome }) =>
        outcome.status === 'sent' && sentEventsWanted.get(claimed.message.workspace_id) !== false ? [claimed.message.id] : []);
      // The messages as they were before this completion marked the sent ones: those already final are not ours.
      const { messages: current, subscribedEvents } = await tx.stores.sendQueue.finishJobsOf(batch.map(({ claimed }) => claimed.message.id), sent, now, viewsAhead);
      if (sentEventsWanted.size > 10_000) sentEventsWanted.clear();
      for (const [workspaceId, subscribed] of subscribedEvents ?? []) {
        noteSubscribedEvents(tx.sql.memo, workspaceId, subscribed);
        sentEventsWanted.set(workspaceId, SENT_EVENTS.some((type) => subscribed.includes(type)));
      }
      const open = batch.flatMap(({ claimed, outcome }) => {
        const message = current.get(claimed.message.id);
        return message === undefined || message.status === 'Sent' || message.status === 'Failed' ? [] : [{ message, outcome }];
      });
      finished = open;
      for (const { message, outcome } of open) {
        const workspaceId = message.workspace_id;
        if (outcome.status === 'sent') {
          for (const type of SENT_EVENTS) await tx.events.emit(tx, { type, workspaceId, messageId: message.id });
        } else {
          await tx.stores.messages.setStatus({ id: message.id, status: 'Failed', failureReason: outcome.reason, networkMessageId: null, sentAt: null });
          await restoreCredits(tx.stores.workspaces, workspaceId, message.id, message.credits, now);
        }
      }
    }, { genericPlans: true });
    // Never negative: a replica whose clock runs behind may finish a message another one accepted.
    const now = ctx.clock.now();
    for (const { message, outcome } of finished) ctx.metrics.messageFinished(outcome.status, Math.max(0, now - message.created_at));
  };

  // Sends handed over that this process will not send (its loop stopped): their accept woke no dispatcher, so the
  // others (on PostgreSQL every replica's) are woken to claim them now rather than at their next poll.
  const releaseHandedOver = async (sends: readonly ClaimedSend[]): Promise<void> => {
    if (sends.length === 0) return;
    await releaseForRetry(sends);
    ctx.wake('send');
  };

  // A batch's network calls and completion; resolves with how many messages it finished (not to try again).
  // `batch` is held until then.
  const sendBatch = async (batch: readonly ClaimedSend[]): Promise<number> => {
    try {
      const outcomes = await deliver(batch);
      const done = batch.flatMap((claimed, i) => (outcomes[i] === TRY_AGAIN ? [] : [{ claimed, outcome: outcomes[i] as DeliveryOutcome }]));
      await completeBatch(done);
      await releaseForRetry(batch.filter((_, i) => outcomes[i] === TRY_AGAIN));
      return done.length;
    } finally {
      held.release(batch);
    }
  };

  return {
    name: 'send',
    async runDue(woken = false) {
      await reapDeadLeases();
      const given = held.takeHandedOver();
      let processed = given.length === 0 ? 0 : await sendBatch(given);
      // A wake-up that brought hand-offs most likely brought nothing else: look before claiming, as a poll does.
      for (let claim = await claimBatch(woken && given.length === 0); claim.claimed.length > 0; claim = await claimBatch(true)) {
        held.hold(claim.claimed);
        const done = await sendBatch(claim.claimed);
        processed += done;
        // Only retries left: the next claim would find them again at once; leave them to the next poll.
        if (done === 0) break;
        // A claim that took every message due leaves none for another now (on PostgreSQL an empty transaction
        // of two round trips after every batch). A send queued meanwhile has woken the runner, which runs again
        // at once; one due later (spacing), or left locked by another transaction, is found by its next look
        // (`nextDueAt`).
        if (!claim.more) break;
      }
      return processed;
    },
    // Read by the runner after every run; a failing read is logged there and waits for the next poll.
    nextDueAt: () => {
      const known = idleUntil;
      idleUntil = undefined;
      return known === undefined ? ctx.stores.jobs.nextSendTime() : known.at;
    },
    onStart(wakeLoop) {
      const handOff = ctx.sendHandOff;
      if (handOff === undefined) return;
      handOff.owner = owner;
      handOff.give = (send) => {
        // Given after the loop stopped (its owner taken back): released at once, for the next claim here or elsewhere.
        if (handOff.owner === undefined) return void releaseHandedOver([send]);
        held.handOver(send);
        wakeLoop();
      };
      handOff.busyWith = (accountId) => held.holdsAccount(accountId);
    },
    async onStop() {
      if (ctx.sendHandOff !== undefined) ctx.sendHandOff.owner = undefined;
      const left = held.takeHandedOver();
      held.release(left);
      await releaseHandedOver(left);
    },
  };
}
