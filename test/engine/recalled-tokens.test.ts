/**
 * A send (or a message received through the sim API) let in by a token from memory (`authenticate(token, {
 * recall: true })`, PostgreSQL) checks the token again in its batch: a token another process revoked fails the next send, on both stores, and writes nothing of it.
 * SQLite never answers from memory (its lookups cost no round trip), so there the lookup itself refuses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { openDatabase } from '../../src/store/database.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import type { SqlDatabase } from '../../src/store/sql-database.js';
import { inWriteTransaction } from '../../src/engine/context.js';
import { hashToken, issueToken } from '../../src/engine/tokens.js';
import { MAX_RECALLED, RECALL_MS, RecalledTokens } from '../../src/engine/recalled-tokens.js';
import { SvcError } from '../../src/wire/errors.js';
import { query } from '../../src/store/sql.js';
import { createMigratedTestDatabase, STORES, type Store } from '../support/store-engine.js';
import { testEngine } from '../support/test-engine.js';

const COUNT_MESSAGES = query<{ n: number }>('SELECT COUNT(*) AS n FROM messages');

/** Two engines (two processes, or two replicas) on one database of `store`, sharing the Local workspace. */
async function twoEngines(store: Store) {
  let open: () => SqlDatabase;
  let drop: () => Promise<void>;
  if (store === 'postgres') {
    const created = await createMigratedTestDatabase('recalled_tokens');
    open = () => new PgDatabase({ url: created.url, poolSize: 4 });
    drop = () => created.drop();
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'svc-recalled-'));
    const file = join(dir, 'svc.db');
    open = () => new SqliteDatabase(openDatabase(file));
    drop = async () => rmSync(dir, { recursive: true, force: true });
  }
  const a = await testEngine({ database: open() });
  const b = await testEngine({ database: open() });
  const messages = async () => (await a.ctx.sql.get(COUNT_MESSAGES))!.n;
  return {
    a,
    b,
    messages,
    /** A new token for `workspaceId`, issued by engine B: every earlier one is revoked. */
    rotateOnB: (workspaceId: number) => inWriteTransaction(b.ctx, (tx) => issueToken(tx.stores.workspaces, workspaceId, tx.clock.now())),
    close: async () => {
      await a.engine.close();
      await b.engine.close();
      await drop();
    },
  };
}

const refusedUnauthorized = (error: unknown) => error instanceof SvcError && error.code === 'unauthorized';

describe.each(STORES)('a token revoked by another process, on %s', (store) => {
  let engines: Awaited<ReturnType<typeof twoEngines>> | undefined;
  afterEach(async () => {
    await engines?.close();
    engines = undefined;
  });

  it('a send or received message with the old token is refused and writes nothing; the new token sends', async () => {
    engines = await twoEngines(store);
    const { a, messages, rotateOnB } = engines;
    const old = a.local.token;
    const ws = a.local.workspace_id;
    expect(await a.engine.authenticate(old, { recall: true })).toBe(ws);
    await a.engine.workspace(ws, { token: old }).sendToPhone({ phone: '+14155550101', text: 'before' });
    const before = await messages();

    const fresh = await rotateOnB(ws);
    const letIn = await a.engine.authenticate(old, { recall: true });
    // PostgreSQL lets the old token in from memory; the send's batch refuses it. SQLite's lookup refuses it.
    expect(letIn).toBe(store === 'postgres' ? ws : null);
    if (letIn !== null) {
      const refusal = await a.engine.workspace(letIn, { token: old }).sendToPhone({ phone: '+14155550101', text: 'after' }).catch((error: unknown) => error);
      expect(refusedUnauthorized(refusal)).toBe(true);
      // A message received through the sim API with it likewise.
      const received = await a.engine.sim(letIn, { token: old }).receive({ to: a.ctx.config.localSenderPhone, from: '+14155550101', text: 'after' }).catch((error: unknown) => error);
      expect(refusedUnauthorized(received)).toBe(true);
      // Nor does a refused one read anything for it first (which account the workspace has).
      for (const invalid of [{ from: 'not a phone', text: 'x' }, { from: '+14155550101', text: '' }]) {
        const early = await a.engine.sim(letIn, { token: old }).receive({ to: a.ctx.config.localSenderPhone, ...invalid }).catch((error: unknown) => error);
        expect(refusedUnauthorized(early)).toBe(true);
      }
    }
    expect(await messages()).toBe(before);
    // Refused once, the token is forgotten: the next request looks it up and is refused there.
    expect(await a.engine.authenticate(old, { recall: true })).toBeNull();

    expect(await a.engine.authenticate(fresh, { recall: true })).toBe(ws);
    await a.engine.workspace(ws, { token: fresh }).sendToPhone({ phone: '+14155550101', text: 'new token' });
    expect(await messages()).toBe(before + 1);
  });

  it.runIf(store === 'postgres')('in one batch, only the send whose token was revoked is refused', async () => {
    engines = await twoEngines(store);
    const { a, messages, rotateOnB } = engines;
    const local = a.local;
    const other = await a.engine.admin.createWorkspace({ name: 'Other', quota: 10 });
    await a.engine.sim(other.workspace_id).connect({ phone: '+15550007777' });
    for (const { token } of [local, other]) expect(await a.engine.authenticate(token, { recall: true })).not.toBeNull();
    await rotateOnB(local.workspace_id);
    const before = await messages();

    // Asked for in one turn: one batch, one transaction.
    const [revoked, live] = await Promise.allSettled([
      a.engine.workspace(local.workspace_id, { token: local.token }).sendToPhone({ phone: '+14155550102', text: 'revoked' }),
      a.engine.workspace(other.workspace_id, { token: other.token }).sendToPhone({ phone: '+14155550102', text: 'live' }),
    ]);
    expect(live.status).toBe('fulfilled');
    expect(revoked.status === 'rejected' && refusedUnauthorized(revoked.reason)).toBe(true);
    expect(await messages()).toBe(before + 1);
  });
});

describe('RecalledTokens', () => {
  it('lets a token in for RECALL_MS after the database last found it live, then asks again', () => {
    const clock = new FakeClock();
    const tokens = new RecalledTokens(() => clock.now());
    const hash = hashToken('svc_recalled');
    expect(tokens.recall(hash)).toBeUndefined();
    tokens.confirm(hash, 7);
    clock.advance(RECALL_MS - 1);
    expect(tokens.recall(hash)).toBe(7);
    clock.advance(1);
    expect(tokens.recall(hash)).toBeUndefined();
    tokens.confirm(hash, 7);
    tokens.forget(hash);
    expect(tokens.recall(hash)).toBeUndefined();
  });

  it(`keeps at most ${MAX_RECALLED} tokens, dropping the one confirmed longest ago`, () => {
    const clock = new FakeClock();
    const tokens = new RecalledTokens(() => clock.now());
    const hashes = Array.from({ length: MAX_RECALLED + 1 }, (_, n) => hashToken(`svc_${n}`));
    tokens.confirm(hashes[0]!, 1);
    for (const hash of hashes.slice(1, MAX_RECALLED)) tokens.confirm(hash, 2);
    tokens.confirm(hashes[0]!, 1); // confirmed again: now the newest
    tokens.confirm(hashes[MAX_RECALLED]!, 3);
    expect(tokens.recall(hashes[0]!)).toBe(1);
    expect(tokens.recall(hashes[1]!)).toBeUndefined();
    expect(tokens.recall(hashes[MAX_RECALLED]!)).toBe(3);
  });
});
