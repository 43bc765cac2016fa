import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkInput, register, serviceInput } from './fixtures';
import { harness } from './harness';

test('an empty catalog answers every read with index 1', () => {
  const { sm } = harness();
  assert.equal(sm.lastIndex(), 0n);
  for (const r of [
    sm.nodes(),
    sm.node('x'),
    sm.nodeChecks('x'),
    sm.services(),
    sm.serviceInstances('x'),
    sm.serviceChecks('x'),
    sm.checksInState('any'),
    sm.configEntries('mesh'),
    sm.configEntry('mesh', 'mesh'),
    sm.serviceNames(),
  ]) {
    assert.equal(r.index, 1);
  }
});

test('per-service index moves only with changes visible in that service', () => {
  const h = harness();
  h.apply(register('n1', { service: serviceInput('a', 'alpha') })); // 1
  h.apply(register('n2', { service: serviceInput('b', 'beta') })); // 2
  assert.equal(h.sm.serviceInstances('alpha').index, 1);
  assert.equal(h.sm.serviceInstances('beta').index, 2);
  h.apply(register('n1', { checks: [checkInput('serf')] })); // 3: node-level check on n1
  assert.equal(h.sm.serviceInstances('alpha').index, 3);
  assert.equal(h.sm.serviceInstances('beta').index, 2);
  h.apply(register('n2', { nodeExtra: { Address: '9.9.9.9' } })); // 4: node of beta's instance
  assert.equal(h.sm.serviceInstances('beta').index, 4);
  assert.equal(h.sm.serviceChecks('beta').index, 4);
  assert.equal(h.sm.serviceInstances('alpha').index, 3);
  h.apply({ type: 'deregister', node: 'n1', serviceId: 'a' }); // 5
  assert.equal(h.sm.serviceInstances('alpha').index, 5, 'a deregistered service keeps its deletion index');
  assert.deepEqual(h.sm.serviceInstances('alpha').value, []);
  assert.equal(h.sm.serviceInstances('never').index, 5, 'a never-seen name answers with the services table index');
  h.apply(register('n1', { checks: [checkInput('serf', { Status: 'critical' })] })); // 6
  assert.equal(h.sm.serviceInstances('alpha').index, 5);
});

test('node, table and config indexes', () => {
  const h = harness();
  h.apply(register('n1')); // 1
  h.apply(register('n2', { checks: [checkInput('c')] })); // 2
  assert.equal(h.sm.nodes().index, 2);
  assert.equal(h.sm.node('n1').index, 1);
  assert.equal(h.sm.nodeChecks('n2').index, 2);
  assert.equal(h.sm.checksInState('any').index, 2);
  assert.equal(h.sm.services().index, 1, 'no service yet: the table was never written');
  h.apply({ type: 'check-update', node: 'n2', checkId: 'c', status: 'critical', output: '' }); // 3
  assert.equal(h.sm.checksInState('critical').index, 3);
  assert.deepEqual(
    h.sm.checksInState('critical').value.map((c) => c.CheckID),
    ['c'],
  );
  assert.equal(h.sm.nodes().index, 2, 'a check change does not touch the nodes table');
  h.apply({ type: 'deregister', node: 'n1' }); // 4
  assert.equal(h.sm.node('n1').index, 4);
  assert.equal(h.sm.nodes().index, 4);
  h.apply({ type: 'config-set', entry: { Kind: 'service-defaults', Name: 'a' } }); // 5
  h.apply({ type: 'config-set', entry: { Kind: 'service-resolver', Name: 'b' } }); // 6
  assert.equal(h.sm.configEntries('service-defaults').index, 5);
  assert.equal(h.sm.configEntry('service-defaults', 'a').index, 5);
  assert.equal(h.sm.configEntry('service-defaults', 'zzz').index, 5, 'unknown name falls back to its kind');
  assert.equal(h.sm.configEntries('mesh').index, 6, 'unknown kind falls back to the config table');
  h.apply({ type: 'config-delete', kind: 'service-defaults', name: 'a' }); // 7
  assert.equal(h.sm.configEntry('service-defaults', 'a').index, 7);
});

test('a refused command moves lastIndex but no blocking index', () => {
  const h = harness();
  h.apply(register('n1', { service: serviceInput('s', 's') }));
  h.apply({ type: 'check-update', node: 'n1', checkId: 'nope', status: 'passing', output: '' });
  assert.equal(h.sm.lastIndex(), 2n);
  assert.equal(h.sm.serviceInstances('s').index, 1);
  assert.equal(h.sm.nodes().index, 1);
});

test('snapshot → restore into a fresh machine gives identical reads and snapshot', () => {
  const h = harness();
  h.apply(
    register('n1', {
      service: serviceInput('s', 's', { Tags: ['t'] }),
      checks: [checkInput('c', { ServiceID: 's', Definition: { TTL: '3s' } })],
    }),
  );
  h.apply({ type: 'config-set', entry: { Kind: 'mesh', Name: 'mesh' } });
  h.apply({ type: 'deregister', node: 'n0' });
  const copy = harness();
  copy.sm.restore(h.sm.snapshot());
  assert.equal(copy.sm.snapshot(), h.sm.snapshot());
  assert.equal(copy.sm.lastIndex(), 3n);
  assert.deepEqual(copy.sm.serviceInstances('s'), h.sm.serviceInstances('s'));
  assert.deepEqual(copy.sm.ttlCheckStates(), h.sm.ttlCheckStates());
  assert.deepEqual(copy.sm.services(), h.sm.services());
});
