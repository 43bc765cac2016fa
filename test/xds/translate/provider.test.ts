import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import type { ServiceName } from '../../../src/catalog/catalog';
import { XDS_WATCHED_KINDS } from '../../../src/catalog/config-kinds';
import type { CheckServiceNode, ConfigEntry } from '../../../src/catalog/types';
import type { ViewKey, ViewStore } from '../../../src/materializer/types';
import { createCatalogXdsProvider } from '../../../src/xds/translate/catalog-provider';
import type { ResourceChange, XdsNode } from '../../../src/xds/transport/provider';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import { decode, entry, grpcJsError, instance } from './helpers';

/** A ViewStore whose results the test pushes by hand. */
function fakeViews() {
  const watchers = new Map<string, Set<(r: { index: bigint; value: unknown }) => void>>();
  const latest = new Map<string, unknown>();
  let index = 0n;
  const keyOf = (k: ViewKey) =>
    k.kind === 'service-health' ? `health/${k.service}` : k.kind === 'service-list' ? 'list' : `config/${k.configKind}`;
  const store: ViewStore & { emit(key: string, value: unknown): void; watched(): string[] } = {
    get: () => Promise.reject(new Error('not used')),
    notify(key, _token, onResult) {
      const k = keyOf(key);
      let set = watchers.get(k);
      if (!set) watchers.set(k, (set = new Set()));
      const cb = onResult as (r: { index: bigint; value: unknown }) => void;
      set.add(cb);
      if (latest.has(k)) queueMicrotask(() => cb({ index, value: latest.get(k) }));
      return () => set!.delete(cb);
    },
    close() {},
    emit(key, value) {
      index++;
      latest.set(key, Object.freeze(value));
      for (const cb of watchers.get(key) ?? []) cb({ index, value: latest.get(key) });
    },
    watched: () =>
      [...watchers]
        .filter(([, s]) => s.size > 0)
        .map(([k]) => k)
        .sort(),
  };
  return store;
}

/** Every kind the provider watches (the registry's), each delivered empty. */
const KINDS = XDS_WATCHED_KINDS;
const grpcNode: XdsNode = { id: 'client-1', cluster: '', clientFeatures: [], userAgent: 'gRPC Node Pure JS' };
const envoyNode = (cluster: string): XdsNode => ({ id: 'envoy-1', cluster, clientFeatures: [], userAgent: 'envoy' });
const names = (list: { Name: string }[]): ServiceName[] =>
  list.map((s) => ({ Name: s.Name, Namespace: '', Partition: '' }));

async function setup() {
  const views = fakeViews();
  const provider = createCatalogXdsProvider({ views, logger: pino({ level: 'silent' }) });
  const changes: ResourceChange[][] = [];
  provider.onChange((c) => changes.push([...c]));
  views.emit('list', names([{ Name: 'web' }, { Name: 'api' }]));
  for (const k of KINDS) views.emit(`config/${k}`, [] as ConfigEntry[]);
  // Health arrives after the watches start.
  await new Promise((r) => setImmediate(r));
  views.emit('health/web', [instance({ service: 'web', address: '10.0.0.1' })] as CheckServiceNode[]);
  views.emit('health/api', [] as CheckServiceNode[]);
  await provider.ready();
  const nextChange = () =>
    new Promise<ResourceChange[]>((resolve) => {
      const stop = provider.onChange((c) => {
        stop();
        resolve([...c]);
      });
    });
  return { views, provider, changes, nextChange };
}

test('provider: every listed service gets Cluster, CLA (empty too), RouteConfiguration and API Listener; all accepted by grpc-js', async () => {
  const { provider, views } = await setup();
  assert.deepEqual(views.watched(), [
    'config/http-route',
    'config/ingress-gateway',
    'config/mesh',
    'config/proxy-defaults',
    'config/service-defaults',
    'config/service-intentions',
    'config/service-resolver',
    'config/service-router',
    'config/service-splitter',
    'config/terminating-gateway',
    'health/api',
    'health/web',
    'list',
  ]);
  for (const typeUrl of [
    TypeUrl.Cluster,
    TypeUrl.ClusterLoadAssignment,
    TypeUrl.RouteConfiguration,
    TypeUrl.Listener,
  ]) {
    const set = provider.get(typeUrl, grpcNode);
    assert.deepEqual([...set.byName.keys()].sort(), ['api', 'web'], typeUrl);
    for (const r of set.byName.values()) assert.equal(grpcJsError(r), undefined, `${typeUrl} ${r.name}`);
  }
  assert.equal(decode(provider.get(TypeUrl.ClusterLoadAssignment, grpcNode).byName.get('api')!).endpoints, undefined);
  assert.deepEqual(
    [...provider.get(TypeUrl.Listener, grpcNode).wildcard],
    [],
    'API listeners are never in a wildcard LDS',
  );
  assert.deepEqual([...provider.get(TypeUrl.Cluster, envoyNode('x')).wildcard].sort(), ['api', 'web']);
  provider.close();
  assert.deepEqual(views.watched(), []);
});

