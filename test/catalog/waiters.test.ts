// Change waiters: woken only by the keys they watch, once, and forgotten on wake, abort and close.
// Index waiters: woken once the index passes theirs; one that leaves is forgotten without a scan of the rest.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createChangeWaiters, createIndexWaiters } from '../../src/catalog/waiters';
import { HubError } from '../../src/errors';

test('a waiter wakes once when one of its keys moves, and not for other keys', async () => {
  const w = createChangeWaiters(() => undefined);
  let woken = 0;
  const a = w.wait(['nodes', 'checks']).then(() => woken++);
  const b = w.wait(['service/web']).then(() => woken++);
  assert.equal(w.size(), 2);
  w.moved(['services', 'node/x']);
  await new Promise((r) => setImmediate(r));
  assert.equal(woken, 0, 'unrelated keys wake nothing');
  w.moved(['checks', 'nodes']);
  await a;
  assert.equal(woken, 1);
  assert.equal(w.size(), 1, 'the woken waiter is forgotten under both its keys');
  w.all();
  await b;
  assert.equal(w.size(), 0);
});

test('abort forgets the waiter; close rejects the rest and every later wait', async () => {
  let closed: HubError | undefined;
  const w = createChangeWaiters(() => closed);
  const ac = new AbortController();
  const aborted = w.wait(['nodes'], ac.signal);
  const pending = w.wait(['nodes']);
  ac.abort(new Error('client went away'));
  await assert.rejects(aborted, /client went away/);
  assert.equal(w.size(), 1);
  closed = new HubError('SHUTTING_DOWN', 'closing');
  w.rejectAll(closed);
  await assert.rejects(pending, /closing/);
  assert.equal(w.size(), 0);
  await assert.rejects(w.wait(['nodes']), /closing/);
});

test('index waiters wake once the index passes theirs, in any order of arrival, and not before', async () => {
  let index = 10n;
  const w = createIndexWaiters(
    () => index,
    () => undefined,
  );
  const woken: bigint[] = [];
  const all = [12n, 10n, 11n, 10n, 13n].map((after) => w.wait(after).then(() => woken.push(after)));
  await assert.doesNotReject(w.wait(9n), 'an index already passed resolves at once');
  assert.equal(w.size(), 5);
  index = 12n;
  w.advance(12n);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(woken.sort(), [10n, 10n, 11n]);
  assert.equal(w.size(), 2);
  index = 14n;
  w.advance(14n);
  await Promise.all(all);
  assert.equal(w.size(), 0);
});

/**
 * Elements of arrays visited by indexOf/splice/filter/findIndex while `run`
 * runs (the ways a list of waiters gets scanned). Node's own internals use
 * copies of these taken at startup, so only the code under test is counted.
 */
async function arrayElementsVisited(run: () => Promise<void>): Promise<number> {
  const proto = Array.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const originals = {
    indexOf: proto.indexOf!,
    splice: proto.splice!,
    filter: proto.filter!,
    findIndex: proto.findIndex!,
  };
  let visited = 0;
  proto.indexOf = function (this: unknown[], ...args: unknown[]) {
    const i = originals.indexOf.apply(this, args) as number;
    visited += i < 0 ? this.length : i + 1;
    return i;
  };
  proto.splice = function (this: unknown[], ...args: unknown[]) {
    visited += Math.max(0, this.length - Number(args[0] ?? 0));
    return originals.splice.apply(this, args);
  };
  proto.filter = function (this: unknown[], ...args: unknown[]) {
    visited += this.length;
    return originals.filter.apply(this, args);
  };
  proto.findIndex = function (this: unknown[], ...args: unknown[]) {
    visited += this.length;
    return originals.findIndex.apply(this, args);
  };
  try {
    await run();
  } finally {
    Object.assign(proto, originals);
  }
  return visited;
}

test('waiters leaving cost no scan of the others: n leaving visit fewer than n list elements in all', async () => {
  const n = 5_000;
  const index = createIndexWaiters(
    () => 100n,
    () => undefined,
  );
  const changes = createChangeWaiters(() => undefined);
  const controllers = Array.from({ length: n }, () => new AbortController());
  const pending = controllers.flatMap((c, i) => [
    index.wait(100n + BigInt(i % 3), c.signal).catch(() => undefined),
    changes.wait(['nodes', `node/${i % 7}`], c.signal).catch(() => undefined),
  ]);
  assert.equal(index.size(), n);
  assert.equal(changes.size(), n);
  // The first to arrive leave last: a list kept in arrival order is scanned furthest then.
  const visited = await arrayElementsVisited(async () => {
    for (const c of controllers.reverse()) c.abort(new Error('client went away'));
    await Promise.all(pending);
  });
  assert.equal(index.size(), 0);
  assert.equal(changes.size(), 0);
  assert.ok(visited < n, `${n} waiters leaving visited ${visited} list elements`);
});
