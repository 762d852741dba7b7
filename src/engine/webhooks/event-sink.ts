import { memoKeys } from '../memo-keys.js';
import type { EngineContext, EventSink } from '../context.js';
import type { DomainEvent } from '../events.js';
import { buildEventPayloads, partnerEventPayload, type WorkspaceEvent } from './payloads.js';
import { WEBHOOKS_WAKE } from './runtime.js';
import type { ClaimedDelivery, EnqueueLease } from '../../store/webhooks/delivery-store.js';

/** A workspace event left for the end of its transaction, with the transaction's context. */
interface LaterEvent {
  tx: EngineContext;
  event: WorkspaceEvent;
  now: number;
}

type Wanted = { yes: boolean };

/**
 * The deliveries of a transaction's workspace events, written after its other rows and before its COMMIT,
 * whatever the number of events, in a few statements: which (workspace, event) pairs some subscription names
 * (those the transaction has not asked already), the bodies of those events, and their deliveries. One by one,
 * a group commit of 30 incoming messages (60 events) would cost a probe, a read and an insert per event, each
 * a round trip on PostgreSQL.
 */
async function writeLaterEvents(later: LaterEvent[]): Promise<void> {
  const tx = later[0]!.tx;
  const memo = tx.sql.memo;
  const known = new Map<string, boolean>();
  const unknown = new Map<string, { workspaceId: number; eventType: string }>();
  for (const { event } of later) {
    const key = memoKeys.wants(event.workspaceId, event.type);
    const held = memo?.get(key) as Wanted | undefined;
    if (held !== undefined) known.set(key, held.yes);
    else unknown.set(key, { workspaceId: event.workspaceId, eventType: event.type });
  }
  if (unknown.size > 0) {
    const wanting = await tx.stores.webhooks.workspacesWanting([...unknown.values()]);
    for (const key of unknown.keys()) known.set(key, false);
    for (const pair of wanting) known.set(memoKeys.wants(pair.workspaceId, pair.eventType), true);
    for (const key of unknown.keys()) memo?.set(key, { yes: known.get(key) === true } satisfies Wanted);
  }
  const wanted = later.filter(({ event }) => known.get(memoKeys.wants(event.workspaceId, event.type)) === true);
  if (wanted.length === 0) return;
  const payloads = await buildEventPayloads(tx, wanted.map((item) => item.event));
  const events = wanted.flatMap(({ event, now }, i) => {
    const payload = payloads[i];
    return payload === null || payload === undefined ? [] : [{ workspaceId: event.workspaceId, eventType: event.type, payload, now }];
  });
  if (events.length === 0) return;
  // Last before the COMMIT (on PostgreSQL it goes without waiting for its answer). The wake goes out after the
  // commit (`inWriteTransaction`); should a subscription have gone meanwhile, it finds nothing to claim.
  const lease = leaseFor(tx, events.length);
  await tx.stores.deliveries.enqueueWorkspaceEvents(events, lease);
  if (lease === undefined) tx.wake(WEBHOOKS_WAKE);
}

/**
 * Where this process's webhook worker takes deliveries as they are written (`DeliveryHandOff`), the lease they
 * are written with: it gets them after the COMMIT, and only those left pending wake the workers (every replica's).
 */
function leaseFor(tx: EngineContext, events: number): EnqueueLease | undefined {
  const taker = tx.deliveryHandOff?.taker;
  if (taker === undefined || tx.onSettled === undefined) return undefined;
  // Most events have a subscription or two; slots set aside and not used are free again at the COMMIT.
  const reserved = taker.reserve(Math.min(64, 2 * events));
  if (reserved === 0) return undefined;
  let leased: ClaimedDelivery[] = [];
  tx.onSettled((committed) => (committed ? taker.give(leased, reserved) : taker.release(reserved)));
  const now = tx.clock.now();
  return {
    owner: taker.owner, now, leaseUntil: now + taker.leaseMs, budget: reserved, subscriptionCap: taker.subscriptionCap, tenantCap: taker.tenantCap,
    onLeased(claimed, leftPending) {
      leased = claimed;
      if (leftPending) tx.wake(WEBHOOKS_WAKE);
    },
  };
}

/**
 * The webhook outbox as the engine's event sink. It runs inside the write transaction of every send and
 * receive; a workspace event's deliveries, one per enabled subscription that names it, are written in the same
 * transaction, at its end (`writeLaterEvents`): they commit (or roll back) with the change itself, their
 * bodies are the rows as the transaction leaves them, and the worker is woken after the commit. An event a
 * workspace is known not to want (a batch's prelude read its subscriptions) costs nothing.
 */
export function createWebhookEventSink(_ctx: EngineContext, next?: EventSink): EventSink {
  const enqueue = async (tx: EngineContext, event: DomainEvent): Promise<void> => {
    const now = tx.clock.now();
    if ('partnerId' in event) {
      if (!(await tx.stores.webhooks.partnerWants(event.partnerId, event.type))) return;
      const payload = partnerEventPayload(tx, event.type, event.data);
      const queued = await tx.stores.deliveries.enqueueEvent({ partnerId: event.partnerId, eventType: event.type, payload, now });
      if (queued.length > 0) tx.wake(WEBHOOKS_WAKE);
      return;
    }
    if ((tx.sql.memo?.get(memoKeys.wants(event.workspaceId, event.type)) as Wanted | undefined)?.yes === false) return;
    const later: LaterEvent = { tx, event, now };
    // Every write transaction defers; an executor without `deferred` (none emits today) writes at once.
    if (tx.sql.deferred === undefined) await writeLaterEvents([later]);
    else tx.sql.deferred.addLater({ run: writeLaterEvents as (args: unknown[]) => Promise<void>, arg: later });
  };

  return {
    async emit(tx, event) {
      await enqueue(tx, event);
      await next?.emit(tx, event);
    },
  };
}
