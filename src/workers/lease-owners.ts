import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Clock } from '../wire/clock.js';

/** A lease owner name that tells which process holds the lease: `host:pid:random`. */
export const processOwner = (): string => `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

/**
 * True when `owner` names a process on this host that no longer exists. Owners of other hosts, of this
 * process, or in another format are never judged dead: their leases simply run out.
 */
export function isDeadLocalOwner(owner: string): boolean {
  const [host, pidText] = owner.split(':');
  if (host !== hostname() || pidText === undefined || !/^\d+$/.test(pidText)) return false;
  const pid = Number(pidText);
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Where a kind of lease is kept: who holds live ones, and how to let one owner's leases run out now. */
export interface LeaseTable {
  liveOwners(now: number): Promise<string[]> | string[];
  expireOwner(owner: string, now: number): Promise<void> | void;
}

/**
 * After a crash, a restarted process would otherwise wait out every lease the dead one held (up to the lease
 * length) before retrying that work, and a receiver's in-flight cap would stay full meanwhile. A lease whose
 * owner was a process on this host that is gone is expired at once instead. Runs at most every `everyMs`.
 */
export function createDeadLeaseReaper(table: LeaseTable, clock: Clock, everyMs = 2000): () => Promise<void> {
  let nextAt = Number.NEGATIVE_INFINITY;
  return async () => {
    const now = clock.now();
    if (now < nextAt) return;
    nextAt = now + everyMs;
    for (const owner of await table.liveOwners(now)) {
      if (isDeadLocalOwner(owner)) await table.expireOwner(owner, now);
    }
  };
}