test('provider: a health change retranslates only that service and reports only its CLA; resources are shared objects', async () => {
  const { provider, views, nextChange } = await setup();
  const before = provider.get(TypeUrl.ClusterLoadAssignment, grpcNode);
  const clusterBefore = provider.get(TypeUrl.Cluster, grpcNode);
  const encodes = provider.stats().encodes;
  const changed = nextChange();
  views.emit('health/web', [
    instance({ service: 'web', address: '10.0.0.1' }),
    instance({ service: 'web', address: '10.0.0.2' }),
  ]);
  const c = await changed;
  assert.deepEqual(
    c.map((x) => [x.typeUrl, [...x.names]]),
    [[TypeUrl.ClusterLoadAssignment, ['web']]],
  );
  const after = provider.get(TypeUrl.ClusterLoadAssignment, grpcNode);
  assert.notEqual(after.byName.get('web'), before.byName.get('web'));
  assert.equal(after.byName.get('api'), before.byName.get('api'), 'untouched service keeps its resource object');
  assert.equal(provider.get(TypeUrl.Cluster, grpcNode), clusterBefore, 'CDS set unchanged');
  assert.equal(
    provider.get(TypeUrl.ClusterLoadAssignment, envoyNode('')),
    after,
    'every node gets the same set object',
  );
  // Only the changed service was rebuilt: cluster/route/listener hit the cache, one CLA encoded.
  assert.equal(provider.stats().encodes - encodes, 1);
  provider.close();
});

test('provider: identical health content emits nothing; a different one in the same turn does, and so does a real change after', async () => {
  const { provider, views, nextChange } = await setup();
  const webBefore = provider.get(TypeUrl.ClusterLoadAssignment, grpcNode).byName.get('web');
  // Same endpoint under another node name: the assignment's bytes do not change. api really changes, in the same turn.
  let changed = nextChange();
  views.emit('health/web', [instance({ service: 'web', address: '10.0.0.1', node: 'other-node-name-same-endpoint' })]);
  views.emit('health/api', [instance({ service: 'api', address: '10.0.9.9' })]);
  let c = await changed;
  assert.deepEqual(
    c.map((x) => [x.typeUrl, [...x.names]]),
    [[TypeUrl.ClusterLoadAssignment, ['api']]],
    'only api is reported',
  );
  assert.equal(
    provider.get(TypeUrl.ClusterLoadAssignment, grpcNode).byName.get('web'),
    webBefore,
    'web keeps its resource object',
  );
  // Positive control: the same web view with a new address is reported.
  changed = nextChange();
  views.emit('health/web', [instance({ service: 'web', address: '10.0.0.7', node: 'other-node-name-same-endpoint' })]);
  c = await changed;
  assert.deepEqual(
    c.map((x) => [x.typeUrl, [...x.names]]),
    [[TypeUrl.ClusterLoadAssignment, ['web']]],
  );
  assert.notEqual(provider.get(TypeUrl.ClusterLoadAssignment, grpcNode).byName.get('web'), webBefore);
  provider.close();
});

test('provider: services appear and disappear with the service list (watch started and stopped)', async () => {
  const { provider, views, nextChange } = await setup();
  let changed = nextChange();
  views.emit('list', names([{ Name: 'web' }, { Name: 'api' }, { Name: 'db' }]));
  let c = await changed;
  assert.ok(views.watched().includes('health/db'));
  assert.deepEqual(
    [...(c.find((x) => x.typeUrl === TypeUrl.Cluster)?.names ?? [])],
    ['db'],
    'db cluster added (CLA empty until health arrives)',
  );
  changed = nextChange();
  views.emit('list', names([{ Name: 'web' }]));
  c = await changed;
  assert.ok(!views.watched().includes('health/api'));
  for (const typeUrl of [
    TypeUrl.Cluster,
    TypeUrl.ClusterLoadAssignment,
    TypeUrl.RouteConfiguration,
    TypeUrl.Listener,
  ]) {
    assert.ok(c.find((x) => x.typeUrl === typeUrl)?.names.has('api'), `${typeUrl} reports api moved`);
    // Departed: kept for clients that name it (docs/xds.md, "A service that leaves"), out of every wildcard set.
    assert.deepEqual([...provider.get(typeUrl, grpcNode).byName.keys()].sort(), ['api', 'db', 'web']);
    assert.ok(
      ![...provider.get(typeUrl, envoyNode('')).wildcard].some((n) => n !== 'web'),
      `${typeUrl}: only web is in the wildcard set`,
    );
  }
  assert.equal(
    decode(provider.get(TypeUrl.ClusterLoadAssignment, grpcNode).byName.get('api')!).endpoints,
    undefined,
    'a departed service has no endpoints',
  );
  assert.equal(provider.stats().services, 1, 'stats count the services in the universe');

  // Back in the list: in the wildcard sets again, every name reported.
  changed = nextChange();
  views.emit('list', names([{ Name: 'web' }, { Name: 'api' }]));
  c = await changed;
  for (const typeUrl of [TypeUrl.Cluster, TypeUrl.ClusterLoadAssignment, TypeUrl.RouteConfiguration]) {
    assert.ok(c.find((x) => x.typeUrl === typeUrl)?.names.has('api'), `${typeUrl} reports api back`);
    assert.deepEqual([...provider.get(typeUrl, envoyNode('')).wildcard].sort(), ['api', 'web']);
  }
  provider.close();
});

