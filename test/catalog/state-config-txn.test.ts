import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConfigEntryInput } from '../../src/catalog/commands';
import { Topic } from '../../src/catalog/types';
import { checkInput, nodeInput, register, serviceInput } from './fixtures';
import { eventLines, harness } from './harness';

const resolver = (name: string, extra: Record<string, unknown> = {}): ConfigEntryInput => ({
  Kind: 'service-resolver',
  Name: name,
  ...extra,
});

test('config-set upserts, emits on its kind topic with a default/default/<name> subject, unchanged emits nothing', () => {
  const h = harness();
  let r = h.apply({ type: 'config-set', entry: resolver('web', { ConnectTimeout: '5s' }) });
  assert.deepEqual(eventLines(r.events), ['ServiceResolver default/default/web upsert']);
  r = h.apply({ type: 'config-set', entry: resolver('web', { ConnectTimeout: '5s' }) });
  assert.deepEqual(r.events, []);
  r = h.apply({ type: 'config-set', entry: resolver('web', { ConnectTimeout: '9s' }) });
  const e = h.sm.configEntry('service-resolver', 'web').value!;
  assert.deepEqual([e.CreateIndex, e.ModifyIndex, e.ConnectTimeout], [1, 3, '9s']);
  r = h.apply({ type: 'config-set', entry: { Kind: 'mesh', Name: 'mesh', Partition: 'p1', Namespace: '' } });
  assert.equal(r.events[0]!.topic, Topic.MeshConfig);
  assert.equal(r.events[0]!.subject, 'p1/default/mesh');
});

test('config-set with cas: 0 only when absent, N only when ModifyIndex is N; mismatch is CONFLICT and changes nothing', () => {
  const h = harness();
  assert.equal(h.apply({ type: 'config-set', entry: resolver('a'), cas: 0 }).result.ok, true);
  const before = h.sm.configEntry('service-resolver', 'a');
  const r = h.apply({ type: 'config-set', entry: resolver('a', { X: 1 }), cas: 0 });
  assert.deepEqual([r.result.ok, r.result.error?.code, r.events.length], [false, 'CONFLICT', 0]);
  assert.deepEqual(h.sm.configEntry('service-resolver', 'a'), before);
  assert.equal(h.apply({ type: 'config-set', entry: resolver('a', { X: 1 }), cas: 7 }).result.error?.code, 'CONFLICT');
  assert.equal(h.apply({ type: 'config-set', entry: resolver('a', { X: 1 }), cas: 1 }).result.ok, true);
  assert.equal(h.sm.configEntry('service-resolver', 'a').value!.X, 1);
});

test('config-delete: absent is a no-op success; cas mismatch is CONFLICT; delete emits a delete event', () => {
  const h = harness();
  assert.equal(h.apply({ type: 'config-delete', kind: 'service-defaults', name: 'x' }).result.ok, true);
  h.apply({ type: 'config-set', entry: { Kind: 'service-defaults', Name: 'x', Protocol: 'http' } });
  assert.equal(
    h.apply({ type: 'config-delete', kind: 'service-defaults', name: 'x', cas: 1 }).result.error?.code,
    'CONFLICT',
  );
  const r = h.apply({ type: 'config-delete', kind: 'service-defaults', name: 'x', cas: 2 });
  assert.deepEqual(eventLines(r.events), ['ServiceDefaults default/default/x delete']);
  const p = r.events[0]!.payload;
  assert.ok(p.type === 'config-entry');
  assert.equal(p.entry.Protocol, 'http');
  assert.equal(h.sm.configEntry('service-defaults', 'x').value, undefined);
});

test('config: unknown kinds and empty names are refused with INVALID_ARGUMENT', () => {
  const h = harness();
  assert.equal(
    h.apply({ type: 'config-set', entry: { Kind: 'bogus' as never, Name: 'x' } }).result.error?.field,
    'Kind',
  );
  assert.equal(h.apply({ type: 'config-set', entry: { Kind: 'mesh', Name: '' } }).result.error?.field, 'Name');
  assert.equal(
    h.apply({ type: 'config-delete', kind: 'nope' as never, name: 'x' }).result.error?.code,
    'INVALID_ARGUMENT',
  );
});

test('configEntries lists one kind sorted by name', () => {
  const h = harness();
  for (const n of ['b', 'a', 'c']) h.apply({ type: 'config-set', entry: resolver(n) });
  h.apply({ type: 'config-set', entry: { Kind: 'service-defaults', Name: 'z' } });
  const list = h.sm.configEntries('service-resolver');
  assert.deepEqual(
    list.value.map((e) => e.Name),
    ['a', 'b', 'c'],
  );
  assert.equal(list.index, 3);
});

