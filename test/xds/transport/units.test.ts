// Small pure pieces: wildcard rule, token bucket, framing, the proto loader,
// and the service table against the protos it claims to implement.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { status } from '@grpc/grpc-js';
import { isHubError } from '../../../src/errors';
import { createAdmission } from '../../../src/xds/transport/admission';
import { BodyCache } from '../../../src/xds/transport/body-cache';
import { encodeResource, envoyRoot, lookupType } from '../../../src/xds/transport/envoy-proto';
import { HeldVersions } from '../../../src/xds/transport/held-versions';
import {
  Clusters,
  Endpoints,
  Listeners,
  RESOURCE_TYPES,
  resourceTypeOf,
  v3TypeUrlOf,
} from '../../../src/xds/transport/resource-types';
import { computeDelta } from '../../../src/xds/transport/rules/response';
import { applyDeltaChange, applySotwNames } from '../../../src/xds/transport/rules/subscription';
import { routeClusters } from '../../../src/xds/transport/rules/warming';
import { XDS_METHODS } from '../../../src/xds/transport/services';
import { NO_SUBSCRIPTION, newTypeState, type Subscription } from '../../../src/xds/transport/stream-state';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import { v2Root } from '../../../src/xds/transport/v2-proto';
import { anyOf, decodeResponse, serializeResponse, sotwBody } from '../../../src/xds/transport/wire';
import { cla, cluster } from './helpers/fixtures';

const state = (s: { wildcard: boolean; names: ReadonlySet<string> }) => ({
  wildcard: s.wildcard,
  names: [...s.names].sort(),
});

test('X-SUB-3 (unit): SotW legacy wildcard sequence', () => {
  let sub: Subscription = NO_SUBSCRIPTION;
  const step = (names: string[]) => state((sub = applySotwNames(sub, Listeners, names).sub));
  assert.deepEqual(step([]), { wildcard: true, names: [] });
  assert.deepEqual(step(['*', 'A']), { wildcard: true, names: ['A'] });
  assert.deepEqual(step(['A']), { wildcard: false, names: ['A'] });
  assert.deepEqual(step([]), { wildcard: false, names: [] });
  assert.equal(applySotwNames(NO_SUBSCRIPTION, Endpoints, []).sub.wildcard, false, 'EDS has no wildcard');
});

test('X-SUB-3 (unit): Delta legacy wildcard sequence', () => {
  let sub: Subscription = NO_SUBSCRIPTION;
  const step = (s: string[], u: string[], first = false) =>
    state((sub = applyDeltaChange(sub, Clusters, s, u, first).sub));
  assert.deepEqual(step([], [], true), { wildcard: true, names: [] });
  assert.deepEqual(step(['A'], []), { wildcard: true, names: ['A'] });
  assert.deepEqual(step([], ['*']), { wildcard: false, names: ['A'] });
  assert.deepEqual(step([], ['A']), { wildcard: false, names: [] });
  assert.equal(
    applyDeltaChange(NO_SUBSCRIPTION, Clusters, ['A'], [], true).sub.wildcard,
    false,
    'a first request with names is not wildcard',
  );
});

test('admission: admits by count and heap, refuses past either bound with OVER_CAPACITY naming it; 0 means no count limit', () => {
  let used = 10;
  const a = createAdmission({ maxStreams: 2, maxHeapShare: 0.9, heap: () => ({ used, limit: 100 }) });
  assert.equal(a.check(0), undefined);
  assert.equal(a.check(1), undefined);
  const full = a.check(2);
  assert.ok(isHubError(full, 'OVER_CAPACITY'));
  assert.equal(full.grpcStatus, status.RESOURCE_EXHAUSTED);
  assert.match(full.message, /--xds-max-streams 2/);
  used = 95;
  assert.match(a.check(0)?.message ?? '', /heap at 0 of 0 MiB, above 90% of its limit/);
  const free = createAdmission({ maxStreams: 0, maxHeapShare: 0, heap: () => ({ used: 99, limit: 100 }) });
  assert.equal(free.check(1_000_000), undefined);
});

