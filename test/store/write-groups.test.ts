/**
 * The group-commit queue (src/store/group-commit.ts) on its own, with a commit whose end the test decides: the
 * writes of one turn share a batch, and after a batch the writers it answered are waited for (at most
 * `lingerMs`) when others are already queued, so steady writers make one batch per commit, not two taking turns.
 */
import { describe, expect, it } from 'vitest';
import { settle, WriteGroups, type GroupedWrite } from '../../src/store/group-commit.js';

const LINGER_MS = 200;

/** A queue whose batches are recorded by size and committed when the test calls `finish()`. */
function recordingGroups(lingerMs = LINGER_MS) {
  const batches: number[] = [];
  let finish: () => void = () => undefined;
  const groups = new WriteGroups({
    maxBatch: 64,
    lingerMs,
    commit: (batch: GroupedWrite[]) => {
      batches.push(batch.length);
      return new Promise<void>((resolve) => {
        finish = () => {
          settle(batch, batch.map(() => ({ ok: true, value: undefined })));
          resolve();
        };
      });
    },
  });
  const write = () => groups.push(async () => undefined);
  return { batches, write, finish: () => finish() };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('WriteGroups', () => {
  it('the writes of one turn share one batch', async () => {
    const q = recordingGroups();
    const done = [q.write(), q.write(), q.write()];
    await nextTurn();
    expect(q.batches).toEqual([3]);
    q.finish();
    await Promise.all(done);
  });

  it('after a batch, waits for the writers it answered when others are queued: one batch of all, not two taking turns', async () => {
    const q = recordingGroups();
    // 4 writers in the first batch; 2 more arrive while it commits.
    const first = [q.write(), q.write(), q.write(), q.write()];
    await nextTurn();
    const queued = [q.write(), q.write()];
    q.finish();
    await Promise.all(first);
    // The 4 answered writers come back a moment later (two turns): the 2 queued writes waited for them.
    await nextTurn();
    await nextTurn();
    expect(q.batches).toEqual([4]);
    const again = [q.write(), q.write(), q.write(), q.write()];
    await nextTurn();
    expect(q.batches).toEqual([4, 6]);
    q.finish();
    await Promise.all([...queued, ...again]);
  });

  it('waits at most lingerMs for writers who do not come back', async () => {
    const q = recordingGroups();
    const first = [q.write(), q.write(), q.write()];
    await nextTurn();
    const queued = q.write();
    q.finish();
    await Promise.all(first);
    const waitedFrom = Date.now();
    await sleep(LINGER_MS / 2);
    expect(q.batches).toEqual([3]);
    await sleep(LINGER_MS);
    expect(q.batches).toEqual([3, 1]);
    expect(Date.now() - waitedFrom).toBeGreaterThanOrEqual(LINGER_MS - 5);
    q.finish();
    await queued;
  });

  it('a lone writer never waits: with nothing queued during its batch, its next write starts at once', async () => {
    const q = recordingGroups(60_000);
    const first = q.write();
    await nextTurn();
    q.finish();
    await first;
    // Written before the queue has even seen its batch end (as a caller's next await does): still no wait.
    const second = q.write();
    await nextTurn();
    await nextTurn();
    expect(q.batches).toEqual([1, 1]);
    q.finish();
    await second;
  });
});