test('txn: all ops apply, set/cas ops return the written object, events cover the whole change', () => {
  const h = harness();
  const r = h.apply({
    type: 'txn',
    ops: [
      { op: 'node-set', node: nodeInput('n1') },
      { op: 'service-set', node: 'n1', service: serviceInput('s1', 'api') },
      { op: 'check-set', check: checkInput('c1', { Node: 'n1', ServiceID: 's1' }) },
      { op: 'node-delete', node: 'ghost' },
    ],
  });
  assert.equal(r.result.ok, true);
  const results = r.result.txnResults as Record<string, { ModifyIndex: number }>[];
  assert.deepEqual(
    results.map((x) => Object.keys(x)[0]),
    ['Node', 'Service', 'Check'],
  );
  assert.equal(results[2]!.Check!.ModifyIndex, 1);
  assert.deepEqual(eventLines(r.events), ['ServiceHealth api register s1@n1', 'ServiceList none register api']);
});

test('txn: one failing op rolls back everything and reports every error with its OpIndex', () => {
  const h = harness();
  h.apply(register('n1', { service: serviceInput('s1', 'api') }));
  const before = h.sm.snapshot();
  const r = h.apply({
    type: 'txn',
    ops: [
      { op: 'node-set', node: nodeInput('n2') },
      { op: 'service-cas', node: 'n1', service: serviceInput('s1', 'api', { Port: 1 }), index: 99 },
      { op: 'service-set', node: 'n3', service: serviceInput('x', 'x') },
      { op: 'check-set', check: checkInput('c', { Node: 'n1', ServiceID: 'missing' }) },
    ],
  });
  assert.equal(r.result.ok, false);
  assert.equal(r.result.error?.code, 'CONFLICT');
  assert.deepEqual(
    r.result.txnErrors?.map((e) => e.OpIndex),
    [1, 2, 3],
  );
  assert.match(r.result.txnErrors![0]!.What, /index is stale/);
  assert.deepEqual(r.events, []);
  assert.equal(h.sm.snapshot(), before.replace('"index":"1"', '"index":"2"'));
});

test('txn CAS ops: index 0 means absent; delete-cas needs the object and its ModifyIndex', () => {
  const h = harness();
  assert.equal(h.apply({ type: 'txn', ops: [{ op: 'node-cas', node: nodeInput('n1'), index: 0 }] }).result.ok, true);
  assert.equal(h.apply({ type: 'txn', ops: [{ op: 'node-cas', node: nodeInput('n1'), index: 0 }] }).result.ok, false);
  assert.equal(h.apply({ type: 'txn', ops: [{ op: 'node-delete-cas', node: 'ghost', index: 0 }] }).result.ok, false);
  assert.equal(
    h.apply({ type: 'txn', ops: [{ op: 'service-cas', node: 'n1', service: serviceInput('s', 's'), index: 0 }] }).result
      .ok,
    true,
  );
  assert.equal(
    h.apply({ type: 'txn', ops: [{ op: 'service-delete-cas', node: 'n1', serviceId: 's', index: 1 }] }).result.ok,
    false,
  );
  assert.equal(
    h.apply({ type: 'txn', ops: [{ op: 'service-delete-cas', node: 'n1', serviceId: 's', index: 4 }] }).result.ok,
    true,
  );
  assert.equal(
    h.apply({ type: 'txn', ops: [{ op: 'check-cas', check: checkInput('c', { Node: 'n1' }), index: 0 }] }).result.ok,
    true,
  );
  assert.equal(
    h.apply({ type: 'txn', ops: [{ op: 'check-delete-cas', node: 'n1', checkId: 'c', index: 7 }] }).result.ok,
    true,
  );
  assert.deepEqual(h.sm.nodeChecks('n1').value, []);
  assert.equal(h.apply({ type: 'txn', ops: [{ op: 'node-delete-cas', node: 'n1', index: 1 }] }).result.ok, true);
  assert.equal(h.sm.node('n1').value, undefined);
});

test('txn: later ops see earlier ops of the same txn', () => {
  const h = harness();
  const r = h.apply({
    type: 'txn',
    ops: [
      { op: 'node-set', node: nodeInput('n1') },
      { op: 'service-cas', node: 'n1', service: serviceInput('s', 's'), index: 0 },
      { op: 'service-delete-cas', node: 'n1', serviceId: 's', index: 1 },
    ],
  });
  assert.equal(r.result.ok, true);
  assert.deepEqual(eventLines(r.events), []);
  assert.deepEqual(h.sm.node('n1').value!.Services, []);
});

test('restore command replaces the state, emits nothing, and moves every blocking index to its entry', () => {
  const h = harness();
  h.apply(register('n1', { service: serviceInput('s', 'api') }));
  h.apply({ type: 'config-set', entry: resolver('r') });
  const snap = h.sm.snapshot();
  h.apply({ type: 'deregister', node: 'n1' });
  const r = h.apply({ type: 'restore', state: snap });
  assert.deepEqual([r.result.ok, r.events.length], [true, 0]);
  assert.equal(h.sm.serviceInstances('api').value.length, 1);
  assert.equal(h.sm.serviceInstances('api').index, 4);
  assert.equal(h.sm.configEntry('service-resolver', 'r').index, 4);
  assert.equal(h.sm.lastIndex(), 4n);
  const bad = h.apply({ type: 'restore', state: 'not json' });
  assert.deepEqual([bad.result.ok, bad.result.error?.field], [false, 'state']);
  assert.equal(h.sm.serviceInstances('api').value.length, 1);
});