test('provider: resolver least_request → Envoy gets LEAST_REQUEST, gRPC clients ROUND_ROBIN', async () => {
  const { provider, views, nextChange } = await setup();
  const changed = nextChange();
  views.emit('config/service-resolver', [
    entry('service-resolver', 'web', { LoadBalancer: { Policy: 'least_request' } }),
  ]);
  await changed;
  assert.equal(decode(provider.get(TypeUrl.Cluster, envoyNode('')).byName.get('web')!).lbPolicy, 'LEAST_REQUEST');
  const g = provider.get(TypeUrl.Cluster, grpcNode).byName.get('web')!;
  assert.equal(decode(g).lbPolicy, 'ROUND_ROBIN');
  assert.equal(grpcJsError(g), undefined);
  provider.close();
});

test('provider: failover target health changes the CLA of the service that fails over to it', async () => {
  const { provider, views, nextChange } = await setup();
  // api has no instances yet: web's resources do not change, so nothing is emitted; let the flush run.
  views.emit('config/service-resolver', [entry('service-resolver', 'web', { Failover: { '*': { Service: 'api' } } })]);
  await new Promise((r) => setImmediate(r));
  const changed = nextChange();
  views.emit('health/api', [instance({ service: 'api', address: '10.0.9.9' })]);
  const c = await changed;
  assert.deepEqual([...c.find((x) => x.typeUrl === TypeUrl.ClusterLoadAssignment)!.names].sort(), ['api', 'web']);
  const cla = decode(provider.get(TypeUrl.ClusterLoadAssignment, grpcNode).byName.get('web')!);
  assert.deepEqual(
    cla.endpoints.map((l: any) => l.priority ?? 0),
    [0, 1],
  );
  provider.close();
});

test('provider: ingress gateway listeners and routes go only to the node whose cluster (else id) names the gateway', async () => {
  const { provider, views, nextChange } = await setup();
  const changed = nextChange();
  views.emit('config/ingress-gateway', [
    entry('ingress-gateway', 'gw', { Listeners: [{ Port: 8080, Protocol: 'http', Services: [{ Name: 'web' }] }] }),
  ]);
  const c = await changed;
  assert.deepEqual(
    c.map((x) => [x.typeUrl, [...x.names], x.nodeScope]),
    [
      [TypeUrl.Listener, ['gw:8080'], 'gw'],
      [TypeUrl.RouteConfiguration, ['gw:8080'], 'gw'],
    ],
    'the gateway listener and its routes, scoped to the gateway',
  );
  const gwLds = provider.get(TypeUrl.Listener, envoyNode('gw'));
  assert.deepEqual([...gwLds.wildcard], ['gw:8080']);
  assert.deepEqual(
    [...gwLds.byName.keys()].sort(),
    ['api', 'gw:8080', 'web'],
    'its own listener beside the API listeners',
  );
  assert.ok(provider.get(TypeUrl.RouteConfiguration, envoyNode('gw')).byName.has('gw:8080'));
  assert.ok(
    provider.get(TypeUrl.Listener, { ...envoyNode(''), id: 'gw' }).byName.has('gw:8080'),
    'node.id when cluster is empty',
  );
  assert.ok(!provider.get(TypeUrl.Listener, envoyNode('other')).byName.has('gw:8080'));
  assert.ok(!provider.get(TypeUrl.RouteConfiguration, grpcNode).byName.has('gw:8080'));
  provider.close();
});

test('provider: an http-route retranslates the parent route and gives backends a cluster even before they register', async () => {
  const { provider, views, nextChange } = await setup();
  const changed = nextChange();
  views.emit('config/http-route', [
    entry('http-route', 'r', {
      Parents: [{ Name: 'web' }],
      Rules: [{ Matches: [{ Path: { Match: 'prefix', Value: '/v2' } }], Services: [{ Name: 'web-v2' }] }],
    }),
  ]);
  const c = await changed;
  assert.ok(c.find((x) => x.typeUrl === TypeUrl.RouteConfiguration)!.names.has('web'));
  assert.ok(provider.get(TypeUrl.Cluster, grpcNode).byName.has('web-v2'));
  assert.equal(
    decode(provider.get(TypeUrl.ClusterLoadAssignment, grpcNode).byName.get('web-v2')!).endpoints,
    undefined,
  );
  const routes = decode(provider.get(TypeUrl.RouteConfiguration, grpcNode).byName.get('web')!).virtualHosts[0].routes;
  assert.deepEqual(routes[0], { match: { prefix: '/v2' }, route: { cluster: 'web-v2' } });
  provider.close();
});
