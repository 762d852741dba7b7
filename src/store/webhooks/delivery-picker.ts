import { writeUnanswered, type SqlExecutor } from '../sql.js';
import {
  CANDIDATES, DUE_OF, DUE_OF_MANY, LEASE_DUE, LIVE_BY_SUBSCRIPTION, LIVE_OF, NEXT_DUE,
  type Candidate, type DueRow, type LeasedRow, type PickedSubscription,
} from './delivery-picker-sql.js';

export type { LeasedRow, PickedSubscription } from './delivery-picker-sql.js';

/** A claim's lease, for a pick that may lease what it reads (`PickOptions.lease`). */
export interface PickLease {
  owner: string;
  leaseUntil: number;
  /** The rows leased, in the order dealt, with the subscriptions picked from; called before the COMMIT's answer. */
  onLeased: (rows: LeasedRow[], subscriptions: ReadonlyMap<number, PickedSubscription>) => void;
}

/** What picking due deliveries needs from a claim (see `ClaimOptions` of the delivery store). */
export interface PickOptions {
  now: number;
  limit: number;
  perSubscriptionCap: number;
  /**
   * Most deliveries of one tenant (workspace or partner) to one receiver (URL origin) in flight, over its
   * subscriptions and every process. Per tenant: another tenant's slow path on a shared host costs this one nothing.
   */
  perEndpointCap?: number;
  /** Most deliveries of one tenant in flight, whatever it subscribed to: its hanging receivers spend only its share. */
  perTenantCap?: number;
  listenSessionId?: string | null;
  /**
   * Which tenant is served first: this turn modulo the number of tenants with work. Whoever claims again and
   * again (the delivery worker) counts its claims here, so the tenant served first rotates from claim to claim;
   * without it the picker counts its own picks.
   */
  rotation?: number;
  /**
   * Told after each pick whether it may have left due work behind: a subscription at a cap, or given as many
   * due rows as it had room for. The delivery worker records finished attempts at once then (their slots are
   * wanted), and otherwise lets them wait for its next claim.
   */
  onPicked?: (leftBehind: boolean) => void;
  /**
   * A claim's: on PostgreSQL, with the caps counted, when every candidate's due rows fit its room and all of them
   * fit every cap and the limit together (the deal would take every row read, the usual case), they are read and
   * leased in one statement, sent unanswered (the claim's COMMIT rides behind it), and handed to `onLeased`; the
   * pick then answers `leased` and no ids.
   */
  lease?: PickLease;
}

/** What a pick found: the ids dealt fairly, and the subscriptions they belong to. */
export interface Picked {
  ids: number[];
  subscriptions: Map<number, PickedSubscription>;
  /** The pick leased its rows itself (`PickOptions.lease`). */
  leased?: boolean;
}

const tenantOf = (s: Candidate): string => (s.workspace_id !== null ? `w${s.workspace_id}` : `p${s.partner_id}`);

const origins = new Map<string, string>();

/** The receiver a URL points at (scheme, host and port); a URL that does not parse stands for itself. Memoised: every claim asks. */
function endpointOf(url: string): string {
  let origin = origins.get(url);
  if (origin === undefined) {
    try {
      origin = new URL(url).origin;
    } catch {
      origin = url;
    }
    if (origins.size > 10_000) origins.clear();
    origins.set(url, origin);
  }
  return origin;
}

/**
 * Picks and times due deliveries for the outbox, fairly. Picking reads only indexed ranges: per subscription
 * with work, its live leases (for the cap) and at most its free slots of due rows, so a claim costs the same
 * with 10 or 100 000 deliveries queued. It leases nothing: the caller leases what it picked, in its
 * transaction (on PostgreSQL the picked rows are locked until then).
 *
 * Fairness: every tenant (workspace or partner) has an in-flight cap and a cap per receiver, and the slots of
 * one claim are dealt round-robin, one delivery per tenant per round and, inside a tenant, one per
 * subscription per round; the tenant served first rotates from claim to claim. A tenant with a thousand
 * queued or with receivers that hang takes no more than its caps, and no subscription wins by having the
 * lowest id.
 */
