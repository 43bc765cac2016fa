// Catalog JSON → Event conversion: durations, enums, Struct, RaftIndex,
// EnterpriseMeta, batches, and one encode per item.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CatalogEvent, type ConfigEntry, Topic } from '../../src/catalog/types';
import { durationOf } from '../../src/subscribe/pbjson';
import { loadSubscribeProto } from '../../src/subscribe/proto';
import type { StreamItem } from '../../src/subscribe/types';
import { createEventEncoder } from '../../src/subscribe/wire';
import { csn } from './fake-catalog';

const proto = loadSubscribeProto();
const configEvent = (entry: ConfigEntry, op: 'upsert' | 'delete' = 'upsert'): CatalogEvent => ({
  topic: Topic.ServiceResolver,
  subject: `default/default/${entry.Name}`,
  index: 9n,
  payload: { type: 'config-entry', op, entry },
});

test('Go duration strings become google.protobuf.Duration', () => {
  assert.deepEqual(durationOf('10s'), { seconds: '10', nanos: 0 });
  assert.deepEqual(durationOf('1m30s'), { seconds: '90', nanos: 0 });
  assert.deepEqual(durationOf('1.5s'), { seconds: '1', nanos: 500_000_000 });
  assert.deepEqual(durationOf('250ms'), { seconds: '0', nanos: 250_000_000 });
  assert.deepEqual(durationOf('2h'), { seconds: '7200', nanos: 0 });
  assert.deepEqual(durationOf('0'), { seconds: '0', nanos: 0 });
  assert.equal(durationOf('ten seconds'), undefined);
  assert.equal(durationOf('10x'), undefined);
});

test('config entries: Kind enum, oneof member, durations, maps, enums by Consul spelling; unknown fields dropped', () => {
  const enc = createEventEncoder();
  const resolver: ConfigEntry = {
    Kind: 'service-resolver',
    Name: 'web',
    Namespace: 'ns1',
    CreateIndex: 3,
    ModifyIndex: 9,
    ConnectTimeout: '5s',
    DefaultSubset: 'v1',
    Subsets: { v1: { Filter: 'Service.Meta.version == 1', OnlyPassing: true } },
    Failover: { '*': { Datacenters: ['dc2'] } },
    LoadBalancer: { Policy: 'ring_hash', RingHashConfig: { MinimumRingSize: 1024 } },
    NotAField: 'dropped',
  };
  const intentions: ConfigEntry = {
    Kind: 'service-intentions',
    Name: 'db',
    CreateIndex: 4,
    ModifyIndex: 4,
    Sources: [
      { Name: 'web', Action: 'allow', Type: 'consul', LegacyCreateTime: '2024-01-02T03:04:05Z' },
      { Name: '*', Action: 'deny' },
    ],
  };
  const item: StreamItem = {
    kind: 'events',
    index: 9n,
    events: [configEvent(resolver), configEvent(intentions, 'delete')],
  };
  const decoded = proto.decodeEvent(enc.encode(item)) as any;
  assert.equal(decoded.Payload, 'EventBatch');
  const [a, b] = decoded.EventBatch.Events;
  assert.equal(a.ConfigEntry.Op, 'Upsert');
  const e = a.ConfigEntry.ConfigEntry;
  assert.equal(e.Kind, 'KindServiceResolver');
  assert.equal(e.Entry, 'ServiceResolver');
  assert.deepEqual(e.EnterpriseMeta, { Namespace: 'ns1', Partition: '' });
  assert.deepEqual(e.RaftIndex, { CreateIndex: '3', ModifyIndex: '9' });
  assert.deepEqual(e.ServiceResolver.ConnectTimeout, { seconds: '5', nanos: 0 });
  assert.equal(e.ServiceResolver.Subsets.v1.OnlyPassing, true);
  assert.deepEqual(e.ServiceResolver.Failover['*'].Datacenters, ['dc2']);
  assert.equal(e.ServiceResolver.LoadBalancer.RingHashConfig.MinimumRingSize, '1024');
  assert.equal(b.ConfigEntry.Op, 'Delete');
  const sources = b.ConfigEntry.ConfigEntry.ServiceIntentions.Sources;
  assert.deepEqual(
    sources.map((s: any) => s.Action),
    ['IntentionActionAllow', 'IntentionActionDeny'],
  );
  assert.equal(sources[0].LegacyCreateTime.seconds, String(Date.parse('2024-01-02T03:04:05Z') / 1000));
});

test('health events: proxy config as Struct, header values, deregister op; one encode per item object', () => {
  const enc = createEventEncoder();
  const value = csn('web', 'w1');
  value.Service.Kind = 'connect-proxy';
  value.Service.Proxy = {
    DestinationServiceName: 'web',
    Config: { protocol: 'http', retries: 3, nested: { on: true, list: ['a', null] } },
  };
  (value.Checks[0]!.Definition as Record<string, unknown>).Header = { 'X-A': ['1', '2'] };
  const item: StreamItem = {
    kind: 'events',
    index: 7n,
    events: [
      {
        topic: Topic.ServiceHealth,
        subject: 'web',
        index: 7n,
        payload: { type: 'service-health', op: 'deregister', csn: value },
      },
    ],
  };
  const bytes = enc.encode(item);
  assert.equal(enc.encode(item), bytes, 'the same Buffer for the same item');
  const d = proto.decodeEvent(bytes) as any;
  assert.equal(d.Index, '7');
  assert.equal(d.ServiceHealth.Op, 'Deregister');
  const cfg = d.ServiceHealth.CheckServiceNode.Service.Proxy.Config.fields;
  assert.equal(cfg.protocol.stringValue, 'http');
  assert.equal(cfg.retries.numberValue, 3);
  assert.equal(cfg.nested.structValue.fields.on.boolValue, true);
  assert.equal(cfg.nested.structValue.fields.list.listValue.values[1].kind, 'nullValue');
  assert.deepEqual(d.ServiceHealth.CheckServiceNode.Checks[0].Definition.Header['X-A'].Value, ['1', '2']);
  assert.deepEqual(d.ServiceHealth.CheckServiceNode.Checks[0].Definition.TTL, { seconds: '30', nanos: 0 });
});

test('framing items', () => {
  const enc = createEventEncoder();
  assert.deepEqual(
    proto.Event.toObject(proto.Event.decode(enc.encode({ kind: 'end-of-snapshot', index: 12n })), { longs: String }),
    { Index: '12', EndOfSnapshot: true },
  );
  assert.deepEqual(
    proto.Event.toObject(proto.Event.decode(enc.encode({ kind: 'new-snapshot-to-follow' })), { longs: String }),
    { NewSnapshotToFollow: true },
  );
});
