import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Topic } from '../../src/catalog/types';
import { checkInput, register, serviceInput } from './fixtures';
import { eventLines, harness } from './harness';

test('a node change re-emits Register for every service on the node, in service ID order', () => {
  const h = harness();
  h.apply(register('n1', { service: serviceInput('b', 'Beta') }));
  h.apply(register('n1', { service: serviceInput('a', 'Alpha') }));
  const r = h.apply(register('n1', { nodeExtra: { Meta: { rack: 'r2' } } }));
  assert.deepEqual(eventLines(r.events), ['ServiceHealth alpha register a@n1', 'ServiceHealth beta register b@n1']);
  for (const e of r.events) {
    assert.equal(e.index, 3n);
    assert.ok(e.payload.type === 'service-health');
    assert.deepEqual(e.payload.csn.Node.Meta, { rack: 'r2' });
  }
});

test('a node-level check change re-emits every service; a service check change only its service', () => {
  const h = harness();
  h.apply(register('n1', { service: serviceInput('a', 'a') }));
  h.apply(register('n1', { service: serviceInput('b', 'b'), checks: [checkInput('bc', { ServiceID: 'b' })] }));
  let r = h.apply(register('n1', { checks: [checkInput('serf')] }));
  assert.deepEqual(eventLines(r.events), ['ServiceHealth a register a@n1', 'ServiceHealth b register b@n1']);
  r = h.apply(register('n1', { checks: [checkInput('bc', { ServiceID: 'b', Status: 'critical' })] }));
  assert.deepEqual(eventLines(r.events), ['ServiceHealth b register b@n1']);
  const p = r.events[0]!.payload;
  assert.ok(p.type === 'service-health');
  assert.deepEqual(
    p.csn.Checks.map((c) => c.CheckID),
    ['bc', 'serf'],
  );
});

test('a node with no services emits no health events on node or node-check changes', () => {
  const h = harness();
  assert.deepEqual(h.apply(register('n1', { checks: [checkInput('serf')] })).events, []);
  assert.deepEqual(h.apply({ type: 'deregister', node: 'n1' }).events, []);
});

test('health subjects are lower-cased service names', () => {
  const h = harness();
  const r = h.apply(register('n1', { service: serviceInput('x', 'MixedCase') }));
  assert.equal(r.events[0]!.subject, 'mixedcase');
  assert.ok(r.events[0]!.payload.type === 'service-health');
  assert.equal(r.events[0]!.payload.csn.Service.Service, 'MixedCase');
});

test('ServiceList: Register on the first instance of a name, Deregister when the last goes', () => {
  const h = harness();
  let r = h.apply(register('n1', { service: serviceInput('w1', 'web') }));
  assert.deepEqual(
    eventLines(r.events).filter((d) => d.startsWith('ServiceList')),
    ['ServiceList none register web'],
  );
  const list = r.events.find((e) => e.topic === Topic.ServiceList)!;
  assert.deepEqual(list.payload, {
    type: 'service-list',
    op: 'register',
    name: 'web',
    namespace: 'default',
    partition: 'default',
  });
  r = h.apply(register('n2', { service: serviceInput('w2', 'web') }));
  assert.deepEqual(eventLines(r.events), ['ServiceHealth web register w2@n2']);
  r = h.apply({ type: 'deregister', node: 'n1', serviceId: 'w1' });
  assert.deepEqual(eventLines(r.events), ['ServiceHealth web deregister w1@n1']);
  r = h.apply({ type: 'deregister', node: 'n2' });
  assert.deepEqual(eventLines(r.events), ['ServiceHealth web deregister w2@n2', 'ServiceList none deregister web']);
  assert.deepEqual(h.sm.serviceNames().value, []);
});

test('a service rename deregisters under the old name and registers under the new one', () => {
  const h = harness();
  h.apply(register('n1', { service: serviceInput('s1', 'old') }));
  const r = h.apply(register('n1', { service: serviceInput('s1', 'new') }));
  assert.deepEqual(eventLines(r.events), [
    'ServiceHealth old deregister s1@n1',
    'ServiceHealth new register s1@n1',
    'ServiceList none register new',
    'ServiceList none deregister old',
  ]);
  assert.deepEqual(h.sm.serviceInstances('old').value, []);
  assert.equal(h.sm.serviceInstances('new').value.length, 1);
});