test('framing: a shared body plus a nonce decodes like a normally encoded DiscoveryResponse', () => {
  const c = cluster('c1');
  const body = sotwBody('v1', TypeUrl.Cluster, [{ res: c, wrap: false }]);
  const Res = lookupType('envoy.service.discovery.v3.DiscoveryResponse');
  const framed = Res.toObject(Res.decode(serializeResponse({ body, nonce: 'n-1' })), { longs: String });
  const normal = Res.toObject(
    Res.decode(
      Res.encode(
        Res.fromObject({
          versionInfo: 'v1',
          typeUrl: TypeUrl.Cluster,
          nonce: 'n-1',
          resources: [{ type_url: TypeUrl.Cluster, value: c.encoded }],
        }),
      ).finish(),
    ),
    { longs: String },
  );
  assert.deepEqual(framed, normal);
  assert.equal(anyOf(c, TypeUrl.Cluster), anyOf(c, TypeUrl.Cluster), 'the Any is built once per resource and type URL');
});

test('framing: the serializer joins body and nonce in one reused buffer, grown for a larger body; finished messages pass through', () => {
  const a = serializeResponse({ body: Buffer.from([10, 1, 65]), nonce: 'n1' });
  assert.deepEqual([...a], [10, 1, 65, 42, 2, 110, 49]);
  const b = serializeResponse({ body: Buffer.from([10, 1, 66]), nonce: 'n2' });
  assert.equal(a.buffer, b.buffer, 'the same memory: grpc-js has copied the previous message by now');
  assert.deepEqual([...b], [10, 1, 66, 42, 2, 110, 50]);
  const big = Buffer.alloc(200_000, 7);
  const c = serializeResponse({ body: big, nonce: 'n3' });
  assert.equal(c.length, 200_004);
  assert.ok(c.subarray(0, 200_000).equals(big));
  const done = Buffer.from('finished');
  assert.equal(serializeResponse(done), done);
  assert.throws(() => serializeResponse({ body: big, nonce: 'x'.repeat(128) }), /nonce longer than 127 bytes/);
});

test('encodeResource accepts snake_case and camelCase and names an unknown field', () => {
  const a = encodeResource('envoy.config.cluster.v3.Cluster', { name: 'x', connect_timeout: { seconds: 1 } });
  const b = encodeResource('envoy.config.cluster.v3.Cluster', { name: 'x', connectTimeout: { seconds: 1 } });
  assert.deepEqual(a, b);
  const od = encodeResource('envoy.config.cluster.v3.Cluster', {
    name: 'x',
    outlier_detection: { enforcing_consecutive_5xx: { value: 10 } },
  });
  assert.ok(od.length > 3);
  assert.throws(
    () => encodeResource('envoy.config.cluster.v3.Cluster', { name: 'x', eds_cluster_config: { eds_confg: {} } }),
    (e: unknown) => isHubError(e, 'INVALID_ARGUMENT') && e.field === 'eds_cluster_config.eds_confg',
  );
  assert.throws(
    () =>
      encodeResource('envoy.config.listener.v3.Listener', {
        api_listener: { api_listener: { '@type': 'type.googleapis.com/no.Such' } },
      }),
    (e: unknown) => isHubError(e) && e.field === 'api_listener.api_listener.@type',
  );
  assert.equal(envoyRoot(), envoyRoot(), 'loaded once');
});

test('every served method exists in the v3 upstream protos or the project v2 protos', () => {
  for (const m of XDS_METHODS) {
    const root = m.api === 'v3' ? envoyRoot() : v2Root();
    const svc = root.lookupService(m.service);
    const method = svc.methods[m.name];
    assert.ok(method, `${m.service}/${m.name}`);
    assert.equal(!!method.requestStream, m.kind !== 'fetch');
  }
  // ADS (v3, v2 and Envoy's old v2 name) × SotW/Delta; CDS/EDS/LDS/RDS × v3/v2 × three methods; SDS v3 × three.
  assert.equal(XDS_METHODS.length, 2 * 3 + 4 * 2 * 3 + 3);
});

