/**
 * The way to a pooled PostgreSQL connection. Waiting for a connection other requests hold is not an outage:
 * a caller waits in line up to a deadline and is then told the server is busy (429 with Retry-After). Only a
 * database that does not answer a new connection is "unavailable" (503). node-postgres' own timeout cannot
 * tell the two apart (it covers the wait in line and the connect alike), so the line is kept here and the
 * pool is only asked for a connection when one is free or may be opened.
 */
import type pg from 'pg';
import { SvcError } from '../../wire/errors.js';
import { isUnavailable, unavailable } from './pg-errors.js';

export interface PoolGateOptions {
  /** Connections at most: the pool's `max`. */
  size: number;
  /** How long a caller waits in line for a connection before it is refused as busy. */
  waitMs: number;
}

/** A caller that waited `waitMs` in line: 429, to come back in a second. */
const poolBusy = (waitMs: number): SvcError =>
  new SvcError('rate_limit_exceeded', `The server is busy: every database connection stayed in use for ${Math.round(waitMs / 100) / 10} s; nothing was written`, {
    hint: 'retry in a second, or add replicas or connections (SVC_DATABASE_POOL_SIZE)',
    details: { retryAfterSec: 1 },
  });

export class PoolGate {
  private inUse = 0;
  private readonly line: Array<{ go: () => void; timer: NodeJS.Timeout }> = [];

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: PoolGateOptions,
  ) {}

  /** A connection of the pool; give it back with `release`. */
  async acquire(): Promise<pg.PoolClient> {
    // A caller in line is handed the slot of the connection given back, so nobody arriving meanwhile jumps it.
    if (this.inUse >= this.options.size) await this.waitInLine();
    else this.inUse += 1;
    try {
      return await this.pool.connect();
    } catch (error) {
      this.free();
      throw unavailable(error);
    }
  }

  /** Gives `client` back; `broken` (a connection-level failure) closes it instead of pooling it. */
  release(client: pg.PoolClient, broken?: Error): void {
    client.release(broken);
    this.free();
  }

  /** One autocommit statement on a connection of the pool. */
  async query(config: pg.QueryConfig): Promise<pg.QueryResult> {
    const client = await this.acquire();
    let broken: Error | undefined;
    try {
      return await client.query(config);
    } catch (error) {
      if (isUnavailable(error)) broken = error as Error;
      throw error;
    } finally {
      this.release(client, broken);
    }
  }

  /** Callers waiting in line now (for the metrics and tests). */
  get waiting(): number {
    return this.line.length;
  }

  private waitInLine(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const entry = {
        go: () => {
          clearTimeout(entry.timer);
          resolve();
        },
        timer: setTimeout(() => {
          const at = this.line.indexOf(entry);
          if (at >= 0) this.line.splice(at, 1);
          reject(poolBusy(this.options.waitMs));
        }, this.options.waitMs),
      };
      this.line.push(entry);
    });
  }

  private free(): void {
    const next = this.line.shift();
    if (next === undefined) this.inUse -= 1;
    else next.go();
  }
}
