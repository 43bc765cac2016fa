// Wire → internal (src/materializer/from-wire.ts) against the Subscribe
// engineer's internal → wire (src/subscribe/wire.ts): encoding an item, decoding
// the bytes as a grpc-js client would, and converting back gives the same item.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type CatalogEvent, type CheckServiceNode, type ConfigEntry, Topic } from '../../src/catalog/types';
import type { Event__Output } from '../../src/gen/subscribe/subscribe/Event';
import { createWireDecoder } from '../../src/materializer/from-wire';
import { goDuration } from '../../src/materializer/go-duration';
import { loadSubscribeProto } from '../../src/subscribe/proto';
import type { StreamItem } from '../../src/subscribe/types';
import { createEventEncoder } from '../../src/subscribe/wire';
import { config, csn, eos, health, items, nstf, serviceName } from './fixtures';

const proto = loadSubscribeProto();
const encoder = createEventEncoder(proto);
const decoder = createWireDecoder(proto);

function roundTrip(item: StreamItem, topic: Topic, key?: string): StreamItem {
  const decoded = proto.decodeEvent(encoder.encode(item)) as unknown as Event__Output;
  return decoder.item(decoded, topic, key);
}

function richInstance(): CheckServiceNode {
  const c = csn('web', 'web-1', 'node-a', { index: 7, tags: ['v1', 'primary'] });
  return {
    Node: {
      ...c.Node,
      ID: '6f1c2f0e-0000-4000-8000-000000000001',
      Partition: 'part',
      Locality: { Region: 'eu', Zone: 'eu-1a' },
    },
    Service: {
      ...c.Service,
      Kind: 'connect-proxy',
      Address: '10.0.0.9',
      TaggedAddresses: { lan_ipv4: { Address: '10.0.0.9', Port: 21000 } },
      Meta: { version: '1.2' },
      Port: 21000,
      Weights: { Passing: 3, Warning: 1 },
      EnableTagOverride: true,
      Proxy: {
        DestinationServiceName: 'web',
        DestinationServiceID: 'web-1',
        LocalServicePort: 8080,
        Mode: 'transparent',
      },
      Connect: { Native: true },
      Namespace: 'ns1',
      Partition: 'part',
      Locality: { Region: 'eu', Zone: 'eu-1a' },
    },
    Checks: [
      {
        ...c.Checks[0]!,
        Status: 'critical',
        Output: 'connection refused',
        Type: 'http',
        Interval: '10s',
        Timeout: '1s',
        Definition: {
          HTTP: 'http://10.0.0.9:8080/health',
          Method: 'GET',
          Interval: '10s',
          Timeout: '1s',
          DeregisterCriticalServiceAfter: '1m30s',
        },
        Namespace: 'ns1',
        Partition: 'part',
      },
    ],
  };
}

describe('wire round trip (internal → wire → internal)', () => {
  test('framing items', () => {
    assert.deepEqual(roundTrip(eos(42), Topic.ServiceHealth, 'web'), eos(42));
    assert.deepEqual(roundTrip(nstf, Topic.ServiceHealth, 'web'), nstf);
  });

  test('a plain health event and a rich one (proxy, connect, locality, durations, namespaces)', () => {
    for (const instance of [csn('web', 'web-1', 'node-a', { index: 3 }), richInstance()]) {
      const item = items(9, health(9, 'register', instance));
      assert.deepEqual(roundTrip(item, Topic.ServiceHealth, 'web'), item);
    }
  });

  test('a batch keeps each event and the top-level index', () => {
    const item = items(
      11,
      health(11, 'deregister', csn('web', 'a', 'n1', { index: 2 })),
      health(11, 'register', csn('web', 'b', 'n2', { index: 11 })),
    );
    assert.deepEqual(roundTrip(item, Topic.ServiceHealth, 'web'), item);
  });

  test('service list events', () => {
    const item = items(5, serviceName(5, 'register', 'web'), serviceName(5, 'deregister', 'api'));
    assert.deepEqual(roundTrip(item, Topic.ServiceList), item);
  });

  // Zero enum values come back unless named …Default/…Unknown: an intention
  // source's Type is IntentionSourceTypeConsul (0), which Consul's JSON spells "consul".
  const entries: ConfigEntry[] = [
    {
      Kind: 'service-resolver',
      Name: 'web',
      DefaultSubset: 'v1',
      ConnectTimeout: '5s',
      Subsets: { v1: { Filter: 'Service.Meta.version == 1' } },
      CreateIndex: 3,
      ModifyIndex: 4,
    },
    {
      Kind: 'service-defaults',
      Name: 'web',
      Protocol: 'http',
      Mode: 'transparent',
      MeshGateway: { Mode: 'local' },
      Meta: { owner: 'team-a' },
      CreateIndex: 1,
      ModifyIndex: 1,
    },
    { Kind: 'mesh', Name: 'mesh', TransparentProxy: { MeshDestinationsOnly: true }, CreateIndex: 2, ModifyIndex: 2 },
    {
      Kind: 'service-intentions',
      Name: 'db',
      Sources: [
        { Name: 'web', Action: 'allow', Type: 'consul' },
        { Name: 'api', Action: 'deny', Precedence: 9, Type: 'consul' },
      ],
      CreateIndex: 6,
      ModifyIndex: 8,
    },
  ];
  for (const entry of entries) {
    test(`config entry: ${entry.Kind}`, () => {
      const event: CatalogEvent = config(8, 'upsert', entry);
      const item = items(8, event);
      assert.deepEqual(roundTrip(item, event.topic), item);
    });
  }
});

describe('Go durations', () => {
  test('format like time.Duration.String()', () => {
    const cases: [number, number, string][] = [
      [0, 0, '0s'],
      [10, 0, '10s'],
      [90, 0, '1m30s'],
      [3600, 0, '1h0m0s'],
      [1, 500_000_000, '1.5s'],
      [0, 500_000_000, '500ms'],
      [0, 1_500, '1.5µs'],
      [0, 7, '7ns'],
      [-5, 0, '-5s'],
    ];
    for (const [s, n, want] of cases) assert.equal(goDuration(s, n), want);
  });
});