test('HeldVersions: a shared base is never written; the overlay holds differences', () => {
  const base = new Map<string, string | null>([
    ['a', '1'],
    ['b', '2'],
    ['gone', null],
  ]);
  const h = HeldVersions.of(base);
  assert.deepEqual(
    [...h],
    [
      ['a', '1'],
      ['b', '2'],
    ],
  );
  const h2 = h.with([
    ['a', '9'],
    ['b', null],
    ['c', '3'],
  ]);
  assert.deepEqual([...h2].sort(), [
    ['a', '9'],
    ['c', '3'],
  ]);
  assert.deepEqual(
    [...h],
    [
      ['a', '1'],
      ['b', '2'],
    ],
    'a value never changes: updates make a new one',
  );
  assert.equal(h2.has('b'), false);
  assert.equal(h2.get('gone'), undefined);
  assert.deepEqual(
    [...base],
    [
      ['a', '1'],
      ['b', '2'],
      ['gone', null],
    ],
    'the shared map is untouched',
  );
  const h3 = h2.with([['a', '1']]); // back to the base version: the overlay entry goes
  assert.equal(h3.get('a'), '1');
  const big = h3.with(Array.from({ length: 100 }, (_, i): [string, string] => [`n${i}`, 'v'])); // large overlay: compacts into its own map
  assert.equal(big.size, 102);
  assert.equal(big.empty, false);
  assert.equal(HeldVersions.of(new Map()).empty, true);
});

test('BodyCache: LRU bounded by entries and by bytes', () => {
  const cache = new BodyCache(2, 10);
  const entry = (n: number) => ({ body: new Uint8Array(n), sent: new Map() });
  let builds = 0;
  const get = (k: string, n: number) =>
    cache.get(k, () => {
      builds++;
      return entry(n);
    });
  get('a', 4);
  get('b', 4);
  get('a', 4); // hit, and now the most recent
  get('c', 4); // over two entries: b, the least recent, goes
  assert.equal(builds, 3);
  get('a', 4);
  assert.equal(builds, 3, 'a stayed');
  get('b', 4);
  assert.equal(builds, 4, 'b was evicted');
  get('big', 10); // over the byte budget: older entries go first
  get('big', 10);
  assert.equal(builds, 5);
  get('a', 4);
  assert.equal(builds, 6, 'a went to make room');
});

test('X-WARM-2 (unit): routeClusters reads cluster and weighted_clusters names straight from the bytes, as a schema decode would', () => {
  const rc = {
    name: 'r',
    virtual_hosts: [
      {
        name: 'a',
        domains: ['*'],
        routes: [
          { match: { prefix: '/x' }, route: { cluster: 'one' } },
          { match: { prefix: '/r' }, redirect: { host_redirect: 'elsewhere' } },
        ],
      },
      {
        name: 'b',
        domains: ['b'],
        routes: [
          {
            match: { prefix: '' },
            route: {
              weighted_clusters: {
                clusters: [
                  { name: 'two', weight: { value: 60 } },
                  { name: 'three', weight: { value: 40 } },
                ],
              },
            },
          },
        ],
      },
    ],
  };
  const encoded = encodeResource('envoy.config.route.v3.RouteConfiguration', rc);
  const res = { name: 'r', typeUrl: TypeUrl.RouteConfiguration, version: 'v', encoded };
  assert.deepEqual([...routeClusters(res)].sort(), ['one', 'three', 'two']);
  const t = lookupType('envoy.config.route.v3.RouteConfiguration');
  const decoded = t.toObject(t.decode(encoded), { arrays: true }) as {
    virtualHosts: { routes: { route?: { cluster?: string; weightedClusters?: { clusters: { name: string }[] } } }[] }[];
  };
  const viaSchema = decoded.virtualHosts.flatMap((vh) =>
    vh.routes.flatMap((r) => [r.route?.cluster, ...(r.route?.weightedClusters?.clusters ?? []).map((c) => c.name)]),
  );
  assert.deepEqual(viaSchema.filter(Boolean).sort(), ['one', 'three', 'two']);
  assert.equal(routeClusters(res), routeClusters(res), 'read once per resource object');
});

