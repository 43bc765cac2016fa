// Change waiters: woken only by the keys they watch, once, and forgotten on wake, abort and close.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HubError } from '../../src/errors';
import { createChangeWaiters } from '../../src/catalog/waiters';

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
