// Property: a service whose only changed input is its instances keeps its
// Clusters, route and listener objects and rebuilds its assignments
// (service-resources.ts, `reassign`), and what it serves is still what a
// translation from scratch of the same inputs gives. Random sequences of
// instance registrations and removals, resolver changes (subsets, a load
// balancer that gives gRPC its own Cluster, failover), service-defaults and
// http-route changes, and retranslations with nothing changed; after every step
// every service's resources have the versions of a fresh translation, an
// instances-only step reports no Cluster, route or listener, and the encode
// cache counts one lookup per resource of a retranslated service, as before.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import type { ServiceName } from '../../../src/catalog/catalog';
import type { CheckServiceNode, ConfigEntry, ConfigEntryKind } from '../../../src/catalog/types';
import { createEncodeCache } from '../../../src/xds/translate/encode';
import type { Instances } from '../../../src/xds/translate/instance-diff';
import { createServiceResources, type ServiceOutput } from '../../../src/xds/translate/service-resources';
import type { CatalogInputs } from '../../../src/xds/translate/view-inputs';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import { entry, instance } from './helpers';

const SERVICES = ['web', 'api'] as const;
const logger = pino({ level: 'silent' });
const NONE: readonly ConfigEntry[] = Object.freeze([]);

type Step =
  | { kind: 'add'; service: number; version: number }
  | { kind: 'remove'; service: number; at: number }
  | { kind: 'resolver'; subsets: boolean; leastRequest: boolean; failover: boolean }
  | { kind: 'defaults'; protocol: 'tcp' | 'http' | 'grpc' }
  | { kind: 'route'; on: boolean }
  | { kind: 'touch'; service: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('add' as const), service: fc.nat(1), version: fc.nat(1) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('remove' as const), service: fc.nat(1), at: fc.nat(20) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('resolver' as const),
      subsets: fc.boolean(),
      leastRequest: fc.boolean(),
      failover: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('defaults' as const),
      protocol: fc.constantFrom('tcp' as const, 'http' as const, 'grpc' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('route' as const), on: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('touch' as const), service: fc.nat(1) }) },
);

function versions(out: ServiceOutput): Record<string, string> {
  const v: Record<string, string> = {
    cluster: out.cluster.version,
    grpcCluster: out.grpcCluster.version,
    endpoints: out.endpoints.version,
    route: out.route.version,
    listener: out.listener.version,
  };
  for (const [sub, o] of out.subsets) {
    v[`${sub} cluster`] = o.cluster.version;
    v[`${sub} grpcCluster`] = o.grpcCluster.version;
    v[`${sub} endpoints`] = o.endpoints.version;
  }
  return v;
}

test('service resources: an instances-only change keeps the other resources and equals a translation from scratch', () => {
  fc.assert(
    fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), (steps) => {
      const list: ServiceName[] = SERVICES.map((Name) => ({ Name, Namespace: 'default', Partition: 'default' }));
      const instances = new Map<string, Instances>(
        SERVICES.map((s) => [s, { value: Object.freeze([]) as readonly CheckServiceNode[] }]),
      );
      const entries = new Map<ConfigEntryKind, readonly ConfigEntry[]>();
      const inputs: CatalogInputs = {
        serviceList: () => list,
        instances: (s) => instances.get(s) ?? { value: [] },
        // A kind with no entries reads as one array, as the views deliver it (the chain is compared by identity).
        entries: (kind) => entries.get(kind) ?? NONE,
        takeChanges: () => ({ all: true, services: new Set() }),
        setDependents: () => {},
        ready: () => true,
        close: () => {},
      };
      const cache = createEncodeCache();
      const kept = createServiceResources(cache, logger);
      kept.update(inputs, { all: true, services: new Set() });
      let n = 0;
      let failover = false;

      for (const s of steps) {
        const touched = new Set<string>();
        let instancesOnly = false;
        if (s.kind === 'add' || s.kind === 'remove' || s.kind === 'touch') {
          const name = SERVICES[s.service]!;
          touched.add(name);
          instancesOnly = true;
          const now = [...instances.get(name)!.value];
          if (s.kind === 'add') {
            const csn = instance({ service: name, node: `n${++n}`, port: 8000 + n });
            now.push({ ...csn, Service: { ...csn.Service, Meta: { version: `v${s.version}` } } });
          } else if (s.kind === 'remove' && now.length > 0) now.splice(s.at % now.length, 1);
          if (s.kind !== 'touch') instances.set(name, { value: Object.freeze(now) });
          // What the inputs' dependents do: a service failing over to this one is retranslated with it.
          if (name === 'api' && failover) touched.add('web');
        } else {
          SERVICES.forEach((name) => touched.add(name));
          if (s.kind === 'resolver') {
            const fields: Record<string, unknown> = {};
            if (s.subsets)
              fields['Subsets'] = {
                v0: { Filter: 'Service.Meta.version == v0' },
                v1: { Filter: 'Service.Meta.version == v1' },
              };
            if (s.leastRequest) fields['LoadBalancer'] = { Policy: 'least_request' };
            failover = s.failover;
            if (s.failover) fields['Failover'] = { '*': { Service: 'api' } };
            entries.set('service-resolver', [entry('service-resolver', 'web', fields)]);
          } else if (s.kind === 'defaults') {
            entries.set('service-defaults', [entry('service-defaults', 'web', { Protocol: s.protocol })]);
          } else {
            entries.set(
              'http-route',
              s.on
                ? [
                    entry('http-route', 'web-route', {
                      Parents: [{ Kind: 'api-gateway', Name: 'web' }],
                      Rules: [{ Services: [{ Name: 'web' }] }],
                    }),
                  ]
                : [],
            );
          }
        }

        const before = new Map([...kept.services].map(([name, out]) => [name, out] as const));
        const statsBefore = cache.stats();
        const { changed } = kept.update(inputs, { all: false, services: touched });
        const scratch = createServiceResources(createEncodeCache(), logger);
        scratch.update(inputs, { all: true, services: new Set() });

        assert.deepEqual([...kept.services.keys()].sort(), [...scratch.services.keys()].sort());
        for (const [name, out] of kept.services)
          assert.deepEqual(versions(out), versions(scratch.services.get(name)!), name);

        if (instancesOnly) {
          assert.equal(changed.get(TypeUrl.Cluster)!.size, 0);
          assert.equal(changed.get(TypeUrl.RouteConfiguration)!.size, 0);
          assert.equal(changed.get(TypeUrl.Listener)!.size, 0);
          for (const name of touched) {
            const a = before.get(name)!;
            const b = kept.services.get(name)!;
            assert.equal(b.cluster, a.cluster);
            assert.equal(b.grpcCluster, a.grpcCluster);
            assert.equal(b.route, a.route);
            assert.equal(b.listener, a.listener);
            for (const [sub, o] of b.subsets) assert.equal(o.cluster, a.subsets.get(sub)!.cluster);
          }
          // Every resource of the touched service is looked up once, as translating it does.
          const after = cache.stats();
          const lookups = after.hits + after.encodes - statsBefore.hits - statsBefore.encodes;
          const resources = [...touched].reduce((sum, name) => {
            const out = kept.services.get(name)!;
            if (out.inputs === before.get(name)!.inputs) return sum; // unchanged inputs: skipped, no lookup
            let count = 4 + (out.grpcCluster !== out.cluster ? 1 : 0);
            for (const o of out.subsets.values()) count += 2 + (o.grpcCluster !== o.cluster ? 1 : 0);
            return sum + count;
          }, 0);
          assert.equal(lookups, resources);
        }
      }
    }),
    { numRuns: 60 },
  );
});
