import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, onTestFinished } from 'vitest';
import type { Clock } from '../../src/wire/clock.js';
import type { EngineContext } from '../../src/engine/context.js';
import { isSvcError, type ErrorCode, type SvcError } from '../../src/wire/errors.js';
import type { EventSink } from '../../src/engine/context.js';
import type { DomainEvent } from '../../src/engine/events.js';
import type { DeliveryOutcome, DeliveryRequest } from '../../src/network/driver.js';
import { SimDriver, type SimState } from '../../src/network/sim-driver.js';
import type { Db } from '../../src/store/database.js';
import { createSimStore } from '../../src/store/sim-store.js';
import type { SqlExecutor } from '../../src/store/sql.js';

/** Runs `fn` (and awaits what it returns), expects an SvcError with `code`, and returns it for further checks. */
export async function expectSvcError(fn: () => unknown, code: ErrorCode): Promise<SvcError> {
  try {
    await fn();
  } catch (error) {
    if (!isSvcError(error)) throw error;
    expect(error.code).toBe(code);
    return error;
  }
  throw new Error(`expected SvcError ${code}, but nothing was thrown`);
}

/** An event sink that records every event it is handed (in or out of a committed transaction). */
export function recordingSink(): { events: DomainEvent[]; types: () => string[]; clear: () => void; parts: (ctx: EngineContext) => EventSink } {
  const events: DomainEvent[] = [];
  return {
    events,
    types: () => events.map((e) => e.type),
    clear: () => void events.splice(0),
    parts: () => ({ emit: async (_tx, event) => void events.push(event) }),
  };
}

export const countRows = (db: Db, table: string): number =>
  (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

/** The sum of a workspace's credit ledger, which must always equal its quota_used. */
export const ledgerSum = (db: Db, workspaceId: number): number =>
  (db.prepare('SELECT COALESCE(SUM(delta), 0) AS s FROM credit_ledger WHERE workspace_id = ?').get(workspaceId) as { s: number }).s;

export const ledgerRows = (db: Db, messageId: number, reason: string): number =>
  (db.prepare('SELECT COUNT(*) AS n FROM credit_ledger WHERE message_id = ? AND reason = ?').get(messageId, reason) as { n: number }).n;

export const messageIdOf = (db: Db, uid: string): number =>
  (db.prepare('SELECT id FROM messages WHERE uid = ?').get(uid) as { id: number }).id;

/** A fresh temporary directory, removed after the current test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-engine-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The sim driver's shared state on `sql` (e.g. `t.ctx.sql`), as createEngine builds it. */
export const simStateOf = (sql: SqlExecutor, clock: Clock): SimState => {
  const sim = createSimStore(sql);
  return {
    handOverRun: (run) => sim.handOverRun(run),
    now: () => clock.now(),
  };
};

/**
 * A sim driver whose process "dies" inside deliver: it delivers on the network (when `deliverFirst`)
 * and then never answers until `release` is called, as a killed process never would.
 */
export class StalledSim extends SimDriver {
  readonly requests: DeliveryRequest[] = [];
  // One message at a time, each stalling in `deliver`.
  override deliverRun = undefined;
  private pending: Array<() => void> = [];

  constructor(sql: SqlExecutor, clock: Clock, private readonly deliverFirst: boolean) {
    super(simStateOf(sql, clock));
  }

  override async deliver(request: DeliveryRequest): Promise<DeliveryOutcome> {
    this.requests.push(request);
    const outcome = this.deliverFirst ? await super.deliver(request) : undefined;
    return new Promise((resolve) => this.pending.push(() => resolve(outcome ?? { status: 'failed', reason: 'network_error' })));
  }

  /** Lets every stalled delivery answer now (a zombie process waking up). */
  release(): void {
    for (const wake of this.pending.splice(0)) wake();
  }
}

/** A sim driver that remembers the order in which messages reached the network. */
export class RecordingSim extends SimDriver {
  readonly delivered: DeliveryRequest[] = [];

  constructor(sql: SqlExecutor, clock: Clock) {
    super(simStateOf(sql, clock));
  }

  // Under `deliver` and `deliverRun` alike.
  protected override async handOver(requests: readonly DeliveryRequest[]): Promise<DeliveryOutcome[]> {
    const outcomes = await super.handOver(requests);
    requests.forEach((request, i) => outcomes[i]!.status === 'sent' && this.delivered.push(request));
    return outcomes;
  }
}
