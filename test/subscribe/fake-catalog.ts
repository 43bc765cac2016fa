// A small in-memory Catalog for the publisher's unit tests: just enough state
// (instances, config entries) and the onApplied/onReset hooks, in log order.
import { emptyAclTables } from '../../src/acl/state';
import type { Catalog, CatalogListener, CatalogReader } from '../../src/catalog/catalog';
import { createKvReader } from '../../src/catalog/kv-reads';
import { emptyTables } from '../../src/catalog/tables';
import {
  type CatalogEvent,
  type CheckServiceNode,
  CONFIG_TOPIC_BY_KIND,
  type ConfigEntry,
  type ConfigEntryKind,
  SUBJECT_NONE,
  Topic,
} from '../../src/catalog/types';
import { emptyConnectState } from '../../src/connect/state';

export function csn(service: string, id: string, node = 'node1', index = 1): CheckServiceNode {
  return {
    Node: {
      ID: '',
      Node: node,
      Address: '10.0.0.1',
      Datacenter: 'dc1',
      TaggedAddresses: {},
      Meta: {},
      CreateIndex: index,
      ModifyIndex: index,
    },
    Service: {
      Kind: '',
      ID: id,
      Service: service,
      Tags: [],
      Address: '',
      TaggedAddresses: {},
      Meta: {},
      Port: 8080,
      Weights: { Passing: 1, Warning: 1 },
      EnableTagOverride: false,
      CreateIndex: index,
      ModifyIndex: index,
    },
    Checks: [
      {
        Node: node,
        CheckID: `service:${id}`,
        Name: 'alive',
        Status: 'passing',
        Notes: '',
        Output: 'ok',
        ServiceID: id,
        ServiceName: service,
        ServiceTags: [],
        Type: 'ttl',
        Interval: '',
        Timeout: '',
        Definition: { TTL: '30s' },
        CreateIndex: index,
        ModifyIndex: index,
      },
    ],
  };
}

export interface FakeCatalog extends Catalog {
  register(service: string, id: string): bigint;
  deregister(service: string, id: string): bigint;
  /** One entry registering several instances (one event each). */
  registerMany(service: string, ids: string[]): bigint;
  setConfig(kind: ConfigEntryKind, name: string, fields?: Record<string, unknown>): bigint;
  /** An entry that touches nothing subscribers care about. */
  noop(): bigint;
  restore(): void;
}

export function createFakeCatalog(): FakeCatalog {
  let last = 0n;
  const instances = new Map<string, Map<string, CheckServiceNode>>();
  const configs = new Map<ConfigEntryKind, Map<string, ConfigEntry>>();
  const applied = new Set<CatalogListener>();
  const resets = new Set<(index: bigint) => void>();

  function commit(events: Omit<CatalogEvent, 'index'>[]): bigint {
    last++;
    const withIndex = events.map((e) => ({ ...e, index: last }));
    for (const l of applied) l(last, withIndex, { ttlTouched: [] });
    return last;
  }
  const acl = emptyAclTables();
  const idx = <T>(value: T) => ({ index: Number(last > 0n ? last : 1n), value });

  const reader: CatalogReader = {
    lastIndex: () => last,
    acl: () => acl,
    nodes: () => idx([]),
    node: () => idx(undefined),
    nodeChecks: () => idx([]),
    services: () => idx({}),
    serviceInstances: (name) => idx([...(instances.get(name)?.values() ?? [])]),
    serviceChecks: () => idx([]),
    checksInState: () => idx([]),
    configEntries: (kind) => idx([...(configs.get(kind)?.values() ?? [])].sort((a, b) => a.Name.localeCompare(b.Name))),
    configEntry: (kind, name) => idx(configs.get(kind)?.get(name)),
    serviceNames: () =>
      idx(
        [...instances.keys()]
          .filter((n) => instances.get(n)!.size > 0)
          .sort()
          .map((Name) => ({ Name, Namespace: 'default', Partition: 'default' })),
      ),
    ttlChecks: () => [],
    ttlCheckStates: () => [],
    ttlCheck: () => undefined,
    connectCa: () => emptyConnectState(),
    // The fake holds no KV entries or sessions.
    ...createKvReader(() => emptyTables()),
  };

  function put(service: string, id: string): Omit<CatalogEvent, 'index'>[] {
    let m = instances.get(service);
    const isNew = m === undefined || m.size === 0;
    if (m === undefined) instances.set(service, (m = new Map()));
    // Instances named secret* live on their own node, so an ACL test can hide them by node.
    const value = csn(service, id, id.startsWith('secret') ? 'secret-node' : 'node1', Number(last + 1n));
    m.set(id, value);
    const events: Omit<CatalogEvent, 'index'>[] = [
      {
        topic: Topic.ServiceHealth,
        subject: service.toLowerCase(),
        payload: { type: 'service-health', op: 'register', csn: value },
      },
    ];
    if (isNew)
      events.push({
        topic: Topic.ServiceList,
        subject: SUBJECT_NONE,
        payload: { type: 'service-list', op: 'register', name: service, namespace: 'default', partition: 'default' },
      });
    return events;
  }

  return {
    ...reader,
    submit: () => Promise.reject(new Error('not in the fake')),
    waitForIndex: () => Promise.resolve(),
    waitForChange: () => Promise.resolve(),
    onApplied(l) {
      applied.add(l);
      return () => applied.delete(l);
    },
    onReset(l) {
      resets.add(l);
      return () => resets.delete(l);
    },
    snapshot: () => ({ index: last, state: '' }),
    fork: () => {
      throw new Error('not in the fake');
    },
    close: () => Promise.resolve(),
    register: (service, id) => commit(put(service, id)),
    registerMany: (service, ids) => commit(ids.flatMap((id) => put(service, id))),
    deregister(service, id) {
      const value = instances.get(service)?.get(id);
      instances.get(service)?.delete(id);
      return commit(
        value === undefined
          ? []
          : [
              {
                topic: Topic.ServiceHealth,
                subject: service.toLowerCase(),
                payload: { type: 'service-health', op: 'deregister', csn: value },
              },
            ],
      );
    },
    setConfig(kind, name, fields = {}) {
      let m = configs.get(kind);
      if (m === undefined) configs.set(kind, (m = new Map()));
      const entry: ConfigEntry = {
        Kind: kind,
        Name: name,
        ...fields,
        CreateIndex: Number(last + 1n),
        ModifyIndex: Number(last + 1n),
      };
      m.set(name, entry);
      return commit([
        {
          topic: CONFIG_TOPIC_BY_KIND[kind],
          subject: `default/default/${name}`,
          payload: { type: 'config-entry', op: 'upsert', entry },
        },
      ]);
    },
    noop: () => commit([]),
    restore() {
      last++;
      instances.clear();
      configs.clear();
      for (const l of resets) l(last);
    },
  };
}