test('Connect: native services and proxies (keyed by destination) get a ServiceHealthConnect copy', () => {
  const h = harness();
  let r = h.apply(register('n1', { service: serviceInput('api', 'API', { Connect: { Native: true } }) }));
  assert.deepEqual(eventLines(r.events).slice(0, 2), [
    'ServiceHealth api register api@n1',
    'ServiceHealthConnect api register api@n1',
  ]);
  r = h.apply(
    register('n1', {
      service: serviceInput('web-proxy', 'web-sidecar-proxy', {
        Kind: 'connect-proxy',
        Proxy: { DestinationServiceName: 'Web' },
      }),
    }),
  );
  assert.deepEqual(eventLines(r.events).slice(0, 2), [
    'ServiceHealth web-sidecar-proxy register web-proxy@n1',
    'ServiceHealthConnect web register web-proxy@n1',
  ]);
  // Same payload object on both topics: one change, two views.
  assert.equal(r.events[0]!.payload, r.events[1]!.payload);
  r = h.apply(
    register('n1', {
      service: serviceInput('web-proxy', 'web-sidecar-proxy', {
        Kind: 'connect-proxy',
        Proxy: { DestinationServiceName: 'db' },
      }),
    }),
  );
  assert.deepEqual(eventLines(r.events), [
    'ServiceHealthConnect web deregister web-proxy@n1',
    'ServiceHealth web-sidecar-proxy register web-proxy@n1',
    'ServiceHealthConnect db register web-proxy@n1',
  ]);
  r = h.apply({ type: 'deregister', node: 'n1', serviceId: 'web-proxy' });
  assert.deepEqual(eventLines(r.events), [
    'ServiceHealth web-sidecar-proxy deregister web-proxy@n1',
    'ServiceHealthConnect db deregister web-proxy@n1',
    'ServiceList none deregister web-sidecar-proxy',
  ]);
  const plain = h.apply(register('n1', { service: serviceInput('p', 'plain') }));
  assert.equal(plain.events.filter((e) => e.topic === Topic.ServiceHealthConnect).length, 0);
});

test('Connect: a terminating gateway is a Connect instance of each service its entry links by name, moving with the entry', () => {
  const h = harness();
  const gateway = (Port: number) =>
    h.apply(register('n1', { service: serviceInput('term1', 'term', { Kind: 'terminating-gateway', Port }) }));
  // Registered before any entry: no Connect copy.
  assert.deepEqual(eventLines(gateway(8443).events), [
    'ServiceHealth term register term1@n1',
    'ServiceList none register term',
  ]);
  let r = h.apply({
    type: 'config-set',
    entry: { Kind: 'terminating-gateway', Name: 'term', Services: [{ Name: 'API' }, { Name: 'db' }, { Name: '*' }] },
  });
  assert.deepEqual(eventLines(r.events), [
    'TerminatingGateway default/default/term upsert',
    'ServiceHealthConnect api register term1@n1',
    'ServiceHealthConnect db register term1@n1',
  ]);
  // The gateway's own change reaches every linked view.
  assert.deepEqual(eventLines(gateway(8444).events), [
    'ServiceHealth term register term1@n1',
    'ServiceHealthConnect api register term1@n1',
    'ServiceHealthConnect db register term1@n1',
  ]);
  r = h.apply({ type: 'config-set', entry: { Kind: 'terminating-gateway', Name: 'term', Services: [{ Name: 'db' }] } });
  assert.deepEqual(eventLines(r.events), [
    'TerminatingGateway default/default/term upsert',
    'ServiceHealthConnect api deregister term1@n1',
  ]);
  r = h.apply({ type: 'config-delete', kind: 'terminating-gateway', name: 'term' });
  assert.deepEqual(eventLines(r.events), [
    'TerminatingGateway default/default/term delete',
    'ServiceHealthConnect db deregister term1@n1',
  ]);
});

