import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkInput, register, serviceInput } from './fixtures';
import { eventLines, harness } from './harness';

test('register creates node, service and checks with Create/ModifyIndex and a full CheckServiceNode', () => {
  const h = harness();
  const r = h.apply(
    register('n1', {
      service: serviceInput('web-1', 'Web', { Tags: ['b', 'a'] }),
      checks: [checkInput('serfHealth'), checkInput('web-check', { ServiceID: 'web-1', Status: 'warning' })],
    }),
  );
  assert.equal(r.result.ok, true);
  assert.equal(r.result.index, 1n);
  const node = h.sm.node('n1').value!;
  assert.equal(node.Node.CreateIndex, 1);
  assert.equal(node.Services[0]!.ModifyIndex, 1);
  const checks = h.sm.nodeChecks('n1').value;
  assert.deepEqual(
    checks.map((c) => [c.CheckID, c.Node, c.ServiceName, c.ServiceTags]),
    [
      ['serfHealth', 'n1', '', []],
      ['web-check', 'n1', 'Web', ['b', 'a']],
    ],
  );
  assert.deepEqual(eventLines(r.events), ['ServiceHealth web register web-1@n1', 'ServiceList none register Web']);
  const ev = r.events[0]!;
  assert.equal(ev.index, 1n);
  assert.equal(ev.payload.type === 'service-health' && ev.payload.csn.Checks.length, 2);
  assert.deepEqual(h.sm.services().value, { Web: ['a', 'b'] });
  assert.deepEqual(
    h.sm.serviceInstances('Web').value.map((c) => c.Service.ID),
    ['web-1'],
  );
  assert.deepEqual(h.sm.serviceInstances('web').value, [], 'service name match is exact');
});

test('re-registering unchanged objects keeps ModifyIndex and emits nothing', () => {
  const h = harness();
  const cmd = register('n1', { service: serviceInput('s1', 'api'), checks: [checkInput('c1', { ServiceID: 's1' })] });
  h.apply(cmd);
  const again = h.apply(JSON.parse(JSON.stringify(cmd)));
  assert.equal(again.result.ok, true);
  assert.deepEqual(again.events, []);
  assert.equal(h.sm.node('n1').value!.Node.ModifyIndex, 1);
  assert.equal(h.sm.nodeChecks('n1').value[0]!.ModifyIndex, 1);
  assert.equal(h.sm.serviceInstances('api').index, 1);
  assert.equal(h.sm.lastIndex(), 2n);
});

test('a changed service keeps CreateIndex, bumps ModifyIndex, and syncs its checks tags', () => {
  const h = harness();
  h.apply(register('n1', { service: serviceInput('s1', 'api'), checks: [checkInput('c1', { ServiceID: 's1' })] }));
  const r = h.apply(register('n1', { service: serviceInput('s1', 'api', { Port: 9, Tags: ['v2'] }) }));
  const svc = h.sm.node('n1').value!.Services[0]!;
  assert.deepEqual([svc.CreateIndex, svc.ModifyIndex, svc.Port], [1, 2, 9]);
  const c1 = h.sm.nodeChecks('n1').value[0]!;
  assert.deepEqual([c1.ServiceTags, c1.ModifyIndex], [['v2'], 2]);
  assert.deepEqual(eventLines(r.events), ['ServiceHealth api register s1@n1']);
  assert.equal(h.sm.node('n1').value!.Node.ModifyIndex, 1, 'node unchanged');
});

test('a check naming a service not on the node refuses the whole register and changes nothing', () => {
  const h = harness();
  h.apply(register('n1', { service: serviceInput('s1', 'api') }));
  const before = h.sm.snapshot();
  const r = h.apply(
    register('n1', {
      nodeExtra: { Address: '10.9.9.9' },
      checks: [checkInput('ok'), checkInput('bad', { ServiceID: 'nope' })],
    }),
  );
  assert.equal(r.result.ok, false);
  assert.equal(r.result.error?.code, 'INVALID_ARGUMENT');
  assert.equal(r.result.error?.field, 'Checks[1].ServiceID');
  assert.deepEqual(r.events, []);
  assert.equal(h.sm.lastIndex(), 2n);
  assert.equal(h.sm.snapshot().replace('"index":"2"', '"index":"1"'), before);
});

test('a check may name the service registered in the same command', () => {
  const h = harness();
  const r = h.apply(
    register('n1', { service: serviceInput('s1', 'api'), checks: [checkInput('c', { ServiceID: 's1' })] }),
  );
  assert.equal(r.result.ok, true);
});

