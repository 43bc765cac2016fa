// Property: what the provider keeps per changed instance equals what it would
// build from scratch. Random sequences of instance registrations, changes and
// removals (health, weights, addresses shared by several instances, hostnames
// and port 0 that are left out, datacenter and zone, sidecar proxies and
// Connect-native instances appearing and disappearing) are applied to
// health-view-like lists (sorted by node, then service ID; unchanged instances
// keep their object). After every step:
// - the kept assignment (assignment.ts), of all instances or of a subset's, has the
//   bytes and version of buildLoadAssignment + encode on the same (filtered) list,
//   and of a fresh one built from it;
// - fed with the results of a real health view (taken after some batches, not all),
//   the same holds, and what the view says changed between two results is exactly
//   the instances one result has and the other has not;
// - the kept proxy index (sidecar/proxies.ts) has the proxies and mesh endpoints of
//   one built from scratch, and reports every proxy and destination that moved.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { CheckServiceNode, HealthStatus } from '../../../src/catalog/types';
import { healthView } from '../../../src/materializer/views/health';
import { changesBetween } from '../../../src/materializer/views/sorted-sharded';
import { createLiveAssignment } from '../../../src/xds/translate/assignment';
import { encodeXdsResource } from '../../../src/xds/translate/encode';
import { buildLoadAssignment, byNodeThenId } from '../../../src/xds/translate/endpoints';
import type { Instances } from '../../../src/xds/translate/instance-diff';
import { createProxyIndex } from '../../../src/xds/translate/sidecar/proxies';
import type { CatalogInputs } from '../../../src/xds/translate/view-inputs';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import { health } from '../../materializer/fixtures';
import { instance } from './helpers';

const SERVICES = ['web', 'api', 'web-sidecar-proxy'];
const NO_LIST: readonly CheckServiceNode[] = Object.freeze([]);

interface Attrs {
  address: string;
  nodeAddress: string;
  port: number;
  statuses: HealthStatus[];
  weights: { Passing: number; Warning: number };
  datacenter: string;
  zone: string;
  zoneBy: 'locality' | 'meta';
  mesh: 'none' | 'proxy' | 'proxy-no-destination' | 'native';
  destination: string;
}

const attrs: fc.Arbitrary<Attrs> = fc.record({
  address: fc.constantFrom('', '10.0.0.1', '10.0.0.2', '10.0.0.3', 'fd00::1', 'backend.example'),
  nodeAddress: fc.constantFrom('10.0.0.1', '10.0.0.4', 'node.example'),
  port: fc.constantFrom(8080, 8080, 9090, 0),
  statuses: fc.array(fc.constantFrom<HealthStatus>('passing', 'passing', 'warning', 'critical', 'maintenance'), {
    minLength: 0,
    maxLength: 2,
  }),
  weights: fc.record({ Passing: fc.integer({ min: 0, max: 4 }), Warning: fc.integer({ min: 0, max: 2 }) }),
  datacenter: fc.constantFrom('dc1', 'dc2'),
  zone: fc.constantFrom('', 'a', 'b'),
  zoneBy: fc.constantFrom('locality', 'meta'),
  mesh: fc.constantFrom('none', 'none', 'proxy', 'proxy-no-destination', 'native'),
  destination: fc.constantFrom('web', 'api'),
});

type Op =
  | { op: 'set'; service: number; node: number; id: number; attrs: Attrs }
  | { op: 'remove'; service: number; node: number; id: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('set' as const),
      service: fc.nat(SERVICES.length - 1),
      node: fc.nat(5),
      id: fc.nat(3),
      attrs,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('remove' as const),
      service: fc.nat(SERVICES.length - 1),
      node: fc.nat(5),
      id: fc.nat(3),
    }),
  },
);

