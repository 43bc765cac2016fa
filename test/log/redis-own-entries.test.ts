// The window of own appends a Redis tail may take from memory (redis-tail.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createOwnEntries } from '../../src/log/redis-tail';

const indexes = (entries: { index: bigint }[]) => entries.map((e) => e.index);

test('own entries: contiguous runs across batches, nothing across a gap, oldest batches dropped past the bounds', () => {
  const own = createOwnEntries(5, 1_000);
  own.add(3n, ['c', 'd']);
  own.add(5n, ['e']);
  own.add(8n, ['h', 'i']); // 6 and 7 belong to another writer
  assert.deepEqual(indexes(own.from(3n, 10)), [3n, 4n, 5n]);
  assert.deepEqual(
    own.from(4n, 10).map((e) => e.payload),
    ['d', 'e'],
  );
  assert.deepEqual(indexes(own.from(4n, 1)), [4n]);
  assert.deepEqual(own.from(6n, 10), [], 'not ours: the tail must read Redis');
  assert.deepEqual(indexes(own.from(8n, 10)), [8n, 9n]);
  assert.deepEqual(own.from(10n, 10), []);
  assert.ok(Object.isFrozen(own.from(3n, 1)[0]));
  own.add(10n, ['j']); // six entries: the oldest batch goes
  assert.deepEqual(own.from(3n, 10), []);
  assert.deepEqual(indexes(own.from(5n, 10)), [5n]);
  const big = createOwnEntries(100, 3);
  big.add(1n, ['ab']);
  big.add(2n, ['cd']); // 4 characters: the first goes
  assert.deepEqual(big.from(1n, 10), []);
  assert.deepEqual(indexes(big.from(2n, 10)), [2n]);
});