test('skipNodeUpdate leaves an existing node alone but creates a missing one', () => {
  const h = harness();
  h.apply(register('n1', { skipNodeUpdate: true, nodeExtra: { Address: '1.1.1.1' } }));
  assert.equal(h.sm.node('n1').value!.Node.Address, '1.1.1.1');
  h.apply(register('n1', { skipNodeUpdate: true, nodeExtra: { Address: '2.2.2.2' }, service: serviceInput('s', 's') }));
  assert.equal(h.sm.node('n1').value!.Node.Address, '1.1.1.1');
  assert.equal(h.sm.node('n1').value!.Services.length, 1);
});

test('register refuses missing names with INVALID_ARGUMENT naming the field', () => {
  const h = harness();
  assert.equal(h.apply(register('')).result.error?.field, 'Node');
  assert.equal(h.apply(register('n', { service: serviceInput('', 'x') })).result.error?.field, 'Service.ID');
  assert.equal(
    h.apply(register('n', { checks: [checkInput('c', { Status: 'bogus' as never })] })).result.error?.field,
    'Checks[0].Status',
  );
  assert.deepEqual(h.sm.nodes().value, []);
});

test('stored objects are copies: mutating the input afterwards changes nothing, and reads are frozen', () => {
  const h = harness();
  const svc = serviceInput('s1', 'api', { Tags: ['a'] });
  h.apply(register('n1', { service: svc }));
  svc.Tags.push('mutated');
  const stored = h.sm.node('n1').value!.Services[0]!;
  assert.deepEqual(stored.Tags, ['a']);
  assert.throws(() => (stored.Tags as string[]).push('x'));
});

test('deregister: one check, one service with its checks, a whole node; unknown targets are no-op successes', () => {
  const h = harness();
  h.apply(
    register('n1', {
      service: serviceInput('s1', 'api'),
      checks: [checkInput('node-c'), checkInput('s1-c', { ServiceID: 's1' })],
    }),
  );
  h.apply(register('n1', { service: serviceInput('s2', 'api') }));
  let r = h.apply({ type: 'deregister', node: 'n1', checkId: 'node-c' });
  assert.deepEqual(eventLines(r.events), ['ServiceHealth api register s1@n1', 'ServiceHealth api register s2@n1']);
  r = h.apply({ type: 'deregister', node: 'n1', serviceId: 's1' });
  assert.deepEqual(eventLines(r.events), ['ServiceHealth api deregister s1@n1']);
  const p = r.events[0]!.payload;
  assert.ok(p.type === 'service-health');
  assert.deepEqual(p.csn.Checks, []);
  assert.equal(p.csn.Node.Node, 'n1');
  assert.equal(p.csn.Node.Address, '');
  assert.deepEqual(h.sm.nodeChecks('n1').value, []);
  r = h.apply({ type: 'deregister', node: 'n1' });
  assert.deepEqual(eventLines(r.events), ['ServiceHealth api deregister s2@n1', 'ServiceList none deregister api']);
  assert.equal(h.sm.node('n1').value, undefined);
  for (const cmd of [
    { type: 'deregister', node: 'ghost' },
    { type: 'deregister', node: 'ghost', serviceId: 'x' },
    { type: 'deregister', node: 'ghost', checkId: 'x' },
  ] as const) {
    const g = h.apply(cmd);
    assert.equal(g.result.ok, true);
    assert.deepEqual(g.events, []);
  }
});

test('unknown command types are refused and change nothing', () => {
  const h = harness();
  const r = h.apply({ type: 'nonsense' } as never);
  assert.equal(r.result.ok, false);
  assert.equal(r.result.error?.code, 'INVALID_ARGUMENT');
  assert.equal(h.sm.lastIndex(), 1n);
});

test('apply refuses to go backwards', () => {
  const h = harness();
  h.apply(register('n1'));
  assert.throws(() => h.sm.apply(1n, register('n2')), /not after/);
});

test('what apply stores is frozen all the way down: nested objects and arrays of node, service and check', () => {
  const h = harness();
  h.apply(
    register('n1', {
      nodeExtra: { Meta: { rack: 'r1' }, TaggedAddresses: { lan: '10.0.0.1' } },
      service: serviceInput('web-1', 'Web', {
        Tags: ['b', 'a'],
        Meta: { v: '1' },
        Weights: { Passing: 3, Warning: 1 },
      }),
      checks: [checkInput('web-check', { ServiceID: 'web-1' })],
    }),
  );
  const frozenAllTheWay = (v: unknown): boolean =>
    v === null || typeof v !== 'object' || (Object.isFrozen(v) && Object.values(v).every(frozenAllTheWay));
  const node = h.sm.node('n1').value!;
  assert.ok(
    frozenAllTheWay(node.Node) && Object.isFrozen(node.Node.Meta) && Object.isFrozen(node.Node.TaggedAddresses),
  );
  const service = node.Services[0]!;
  assert.ok(frozenAllTheWay(service) && Object.isFrozen(service.Tags) && Object.isFrozen(service.Weights));
  assert.ok(h.sm.nodeChecks('n1').value.every(frozenAllTheWay));
});