function make(service: string, node: number, id: number, a: Attrs): CheckServiceNode {
  const base = instance({
    service,
    node: `n${node}`,
    id: `s${id}`,
    address: a.address,
    nodeAddress: a.nodeAddress,
    port: a.port,
    statuses: a.statuses,
    weights: a.weights,
    datacenter: a.datacenter,
    ...(a.zoneBy === 'locality' && a.zone !== '' ? { zone: a.zone } : {}),
    ...(a.zoneBy === 'meta' && a.zone !== '' ? { nodeMetaZone: a.zone } : {}),
  });
  const svc = { ...base.Service };
  if (a.mesh === 'proxy' || a.mesh === 'proxy-no-destination') {
    svc.Kind = 'connect-proxy';
    svc.Proxy = a.mesh === 'proxy' ? { DestinationServiceName: a.destination, LocalServicePort: 8080 } : {};
  } else if (a.mesh === 'native') svc.Connect = { Native: true };
  return Object.freeze({ ...base, Service: Object.freeze(svc) });
}

/** One step on a health-view-like list: a new sorted array, the untouched instances kept as the same objects. */
function apply(list: readonly CheckServiceNode[], o: Op): readonly CheckServiceNode[] {
  const service = SERVICES[o.service]!;
  const rest = list.filter((c) => !(c.Node.Node === `n${o.node}` && c.Service.ID === `s${o.id}`));
  if (o.op === 'remove') return rest.length === list.length ? list : Object.freeze(rest);
  return Object.freeze([...rest, make(service, o.node, o.id, o.attrs)].sort(byNodeThenId));
}

/** Resolver-subset-like filters: every instance, or those on one port, or those whose checks all pass. */
const SELECTS: Record<string, ((c: CheckServiceNode) => boolean) | undefined> = {
  none: undefined,
  port: (c) => c.Service.Port === 8080,
  passing: (c) => c.Checks.every((k) => k.Status === 'passing'),
};
const SUBSETS = Object.keys(SELECTS);

/** A list as the provider takes a delivery (instance-diff.ts): one object per list, so an unchanged list is the same input. */
const delivered = new WeakMap<readonly CheckServiceNode[], Instances>();
const asInstances = (list: readonly CheckServiceNode[]): Instances => {
  let out = delivered.get(list);
  if (!out) delivered.set(list, (out = Object.freeze({ value: list })));
  return out;
};

const fromScratch = (name: string, instances: readonly CheckServiceNode[], keepUnhealthy: boolean) =>
  encodeXdsResource(TypeUrl.ClusterLoadAssignment, name, buildLoadAssignment({ name, instances, keepUnhealthy }));

test('a kept assignment has the bytes and version of one built from scratch, after every change', () => {
  fc.assert(
    fc.property(
      fc.array(op, { minLength: 1, maxLength: 60 }),
      fc.boolean(),
      fc.constantFrom(1, 2, 256),
      fc.constantFrom(...SUBSETS),
      (ops, keepUnhealthy, chunk, subset) => {
        const selects = SELECTS[subset];
        const live = createLiveAssignment('web', { keepUnhealthy, chunk, ...(selects ? { selects } : {}) });
        let list: readonly CheckServiceNode[] = [];
        let last = live.update(asInstances(list));
        for (const o of ops) {
          // Every instance is of one service here; the service index only varies the instance's content.
          list = apply(list, o);
          const before = last;
          last = live.update(asInstances(list));
          const want = fromScratch('web', selects ? list.filter(selects) : list, keepUnhealthy);
          assert.equal(Buffer.compare(Buffer.from(last.encoded), Buffer.from(want.encoded)), 0, 'same bytes');
          assert.equal(last.version, want.version);
          assert.equal(last.name, 'web');
          assert.equal(last.typeUrl, TypeUrl.ClusterLoadAssignment);
          // Same bytes: the same object, so the provider reports no change.
          if (before.version === last.version) assert.equal(last, before);
        }
        const fresh = createLiveAssignment('web', { keepUnhealthy, chunk, ...(selects ? { selects } : {}) }).update(
          asInstances(list),
        );
        assert.equal(fresh.version, last.version);
      },
    ),
    { numRuns: 300 },
  );
});

