import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeXdsResource } from '../../../src/xds/translate/encode';
import { buildLoadAssignment, failoverTargets, instanceHealth } from '../../../src/xds/translate/endpoints';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import { cCoreError, decode, entry, grpcJsError, instance } from './helpers';

const encode = (plain: Record<string, unknown>) =>
  encodeXdsResource(TypeUrl.ClusterLoadAssignment, String(plain['cluster_name']), plain);
const addresses = (cla: any): string[] =>
  (cla.endpoints ?? []).flatMap((l: any) =>
    l.lbEndpoints.map(
      (e: any) => `${e.endpoint.address.socketAddress.address}:${e.endpoint.address.socketAddress.portValue}`,
    ),
  );

test('one lb_endpoint per instance: Service.Address, else Node.Address; port Service.Port; accepted by both clients', () => {
  const r = encode(
    buildLoadAssignment({
      name: 'web',
      instances: [
        instance({ node: 'a', address: '10.1.0.1', port: 9000 }),
        instance({ node: 'b', nodeAddress: '10.1.0.2', port: 9001 }),
      ],
    }),
  );
  const cla = decode(r);
  assert.equal(cla.clusterName, 'web');
  assert.deepEqual(addresses(cla), ['10.1.0.1:9000', '10.1.0.2:9001']);
  assert.equal(grpcJsError(r), undefined);
  assert.equal(cCoreError(r), undefined);
});

test('health: passing → HEALTHY weight Passing; warning → HEALTHY weight Warning; critical/maintenance left out', () => {
  const cla = decode(
    encode(
      buildLoadAssignment({
        name: 'web',
        instances: [
          instance({ node: 'a', address: '10.0.0.1', weights: { Passing: 10, Warning: 2 } }),
          instance({
            node: 'b',
            address: '10.0.0.2',
            statuses: ['passing', 'warning'],
            weights: { Passing: 10, Warning: 2 },
          }),
          instance({ node: 'c', address: '10.0.0.3', statuses: ['passing', 'critical'] }),
          instance({ node: 'd', address: '10.0.0.4', statuses: ['maintenance'] }),
        ],
      }),
    ),
  );
  const lbs = cla.endpoints[0].lbEndpoints;
  assert.deepEqual(
    lbs.map((e: any) => [e.endpoint.address.socketAddress.address, e.healthStatus, e.loadBalancingWeight.value]),
    [
      ['10.0.0.1', 'HEALTHY', 10],
      ['10.0.0.2', 'HEALTHY', 2],
    ],
  );
  assert.equal(cla.endpoints[0].loadBalancingWeight.value, 12);
  assert.equal(instanceHealth(instance({ statuses: ['warning', 'critical'] })), 'critical');
});

test('keepUnhealthy keeps critical instances as UNHEALTHY', () => {
  const r = encode(
    buildLoadAssignment({
      name: 'web',
      keepUnhealthy: true,
      instances: [instance({ address: '10.0.0.9', statuses: ['critical'] })],
    }),
  );
  const cla = decode(r);
  assert.equal(cla.endpoints[0].lbEndpoints[0].healthStatus, 'UNHEALTHY');
  assert.ok(cla.endpoints[0].loadBalancingWeight.value >= 1);
  assert.equal(grpcJsError(r), undefined);
});

test('an empty (or all-critical) service still gets an assignment with no endpoints', () => {
  for (const instances of [[], [instance({ statuses: ['critical'] })]]) {
    const r = encode(buildLoadAssignment({ name: 'web', instances }));
    const cla = decode(r);
    assert.equal(cla.clusterName, 'web');
    assert.equal(cla.endpoints, undefined);
    assert.equal(grpcJsError(r), undefined);
  }
});

test('hostnames, zero weights and duplicate addresses are left out (gRPC would NACK the whole CLA)', () => {
  const r = encode(
    buildLoadAssignment({
      name: 'web',
      instances: [
        instance({ node: 'a', address: 'web.example.com' }),
        instance({ node: 'b', address: '10.0.0.2' }),
        instance({ node: 'c', address: '10.0.0.2' }),
        instance({ node: 'd', address: '10.0.0.3', weights: { Passing: 0, Warning: 0 } }),
        instance({ node: 'e', address: '::1' }),
      ],
    }),
  );
  assert.deepEqual(addresses(decode(r)), ['10.0.0.2:8080', '::1:8080']);
  assert.equal(grpcJsError(r), undefined);
});

test('localities: region = datacenter, zone from node locality or node meta zone; every locality weighted, priority 0', () => {
  const r = encode(
    buildLoadAssignment({
      name: 'web',
      instances: [
        instance({ node: 'a', address: '10.0.0.1', zone: 'z1' }),
        instance({ node: 'b', address: '10.0.0.2', nodeMetaZone: 'z2' }),
        instance({ node: 'c', address: '10.0.0.3', zone: 'z1' }),
        instance({ node: 'd', address: '10.0.0.4', datacenter: 'dc2' }),
      ],
    }),
  );
  const cla = decode(r);
  assert.deepEqual(
    cla.endpoints.map((l: any) => [
      l.locality.region,
      l.locality.zone ?? '',
      l.lbEndpoints.length,
      l.loadBalancingWeight.value,
      l.priority ?? 0,
    ]),
    [
      ['dc1', 'z1', 2, 2, 0],
      ['dc1', 'z2', 1, 1, 0],
      ['dc2', '', 1, 1, 0],
    ],
  );
  assert.equal(grpcJsError(r), undefined);
});

