// Property: the shared sets patched in place of a rebuild (node-sets.ts,
// `patched`) equal the sets rebuilt from every service. Random sequences of
// service outputs (a new assignment, Cluster, route or listener; a service that
// comes, is forgotten, departs or comes back; subsets that come and go; a
// Cluster that differs for gRPC clients) are handed to one NodeSets with the
// names that changed, as service-resources.ts marks them; after every step each
// type's set, for an Envoy and for a gRPC client, has the same entries (same
// objects, same order) and the same wildcard names as a NodeSets built fresh
// from the same outputs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import { createEncodeCache } from '../../../src/xds/translate/encode';
import { createNodeSets } from '../../../src/xds/translate/node-sets';
import type { ChangedNames, ServiceOutput, SubsetOutput } from '../../../src/xds/translate/service-resources';
import type { XdsNode, XdsResource } from '../../../src/xds/transport/provider';
import { TypeUrl } from '../../../src/xds/transport/type-urls';

const NAMES = ['a', 'b', 'c', 'd'] as const;
const TYPES = [TypeUrl.Cluster, TypeUrl.ClusterLoadAssignment, TypeUrl.RouteConfiguration, TypeUrl.Listener] as const;
const logger = pino({ level: 'silent' });

type Step =
  | { kind: 'endpoints' | 'cluster' | 'route' | 'listener' | 'forget' | 'depart' | 'subset' | 'grpc'; service: number }
  | { kind: 'add'; service: number };

const step: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom(
    ...(['endpoints', 'endpoints', 'endpoints', 'cluster', 'route', 'listener', 'forget', 'depart'] as const),
    ...(['subset', 'grpc', 'add'] as const),
  ),
  service: fc.nat(NAMES.length - 1),
});

let serial = 0;
const resource = (typeUrl: string, name: string): XdsResource =>
  ({ typeUrl, name, version: String(++serial) }) as unknown as XdsResource;

function fresh(name: string): ServiceOutput {
  const cluster = resource(TypeUrl.Cluster, name);
  return {
    inputs: undefined as unknown as ServiceOutput['inputs'],
    cluster,
    grpcCluster: cluster,
    endpoints: resource(TypeUrl.ClusterLoadAssignment, name),
    route: resource(TypeUrl.RouteConfiguration, name),
    listener: resource(TypeUrl.Listener, name),
    subsets: new Map(),
    departed: false,
  };
}

/** A service's resources of one type by name, its subsets' too (Clusters: both flavours). */
function namesOf(out: ServiceOutput | undefined, name: string, typeUrl: string): Map<string, readonly XdsResource[]> {
  const m = new Map<string, readonly XdsResource[]>();
  if (!out) return m;
  if (typeUrl === TypeUrl.Cluster) {
    m.set(name, [out.cluster, out.grpcCluster]);
    for (const [sub, o] of out.subsets) m.set(sub, [o.cluster, o.grpcCluster]);
  } else if (typeUrl === TypeUrl.ClusterLoadAssignment) {
    m.set(name, [out.endpoints]);
    for (const [sub, o] of out.subsets) m.set(sub, [o.endpoints]);
  } else m.set(name, [typeUrl === TypeUrl.RouteConfiguration ? out.route : out.listener]);
  return m;
}

/** What service-resources.ts marks: every name whose resource differs, every name of a service that departed or came back. */
function changedBetween(
  name: string,
  a: ServiceOutput | undefined,
  b: ServiceOutput | undefined,
  changed: ChangedNames,
): void {
  const all = (a?.departed ?? false) !== (b?.departed ?? false) || !a || !b;
  for (const t of TYPES) {
    const x = namesOf(a, name, t);
    const y = namesOf(b, name, t);
    for (const n of new Set([...x.keys(), ...y.keys()]))
      if (all || x.get(n)?.some((r, i) => r !== y.get(n)?.[i]) !== false) changed.get(t)!.add(n);
  }
}

function apply(services: Map<string, ServiceOutput>, s: Step): ChangedNames {
  const name = NAMES[s.service]!;
  const a = services.get(name);
  let b: ServiceOutput | undefined = a && { ...a };
  if (s.kind === 'add') b = a ?? fresh(name);
  else if (!b) b = undefined;
  else if (s.kind === 'forget') b = undefined;
  else if (s.kind === 'depart') b.departed = !b.departed;
  else if (s.kind === 'endpoints') b.endpoints = resource(TypeUrl.ClusterLoadAssignment, name);
  else if (s.kind === 'cluster') b.cluster = b.grpcCluster = resource(TypeUrl.Cluster, name);
  else if (s.kind === 'grpc')
    b.grpcCluster = b.grpcCluster === b.cluster ? resource(TypeUrl.Cluster, `grpc\n${name}`) : b.cluster;
  else if (s.kind === 'route') b.route = resource(TypeUrl.RouteConfiguration, name);
  else if (s.kind === 'listener') b.listener = resource(TypeUrl.Listener, name);
  else if (s.kind === 'subset') {
    const sub = `v1.${name}`;
    const subsets = new Map<string, SubsetOutput>(b.subsets);
    if (subsets.has(sub)) subsets.delete(sub);
    else {
      const c = resource(TypeUrl.Cluster, sub);
      subsets.set(sub, { cluster: c, grpcCluster: c, endpoints: resource(TypeUrl.ClusterLoadAssignment, sub) });
    }
    b.subsets = subsets;
  }
  const changed: ChangedNames = new Map(TYPES.map((t) => [t, new Set<string>()]));
  if (b) services.set(name, b);
  else services.delete(name);
  changedBetween(name, a, b, changed);
  return changed;
}

const node = (userAgent: string): XdsNode => ({ id: 'n', cluster: '', clientFeatures: [], userAgent });

test('node sets: a set patched with the changed names equals one rebuilt from every service', () => {
  fc.assert(
    fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), (steps) => {
      const services = new Map<string, ServiceOutput>(NAMES.slice(0, 3).map((n) => [n, fresh(n)]));
      const kept = createNodeSets(createEncodeCache(), logger);
      const everything = (): ChangedNames => new Map(TYPES.map((t) => [t, new Set(['*'])]));
      kept.rebuild(services, everything());
      for (const s of steps) {
        kept.rebuild(services, apply(services, s));
        const scratch = createNodeSets(createEncodeCache(), logger);
        scratch.rebuild(services, everything());
        for (const t of TYPES)
          for (const who of [node('envoy'), node('grpc-node-js')]) {
            const x = kept.get(t, who);
            const y = scratch.get(t, who);
            assert.deepEqual([...x.byName], [...y.byName], `${t} ${who.userAgent} after ${JSON.stringify(s)}`);
            assert.deepEqual([...x.wildcard], [...y.wildcard], `${t} ${who.userAgent} wildcard`);
            for (const [n, r] of x.byName) assert.equal(r, y.byName.get(n));
          }
      }
    }),
    { numRuns: 300 },
  );
});