test('a kept proxy index equals one built from scratch, and reports every proxy and destination that moved', () => {
  fc.assert(
    fc.property(fc.array(op, { minLength: 1, maxLength: 60 }), (ops) => {
      const lists = new Map<string, readonly CheckServiceNode[]>(SERVICES.map((s) => [s, []]));
      const inputsOf = (m: ReadonlyMap<string, readonly CheckServiceNode[]>): CatalogInputs =>
        ({
          serviceList: () => [...m.keys()].map((Name) => ({ Name, Tags: [] })),
          instances: (s: string) => asInstances(m.get(s) ?? NO_LIST),
        }) as unknown as CatalogInputs;
      const kept = createProxyIndex();
      kept.update(inputsOf(lists), { all: true, services: new Set() });
      const destinations = ['web', 'api', 'web-sidecar-proxy'];
      for (const o of ops) {
        const service = SERVICES[o.service]!;
        const beforeIds = new Map(kept.byId);
        const beforeEps = new Map(destinations.map((d) => [d, kept.endpointsOf(d)]));
        lists.set(service, apply(lists.get(service)!, o));
        const touched = kept.update(inputsOf(lists), { all: false, services: new Set([service]) });
        const scratch = createProxyIndex();
        scratch.update(inputsOf(lists), { all: true, services: new Set() });
        assert.deepEqual([...kept.byId.keys()].sort(), [...scratch.byId.keys()].sort());
        for (const [id, p] of scratch.byId) {
          assert.equal(kept.byId.get(id)!.csn, p.csn, `proxy ${id}`);
          assert.equal(kept.byId.get(id)!.destination, p.destination);
          if (beforeIds.get(id)?.csn !== p.csn)
            assert.ok(touched.proxies.has(id), `proxy ${id} moved but was not reported`);
        }
        for (const id of beforeIds.keys())
          if (!scratch.byId.has(id)) assert.ok(touched.proxies.has(id), `proxy ${id} left but was not reported`);
        for (const d of destinations) {
          assert.deepEqual(kept.endpointsOf(d), scratch.endpointsOf(d), `endpoints of ${d}`);
          const same =
            beforeEps.get(d)!.length === kept.endpointsOf(d).length &&
            beforeEps.get(d)!.every((c, i) => c === kept.endpointsOf(d)[i]);
          if (!same) assert.ok(touched.destinations.has(d), `endpoints of ${d} moved but were not reported`);
          // An unchanged list stays the same array, so the mesh assignment built from it is not rebuilt.
          else assert.equal(kept.endpointsOf(d), beforeEps.get(d));
        }
      }
    }),
    { numRuns: 300 },
  );
});

test('fed by a real health view: what it says changed between results is exact, and the kept assignment matches', () => {
  const idOf = (c: CheckServiceNode) => `${c.Node.Node}/${c.Service.ID}`;
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.array(op, { minLength: 1, maxLength: 20 }), fc.boolean()), { minLength: 1, maxLength: 25 }),
      fc.boolean(),
      (batches, keepUnhealthy) => {
        const view = healthView({ service: 'web' });
        const live = createLiveAssignment('web', { keepUnhealthy, chunk: 2 });
        let index = 0;
        let taken: readonly CheckServiceNode[] | undefined;
        for (const [ops, take] of batches) {
          index++;
          view.update(
            ops.map((o) =>
              o.op === 'remove'
                ? health(index, 'deregister', make('web', o.node, o.id, FIXED))
                : health(index, 'register', make('web', o.node, o.id, o.attrs)),
            ),
          );
          // Results are taken only now and then, as a busy notify folds deliveries.
          if (!take) continue;
          // The kept assignment is fed the deferred result, as the provider is: it learns the changes from the view, the array unbuilt.
          const got = live.update(view.deferred!(BigInt(index)));
          const result = view.result(BigInt(index));
          if (taken) {
            const known = changesBetween(taken, result);
            if (known) {
              const was = new Set(taken);
              const is = new Set(result);
              assert.deepEqual(new Set(known.removed), new Set(taken.filter((c) => !is.has(c))), 'removed');
              assert.deepEqual(new Set(known.added), new Set(result.filter((c) => !was.has(c))), 'added');
            }
          }
          taken = result;
          assert.deepEqual(result.map(idOf), [...result].sort(byNodeThenId).map(idOf));
          assert.equal(got.version, fromScratch('web', result, keepUnhealthy).version);
        }
      },
    ),
    { numRuns: 200 },
  );
});

const FIXED: Attrs = {
  address: '10.0.0.1',
  nodeAddress: '10.0.0.1',
  port: 8080,
  statuses: [],
  weights: { Passing: 1, Warning: 1 },
  datacenter: 'dc1',
  zone: '',
  zoneBy: 'meta',
  mesh: 'none',
  destination: 'web',
};