export function createDeliveryPicker(sql: SqlExecutor) {
  /** The tenant served first when the caller counts no turns of its own (`PickOptions.rotation`). */
  let ownRotation = 0;

  const dueOfMany = async (asks: Array<{ sub: number; lim: number }>, now: number): Promise<Map<number, DueRow[]>> => {
    const bySub = new Map<number, DueRow[]>();
    const wanted = asks.filter((ask) => ask.lim > 0);
    if (wanted.length === 0) return bySub;
    for (const row of await sql.all(DUE_OF_MANY, { asks: JSON.stringify(wanted), now })) pushTo(bySub, row.sub, row);
    return bySub;
  };

  const dueOf = async (sub: number, now: number, room: number, cap: number, liveOf?: Map<number, number>): Promise<DueRow[]> => {
    if (sql.dialect === 'sqlite') return sql.all(DUE_OF, { sub, now, limit: room, cap });
    const live = liveOf !== undefined ? (liveOf.get(sub) ?? 0) : ((await sql.get(LIVE_OF, { sub, now }))?.n ?? 0);
    const limit = Math.min(room, cap - live);
    return limit <= 0 ? [] : sql.all(DUE_OF, { sub, now, limit, cap });
  };

  /** As `pick`, with the fields of the subscriptions picked from (a claim needs them; read in the same statement). */
  const pickWithSubscriptions = async (options: PickOptions): Promise<Picked> => {
    const { now, limit } = options;
    const found = new Map<number, PickedSubscription>();
    if (limit <= 0) return { ids: [], subscriptions: found };
    const endpointCap = options.perEndpointCap ?? Infinity;
    const tenantCap = options.perTenantCap ?? Infinity;
    const countsLive = endpointCap !== Infinity || tenantCap !== Infinity;
    const candidates = sql.all(CANDIDATES, {
      now, session: options.listenSessionId ?? null, ...(sql.dialect === 'postgres' && { dueCap: options.perSubscriptionCap }),
    });
    // PostgreSQL: the live leases are asked for with the candidates, pipelined (one round trip for both). The
    // server runs the two in order, so they are still counted after the candidates are locked, as they would be
    // asked for after its answer. SQLite has no round trips to save: it counts only when there are candidates.
    const pipelinedLive = countsLive && sql.dialect === 'postgres' ? sql.all(LIVE_BY_SUBSCRIPTION, { now }) : undefined;
    pipelinedLive?.catch(() => undefined);
    const subscriptions = await candidates;
    if (subscriptions.length === 0) {
      await pipelinedLive;
      options.onPicked?.(false);
      return { ids: [], subscriptions: found };
    }
    const busy = new Map<string, number>();
    const add = (key: string, n: number) => busy.set(key, (busy.get(key) ?? 0) + n);
    // Live leases per subscription, when counted for the caps: PostgreSQL then needs no count per subscription.
    let liveOf: Map<number, number> | undefined;
    if (countsLive) {
      liveOf = new Map();
      for (const live of await (pipelinedLive ?? sql.all(LIVE_BY_SUBSCRIPTION, { now }))) {
        liveOf.set(live.id, live.n);
        add(tenantOf(live), live.n);
        add(`${tenantOf(live)} ${endpointOf(live.url)}`, live.n);
      }
    }
    // Each tenant's subscriptions, their due rows already limited by every cap.
    const byTenant = new Map<string, DueRow[][]>();
    const roomOf = (subscription: Candidate): number => {
      const tenant = tenantOf(subscription);
      const endpoint = `${tenant} ${endpointOf(subscription.url)}`;
      return Math.min(limit, endpointCap - (busy.get(endpoint) ?? 0), tenantCap - (busy.get(tenant) ?? 0));
    };
    // ...and under the subscription's own cap, as far as its live leases are counted.
    const ownRoomOf = (subscription: Candidate): number => Math.min(roomOf(subscription), options.perSubscriptionCap - (liveOf?.get(subscription.id) ?? 0));
    // Every candidate has due work: one left at a cap, or given all the room it had (it may have more), may
    // leave some behind. Without the live leases counted, the room under its own cap is not known here.
    let leftBehind = liveOf === undefined;
    /** A subscription's due rows (under its own room, `ownRoom`) taken into the deal and counted against its caps. */
    const take = <Row extends DueRow>(subscription: PickedSubscription, rows: Row[], ownRoom: number): void => {
      if (ownRoom <= 0 || rows.length === 0 || rows.length >= ownRoom) leftBehind = true;
      if (rows.length === 0) return;
      const tenant = tenantOf(subscription);
      found.set(subscription.id, subscription);
      add(`${tenant} ${endpointOf(subscription.url)}`, rows.length);
      add(tenant, rows.length);
      pushTo(byTenant, tenant, rows);
    };
    /** The rows taken, dealt round-robin (the tenant served first rotating), and `onPicked` told. */
    const deal = (): DueRow[] => {
      const tenants = [...byTenant.values()].map(interleave);
      let rotation: number;
      if (options.rotation === undefined) {
        ownRotation = (ownRotation + 1) % Math.max(1, tenants.length);
        rotation = ownRotation;
      } else {
        rotation = options.rotation % Math.max(1, tenants.length);
      }
      const dealt = interleave([...tenants.slice(rotation), ...tenants.slice(0, rotation)]);
      options.onPicked?.(leftBehind || dealt.length > limit);
      return dealt.slice(0, limit);
    };
    if (options.lease !== undefined && liveOf !== undefined && sql.dialect === 'postgres') {
      const asks = subscriptions.map((sub) => ({ sub, room: ownRoomOf(sub), lim: Math.min(ownRoomOf(sub), sub.due ?? Infinity) }));
      if (fitTogether(asks, busy, limit, endpointCap, tenantCap)) {
        const { onLeased } = options.lease;
        // The rows arrive before the COMMIT's answer; they fit every cap together, so the deal takes them all.
        await leaseDue(asks, options, options.lease, (bySub) => {
          for (const { sub, room } of asks) take(sub, bySub.get(sub.id) ?? [], room);
          onLeased(deal() as Array<LeasedRow & DueRow>, found);
        });
        return { ids: [], subscriptions: found, leased: true };
      }
    }
    // PostgreSQL: every subscription's due rows in one statement (one round trip, not one per subscription),
    // each asked for as much as the caps left it before this pick; trimmed below as the pick fills them.
    const prefetched = liveOf !== undefined && sql.dialect === 'postgres'
      ? await dueOfMany(subscriptions.map((sub) => ({ sub: sub.id, lim: ownRoomOf(sub) })), now)
      : undefined;
    for (const subscription of subscriptions) {
      const room = roomOf(subscription);
      const ownRoom = ownRoomOf(subscription);
      if (ownRoom <= 0) {
        take(subscription, [], ownRoom);
        continue;
      }
      const rows = prefetched !== undefined
        ? (prefetched.get(subscription.id) ?? []).slice(0, room)
        : await dueOf(subscription.id, now, room, options.perSubscriptionCap, liveOf);
      take(subscription, rows, ownRoom);
    }
    return { ids: deal().map((row) => row.id), subscriptions: found };
  };

  /**
   * Reads and leases every due row the asks name in one statement (LEASE_DUE), unanswered: `onRows` gets them by
   * subscription, oldest first, when they arrive (inside a transaction on PostgreSQL this resolves once sent).
   */
  const leaseDue = async (
    asks: ReadonlyArray<{ sub: PickedSubscription; lim: number }>, options: PickOptions, lease: PickLease,
    onRows: (bySub: Map<number, Array<LeasedRow & DueRow>>) => void,
  ): Promise<void> => {
    const wanted = asks.filter((ask) => ask.lim > 0).map(({ sub, lim }) => ({ sub: sub.id, lim }));
    const group = (leased: Array<LeasedRow & DueRow>): void => {
      const bySub = new Map<number, Array<LeasedRow & DueRow>>();
      for (const row of leased.sort((a, b) => a.due_at - b.due_at || a.id - b.id)) pushTo(bySub, row.subscription_id, row);
      onRows(bySub);
    };
    if (wanted.length === 0) return group([]);
    await writeUnanswered(sql, LEASE_DUE, { asks: JSON.stringify(wanted), now: options.now, owner: lease.owner, leaseUntil: lease.leaseUntil }, group);
  };

  return {
    /** Ids of up to `limit` due deliveries (pending and due, or delivering with an expired lease), dealt fairly. */
    pick: async (options: PickOptions): Promise<number[]> => (await pickWithSubscriptions(options)).ids,
    pickWithSubscriptions,
    /** Earliest time a POSTed delivery becomes due (a retry, or a lease running out), or null when none is pending. */
    nextDueAt: async (): Promise<number | null> => (await sql.get(NEXT_DUE))?.due_at ?? null,
  };
}