test('resolver Failover targets become priorities 1, 2, ... and empty groups take no priority', () => {
  const resolver = entry('service-resolver', 'web', {
    Failover: { '*': { Targets: [{ Service: 'web-backup' }, { Service: 'web-dr' }, { Service: 'web-last' }] } },
  });
  const targets = failoverTargets({ name: 'web' }, resolver);
  assert.deepEqual(
    targets.map((t) => t.ref.name),
    ['web-backup', 'web-dr', 'web-last'],
  );
  const r = encode(
    buildLoadAssignment({
      name: 'web',
      instances: [instance({ address: '10.0.0.1' })],
      failover: [
        { target: targets[0]!, instances: [instance({ service: 'web-backup', address: '10.0.1.1' })] },
        {
          target: targets[1]!,
          instances: [instance({ service: 'web-dr', address: '10.0.2.1', statuses: ['critical'] })],
        },
        {
          target: targets[2]!,
          instances: [instance({ service: 'web-last', address: '10.0.3.1' }), instance({ address: '10.0.0.1' })],
        },
      ],
    }),
  );
  const cla = decode(r);
  assert.deepEqual(
    cla.endpoints.map((l: any) => [l.priority ?? 0, addresses({ endpoints: [l] })]),
    [
      [0, ['10.0.0.1:8080']],
      [1, ['10.0.1.1:8080']],
      [2, ['10.0.3.1:8080']], // web-dr had nothing healthy; the duplicate of 10.0.0.1 is dropped
    ],
  );
  assert.equal(grpcJsError(r), undefined);

  // Primary all critical: the first failover group becomes priority 0 (gRPC NACKs a gap).
  const onlyBackup = decode(
    encode(
      buildLoadAssignment({
        name: 'web',
        instances: [instance({ address: '10.0.0.1', statuses: ['critical'] })],
        failover: [{ target: targets[0]!, instances: [instance({ service: 'web-backup', address: '10.0.1.1' })] }],
      }),
    ),
  );
  assert.deepEqual(
    onlyBackup.endpoints.map((l: any) => l.priority ?? 0),
    [0],
  );
});

test('Failover by Datacenters: the same service in other datacenters, in order', () => {
  const resolver = entry('service-resolver', 'web', { Failover: { '*': { Datacenters: ['dc2', 'dc3'] } } });
  const targets = failoverTargets({ name: 'web' }, resolver);
  assert.deepEqual(
    targets.map((t) => [t.ref.name, t.datacenter]),
    [
      ['web', 'dc2'],
      ['web', 'dc3'],
    ],
  );
  const all = [
    instance({ address: '10.0.0.1' }),
    instance({ address: '10.0.2.1', datacenter: 'dc2' }),
    instance({ address: '10.0.3.1', datacenter: 'dc3' }),
  ];
  const cla = decode(
    encode(
      buildLoadAssignment({
        name: 'web',
        instances: all,
        failover: targets.map((target) => ({ target, instances: all })),
      }),
    ),
  );
  assert.deepEqual(
    cla.endpoints.map((l: any) => [l.priority ?? 0, l.locality.region]),
    [
      [0, 'dc1'],
      [1, 'dc2'],
      [2, 'dc3'],
    ],
  );
  assert.deepEqual(failoverTargets({ name: 'web' }, undefined), []);
  assert.deepEqual(
    failoverTargets({ name: 'web' }, entry('service-resolver', 'web', { Failover: { '*': { Service: 'other' } } })).map(
      (t) => t.ref.name,
    ),
    ['other'],
  );
});

test('Failover per subset: Failover[subset], else "*"; a ServiceSubset target; a subset cluster fails over by datacenter like the service', () => {
  const resolver = entry('service-resolver', 'web', {
    Subsets: { v1: { Filter: 'Service.Meta.version == 1' }, v2: { Filter: 'Service.Meta.version == 2' } },
    Failover: { v1: { ServiceSubset: 'v2' }, '*': { Datacenters: ['dc2'] } },
  });
  const web = { name: 'web' };
  assert.deepEqual(
    failoverTargets(web, resolver, 'v1').map((t) => [t.ref.name, t.subset, t.datacenter]),
    [['web', 'v2', undefined]],
  );
  assert.deepEqual(
    failoverTargets(web, resolver, 'v2').map((t) => [t.ref.name, t.subset, t.datacenter]),
    [['web', undefined, 'dc2']],
  );
  assert.deepEqual(
    failoverTargets(web, resolver).map((t) => [t.ref.name, t.datacenter]),
    [['web', 'dc2']],
  );
  assert.deepEqual(
    failoverTargets(web, entry('service-resolver', 'web', { Failover: { '*': { Service: 'web' } } })),
    [],
    'a target that is the source itself is dropped',
  );
  const all = [instance({ address: '10.0.0.1' }), instance({ address: '10.0.2.1', datacenter: 'dc2' })];
  const [dc2] = failoverTargets(web, resolver, 'v2');
  const cla = decode(
    encode(
      buildLoadAssignment({
        name: 'v2.web',
        service: 'web',
        instances: all,
        failover: [{ target: dc2!, instances: all }],
      }),
    ),
  );
  assert.deepEqual(
    cla.endpoints.map((l: any) => [l.priority ?? 0, l.locality.region]),
    [
      [0, 'dc1'],
      [1, 'dc2'],
    ],
    'dc2 instances leave priority 0 of the subset cluster too',
  );
});
