// The views' persistent sharded map: every version is frozen, an update never
// changes an older version, and it agrees with a plain Map fed the same changes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  type Change,
  emptySharded,
  type Sharded,
  shardedApply,
  shardedGet,
  shardedValues,
} from '../../src/materializer/views/sharded-map';

const contents = (s: Sharded<{ v: number }>) => new Map(shardedValues(s).map((x) => [String(x.v), x]));

test('agrees with a Map, keeps every older version as it was, and shares what an update did not touch', () => {
  const change = fc.tuple(fc.integer({ min: 0, max: 400 }), fc.boolean());
  fc.assert(
    fc.property(fc.array(fc.array(change, { maxLength: 40 }), { maxLength: 12 }), (batches) => {
      let state = emptySharded<{ v: number }>();
      const model = new Map<string, { v: number }>();
      const versions: [Sharded<{ v: number }>, Map<string, { v: number }>][] = [[state, new Map()]];
      for (const batch of batches) {
        const changes: Change<{ v: number }>[] = batch.map(([k, put]) => [String(k), put ? { v: k } : undefined]);
        const next = shardedApply(state, changes);
        for (const [k, v] of changes) {
          if (v) model.set(k, v);
          else model.delete(k);
        }
        // Nothing changed (deletes of absent keys only): the very same version.
        if (changes.every(([k, v]) => v === undefined && !contents(state).has(k))) assert.equal(next, state);
        // Rows no change landed in are the old version's rows.
        const shared = next.filter((row, r) => row === state[r]).length;
        assert.ok(shared >= next.length - changes.length);
        state = next;
        versions.push([state, new Map(model)]);
      }
      for (const [version, expected] of versions) {
        assert.deepEqual(contents(version), expected);
        for (const [k, v] of expected) assert.equal(shardedGet(version, k), v);
      }
    }),
    { numRuns: 60 },
  );
});

test('every version is immutable: outer array and rows frozen, buckets refuse changes', () => {
  const state = shardedApply(emptySharded<{ v: number }>(), [['a', { v: 1 }]]);
  assert.ok(Object.isFrozen(state));
  for (const row of state) {
    assert.ok(Object.isFrozen(row));
    for (const bucket of row) {
      assert.throws(() => (bucket as Map<string, unknown>).set('x', 1), TypeError);
      assert.throws(() => (bucket as Map<string, unknown>).delete('a'), TypeError);
      assert.throws(() => (bucket as Map<string, unknown>).clear(), TypeError);
    }
  }
  // Emptied again: the key is gone from the new version and still in the old one.
  const emptied = shardedApply(state, [['a', undefined]]);
  assert.equal(shardedGet(emptied, 'a'), undefined);
  assert.deepEqual(shardedGet(state, 'a'), { v: 1 });
});