export type DeliveryPicker = ReturnType<typeof createDeliveryPicker>;

/**
 * Whether the asks (each subscription's room, no more than its due rows) fit the limit, and every tenant's and
 * receiver's room under its cap, all together: a deal of their rows would then cut none.
 */
function fitTogether(
  asks: ReadonlyArray<{ sub: Candidate; lim: number }>, busy: ReadonlyMap<string, number>, limit: number, endpointCap: number, tenantCap: number,
): boolean {
  const byTenant = new Map<string, number>();
  const byEndpoint = new Map<string, number>();
  let total = 0;
  for (const { sub, lim } of asks) {
    if (lim <= 0) continue;
    total += lim;
    byTenant.set(tenantOf(sub), (byTenant.get(tenantOf(sub)) ?? 0) + lim);
    const endpoint = `${tenantOf(sub)} ${endpointOf(sub.url)}`;
    byEndpoint.set(endpoint, (byEndpoint.get(endpoint) ?? 0) + lim);
  }
  const within = (asked: Map<string, number>, cap: number) => [...asked].every(([key, n]) => n <= cap - (busy.get(key) ?? 0));
  return total <= limit && within(byTenant, tenantCap) && within(byEndpoint, endpointCap);
}

/** Adds `value` to the list `map` holds under `key`. */
function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** Round-robin merge: the first of each list, then the second of each, and so on. */
function interleave<T>(lists: T[][]): T[] {
  const merged: T[] = [];
  const total = lists.reduce((n, list) => n + list.length, 0);
  for (let i = 0; merged.length < total; i += 1) {
    for (const list of lists) if (i < list.length) merged.push(list[i] as T);
  }
  return merged;
}