test('Delta responses through one body cache: the memo of the last one-resource response never hands a stream another resource, version or TTL', () => {
  const memo = new BodyCache();
  const a1 = cla('a', [1]);
  const a2 = cla('a', [2]);
  const b1 = cla('b', [1]);
  const st = (names: string[]) => ({
    ...newTypeState(Endpoints, TypeUrl.ClusterLoadAssignment),
    started: true,
    answered: true,
    sub: { wildcard: false, names: new Set(names), everNamed: true },
    changed: new Set(names),
    dirty: true,
  });
  const set = (...rs: ReturnType<typeof cla>[]) => ({
    byName: new Map(rs.map((r) => [r.name, r])),
    wildcard: new Set<string>(),
  });
  const body = (s: ReturnType<typeof st>, resources: ReturnType<typeof set>, ttlMs: number) => {
    const r = computeDelta(s, { set: resources, ttlMs, sotwWrap: false, holdRemovals: false, memo }).response;
    assert.ok(r, 'a response');
    return decodeResponse('v3', 'DeltaDiscoveryResponse', r.body).resources.map(
      (x: { name: string; version: string; ttl?: unknown }) => `${x.name}@${x.version}${x.ttl ? '+ttl' : ''}`,
    );
  };
  // The same change to several streams: the same shared body.
  assert.deepEqual(body(st(['a']), set(a1), 0), [`a@${a1.version}`]);
  assert.deepEqual(body(st(['a']), set(a1), 0), [`a@${a1.version}`]);
  // Right after it: another version, another name, a TTL, two resources — each its own body.
  assert.deepEqual(body(st(['a']), set(a2), 0), [`a@${a2.version}`]);
  assert.deepEqual(body(st(['b']), set(a2, b1), 0), [`b@${b1.version}`]);
  assert.deepEqual(body(st(['b']), set(a2, b1), 5000), [`b@${b1.version}/ttl5000+ttl`]);
  assert.deepEqual(body(st(['a', 'b']), set(a2, b1), 0), [`a@${a2.version}`, `b@${b1.version}`]);
  assert.deepEqual(body(st(['a']), set(a1), 0), [`a@${a1.version}`]);
});

test('the resource-type registry: each type whole, one push position each, every URL resolving to it', () => {
  const orders = RESOURCE_TYPES.map((t) => t.order);
  assert.deepEqual(orders, [...orders.keys()], 'push positions 0..n-1, RESOURCE_TYPES in that order');
  assert.deepEqual(
    RESOURCE_TYPES.map((t) => t.short),
    ['CDS', 'EDS', 'LDS', 'RDS', 'SDS'],
  );
  for (const t of RESOURCE_TYPES) {
    assert.equal(resourceTypeOf(t.typeUrl), t, t.short);
    assert.equal(resourceTypeOf(t.v2TypeUrl), t, `${t.short} v2`);
    assert.equal(v3TypeUrlOf(t.v2TypeUrl), t.typeUrl);
    assert.equal(v3TypeUrlOf(t.typeUrl), undefined, 'a v3 URL is not a v2 one');
    assert.equal(envoyRoot().lookupService(t.services.v3).name, t.services.v3.split('.').at(-1));
  }
  assert.equal(new Set(RESOURCE_TYPES.map((x) => x.rest)).size, RESOURCE_TYPES.length, 'REST names distinct');
});
