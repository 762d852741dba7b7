import type { ClaimedDelivery } from '../../store/webhooks/delivery-store.js';

/**
 * PostgreSQL: deliveries leased to this process's webhook worker by the statement that writes them (migration
 * 22), so they skip the worker's claim: a wake-up, a transaction of two round trips and the wait for the pass
 * under way (about 2-3 ms of a webhook's 7-11 at p50 under the project's mixed load, measured 2026-11-30). SQLite's
 * claim costs a fraction of a millisecond, so it keeps claiming. One shared object per engine; the worker fills
 * in `taker` while it runs.
 */
export interface DeliveryHandOff {
  taker?: DeliveryTaker | undefined;
}

export interface DeliveryTaker {
  owner: string;
  leaseMs: number;
  subscriptionCap: number;
  /** Applied to a tenant's leases over all its subscriptions: the smaller of its tenant and receiver caps. */
  tenantCap: number;
  /** Sets aside up to `wanted` of the worker's slots for a transaction's deliveries; how many (0: none). */
  reserve(wanted: number): number;
  /** After the COMMIT: the deliveries leased; the slots set aside and not used are free again. */
  give(claimed: ClaimedDelivery[], reserved: number): void;
  /** The transaction did not commit: the slots set aside are free again. */
  release(reserved: number): void;
}