test('check-update: NOT_FOUND for an unknown check; status change emits; unchanged records only the refresh', () => {
  const h = harness();
  h.apply(
    register('n1', {
      service: serviceInput('s', 's'),
      checks: [checkInput('ttl', { ServiceID: 's', Type: 'ttl', Definition: { TTL: '10s' }, Status: 'critical' })],
    }),
  );
  let r = h.apply({ type: 'check-update', node: 'n1', checkId: 'nope', status: 'passing', output: '' });
  assert.equal(r.result.error?.code, 'NOT_FOUND');
  r = h.apply({ type: 'check-update', node: 'n1', checkId: 'ttl', status: 'passing', output: 'ok' });
  assert.deepEqual(eventLines(r.events), ['ServiceHealth s register s@n1']);
  assert.deepEqual(r.ttlTouched, [{ node: 'n1', checkId: 'ttl' }]);
  assert.equal(h.sm.ttlCheck('n1', 'ttl')!.refreshIndex, 3);
  r = h.apply({ type: 'check-update', node: 'n1', checkId: 'ttl', status: 'passing', output: 'ok' });
  assert.deepEqual(r.events, []);
  assert.deepEqual(r.ttlTouched, [{ node: 'n1', checkId: 'ttl' }]);
  const state = h.sm.ttlCheck('n1', 'ttl')!;
  assert.deepEqual([state.refreshIndex, state.check.ModifyIndex], [4, 3]);
  assert.equal('refreshIndex' in state.check, false, 'the refresh index is not part of the HealthCheck');
  assert.equal(h.sm.serviceInstances('s').index, 3, 'a refresh alone does not move blocking indexes');
  r = h.apply({ type: 'check-update', node: 'n1', checkId: 'ttl', status: 'bogus' as never, output: '' });
  assert.equal(r.result.error?.code, 'INVALID_ARGUMENT');
});

test('check-ttl-expire applies once per refresh: stale or duplicate expiries change nothing', () => {
  const h = harness();
  h.apply(register('n1', { checks: [checkInput('ttl', { Definition: { TTL: '1s' }, Output: 'fine' })] }));
  const refresh = h.sm.ttlCheck('n1', 'ttl')!.refreshIndex;
  let r = h.apply({
    type: 'check-ttl-expire',
    node: 'n1',
    checkId: 'ttl',
    ifModifyIndex: refresh,
    output: 'TTL expired',
  });
  assert.equal(r.result.ok, true);
  let c = h.sm.ttlCheck('n1', 'ttl')!;
  assert.deepEqual(
    [c.check.Status, c.check.Output, c.check.ModifyIndex, c.refreshIndex, c.expired],
    ['critical', 'TTL expired', 2, refresh, true],
  );
  r = h.apply({ type: 'check-ttl-expire', node: 'n1', checkId: 'ttl', ifModifyIndex: refresh, output: 'another text' });
  assert.equal(r.result.ok, true);
  assert.equal(h.sm.ttlCheck('n1', 'ttl')!.check.Output, 'TTL expired', 'duplicate expiry is a no-op');
  h.apply({ type: 'check-update', node: 'n1', checkId: 'ttl', status: 'passing', output: '' });
  r = h.apply({ type: 'check-ttl-expire', node: 'n1', checkId: 'ttl', ifModifyIndex: refresh, output: 'TTL expired' });
  c = h.sm.ttlCheck('n1', 'ttl')!;
  assert.deepEqual(
    [c.check.Status, c.expired, r.events.length],
    ['passing', false, 0],
    'stale expiry after a refresh is a no-op',
  );
  r = h.apply({ type: 'check-ttl-expire', node: 'ghost', checkId: 'ttl', ifModifyIndex: 1, output: 'x' });
  assert.equal(r.result.ok, true);
});

test('ttlChecks/ttlCheckStates list only checks with a TTL; ttlTouched covers removal', () => {
  const h = harness();
  h.apply(
    register('n1', {
      checks: [checkInput('t', { Definition: { TTL: '5s' } }), checkInput('h', { Definition: { HTTP: 'x' } })],
    }),
  );
  assert.deepEqual(
    h.sm.ttlChecks().map((c) => c.CheckID),
    ['t'],
  );
  assert.deepEqual(
    h.sm.ttlCheckStates().map((s) => [s.check.CheckID, s.refreshIndex]),
    [['t', 1]],
  );
  const r = h.apply({ type: 'deregister', node: 'n1' });
  assert.deepEqual(r.ttlTouched, [{ node: 'n1', checkId: 't' }]);
  assert.deepEqual(h.sm.ttlChecks(), []);
});

test('all events of one entry carry its index', () => {
  const h = harness();
  h.apply(register('n1', { service: serviceInput('a', 'a') }));
  const r = h.apply({
    type: 'txn',
    ops: [
      { op: 'node-set', node: { ID: '', Node: 'n1', Address: 'x', Datacenter: 'dc1', TaggedAddresses: {}, Meta: {} } },
      { op: 'service-set', node: 'n1', service: serviceInput('b', 'b') },
    ],
  });
  assert.ok(r.events.length >= 3);
  for (const e of r.events) assert.equal(e.index, 2n);
});
