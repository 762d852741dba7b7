/**
 * The group-commit queue (src/store/group-commit.ts) on its own, with a commit whose end the test decides: the
 * writes of one turn share a batch; with `alternate` (PostgreSQL) concurrent writers split into two halves that
 * take turns, the next half starting before the committed half is answered.
 */
import { describe, expect, it } from 'vitest';
import { WriteGroups, type GroupedWrite } from '../../src/store/group-commit.js';

/**
 * A queue whose batches are recorded by size and committed, oldest first, by `finish()`. Each write resolves to
 * the number of batches started by the time its writer was answered.
 */
function recordingGroups(alternate: boolean) {
  const batches: number[] = [];
  const pending: { resolve: (outcomes: { ok: boolean; value?: unknown; error?: unknown }[]) => void; batch: GroupedWrite[] }[] = [];
  const groups = new WriteGroups({
    maxBatch: 64,
    alternate,
    commit: (batch: GroupedWrite[]) => {
      batches.push(batch.length);
      return new Promise((resolve) => pending.push({ resolve: resolve as never, batch }));
    },
  });
  const write = () => groups.push(async () => undefined).then(() => batches.length);
  const finish = (failure?: Error) => {
    const { resolve, batch } = pending.shift()!;
    resolve(batch.map(() => (failure === undefined ? { ok: true, value: undefined } : { ok: false, error: failure })));
  };
  return { sizes: () => [...batches], write, finish };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const writes = (q: { write: () => Promise<unknown> }, n: number) => Array.from({ length: n }, () => q.write());

describe('WriteGroups', () => {
  it('the writes of one turn share one batch', async () => {
    const q = recordingGroups(false);
    const done = writes(q, 3);
    await nextTurn();
    expect(q.sizes()).toEqual([3]);
    q.finish();
    await Promise.all(done);
  });

  it('without alternate, the writes queued during a batch all go in the next one', async () => {
    const q = recordingGroups(false);
    const first = writes(q, 2);
    await nextTurn();
    const queued = writes(q, 5);
    q.finish();
    await Promise.all(first);
    await nextTurn();
    expect(q.sizes()).toEqual([2, 5]);
    q.finish();
    await Promise.all(queued);
  });

  it('alternate: 8 steady writers settle into halves of 4, the next half starting before the last is answered', async () => {
    const q = recordingGroups(true);
    // At first every write queued goes in (no writers known yet).
    const first = writes(q, 8);
    await nextTurn();
    q.finish();
    await Promise.all(first);
    // The 8 writers write again in one turn: half of them go now, half wait.
    const firstHalf = writes(q, 4);
    const secondHalf = writes(q, 4);
    await nextTurn();
    expect(q.sizes()).toEqual([8, 4]);
    q.finish();
    // When the first half's writers were answered, the second half was already in the database.
    expect(await Promise.all(firstHalf)).toEqual([3, 3, 3, 3]);
    expect(q.sizes()).toEqual([8, 4, 4]);
    // They write again while the second half commits, and start as it ends, before it is answered.
    const thirdHalf = writes(q, 4);
    q.finish();
    expect(await Promise.all(secondHalf)).toEqual([4, 4, 4, 4]);
    q.finish();
    await Promise.all(thirdHalf);
    expect(q.sizes()).toEqual([8, 4, 4, 4]);
  });

  it('alternate: a lone writer never waits and its batches stay whole', async () => {
    const q = recordingGroups(true);
    for (let n = 1; n <= 3; n += 1) {
      const one = q.write();
      await nextTurn();
      expect(q.sizes()).toEqual(Array(n).fill(1));
      q.finish();
      await one;
    }
  });

  it('a failed commit answers each of its writes with the failure, and the queue goes on', async () => {
    const q = recordingGroups(true);
    const failing = writes(q, 2).map((p) => p.catch((error: Error) => error.message));
    await nextTurn();
    const next = q.write();
    q.finish(new Error('lost the connection'));
    expect(await Promise.all(failing)).toEqual(['lost the connection', 'lost the connection']);
    expect(q.sizes()).toEqual([2, 1]);
    q.finish();
    await next;
  });
});
