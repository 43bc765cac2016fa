// Group commit in isolation: one commit per event-loop turn, results split back
// to each caller, failures reach every caller of the failed batch.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createGroupCommitter } from '../../src/log/group-commit';

function recordingStore() {
  const commits: string[][] = [];
  let last = 0n;
  return {
    commits,
    commit: (payloads: readonly string[]) => {
      commits.push([...payloads]);
      const first = last + 1n;
      last += BigInt(payloads.length);
      return first;
    },
  };
}

test('appends from one turn share one commit and get their own contiguous indexes', async () => {
  const store = recordingStore();
  const gc = createGroupCommitter(store.commit);
  const results = await Promise.all([gc.submit(['a']), gc.submit(['b', 'c']), gc.submit(['d'])]);
  assert.deepEqual(store.commits, [['a', 'b', 'c', 'd']]);
  assert.deepEqual(results, [[1n], [2n, 3n], [4n]]);
  // The next turn is the next commit.
  assert.deepEqual(await gc.submit(['e']), [5n]);
  assert.equal(store.commits.length, 2);
});

test('appends arriving while an async commit is in flight form the next batch', async () => {
  const batches: string[][] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let last = 0n;
  const gc = createGroupCommitter(async (payloads) => {
    batches.push([...payloads]);
    if (batches.length === 1) await gate; // hold the first commit open
    const first = last + 1n;
    last += BigInt(payloads.length);
    return first;
  });
  const first = gc.submit(['a']);
  await new Promise<void>((r) => setImmediate(r)); // the first batch is now committing
  const later = [gc.submit(['b']), gc.submit(['c'])];
  await new Promise<void>((r) => setImmediate(r));
  assert.equal(batches.length, 1, 'nothing else commits while the first commit is open');
  release();
  assert.deepEqual(await first, [1n]);
  assert.deepEqual(await Promise.all(later), [[2n], [3n]]);
  assert.deepEqual(batches, [['a'], ['b', 'c']]);
});

test('a failed commit rejects every caller of that batch and the next batch still commits', async () => {
  let fail = true;
  const gc = createGroupCommitter(() => {
    if (fail) throw new Error('disk full');
    return 1n;
  });
  const failed = await Promise.allSettled([gc.submit(['a']), gc.submit(['b'])]);
  assert.deepEqual(
    failed.map((r) => r.status === 'rejected' && (r.reason as Error).message),
    ['disk full', 'disk full'],
  );
  fail = false;
  assert.deepEqual(await gc.submit(['c']), [1n]);
});

test('flushNow commits what is queued without waiting for the next turn', async () => {
  const store = recordingStore();
  const gc = createGroupCommitter(store.commit);
  const pending = gc.submit(['a']);
  await gc.flushNow();
  assert.deepEqual(store.commits, [['a']]);
  assert.deepEqual(await pending, [1n]);
});

test('maxBatch splits a burst into several commits of whole appends, in order', async () => {
  const store = recordingStore();
  const gc = createGroupCommitter(store.commit, 3);
  const results = await Promise.all([
    gc.submit(['a', 'b']),
    gc.submit(['c']),
    gc.submit(['d', 'e']),
    gc.submit(['f', 'g', 'h', 'i']),
  ]);
  assert.deepEqual(store.commits, [
    ['a', 'b', 'c'],
    ['d', 'e'],
    ['f', 'g', 'h', 'i'],
  ]);
  assert.deepEqual(results, [[1n, 2n], [3n], [4n, 5n], [6n, 7n, 8n, 9n]]);
});

test('flushNow drains every queued batch', async () => {
  const store = recordingStore();
  const gc = createGroupCommitter(store.commit, 1);
  const pending = [gc.submit(['a']), gc.submit(['b']), gc.submit(['c'])];
  await gc.flushNow();
  assert.deepEqual(store.commits, [['a'], ['b'], ['c']]);
  assert.deepEqual(await Promise.all(pending), [[1n], [2n], [3n]]);
});

test('a commit is told when its oldest append arrived, so time spent queued behind a slow commit counts', async (t) => {
  // Only Date is mocked (setImmediate, which batches, runs for real): 'b' and 'c' arrive at distinct, known times.
  t.mock.timers.enable({ apis: ['Date'], now: 1_000 });
  const seen: Array<{ payloads: string[]; since: number }> = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let last = 0n;
  const gc = createGroupCommitter(async (payloads, since) => {
    seen.push({ payloads: [...payloads], since });
    if (seen.length === 1) await gate;
    const first = last + 1n;
    last += BigInt(payloads.length);
    return first;
  });
  const first = gc.submit(['a']);
  await new Promise((r) => setImmediate(r)); // 'a' is in flight
  t.mock.timers.tick(10);
  const second = gc.submit(['b']);
  t.mock.timers.tick(30); // 'b' waits behind 'a'
  const third = gc.submit(['c']);
  release();
  assert.deepEqual(await Promise.all([first, second, third]), [[1n], [2n], [3n]]);
  assert.deepEqual(
    seen.map((s) => s.payloads),
    [['a'], ['b', 'c']],
  );
  assert.equal(seen[0]!.since, 1_000);
  assert.equal(seen[1]!.since, 1_010, "the batch's time is its oldest append's ('b'), not the newest's or the flush's");
});
