// What the provider hands sidecars and what it announces, on a real hub
// (catalog → Subscribe → views → translation): a sidecar's own sets (its
// leaf, nobody else's), an intention change announced only for the sidecars
// of the destination it affects, a node that becomes a sidecar told about
// every name it now sees, and L7 permissions compiled with first-match
// semantics.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ALL_PARTS, type Hub } from '../../src/hub';
import type { CatalogXdsProvider } from '../../src/xds/translate/catalog-provider';
import { l7Permission } from '../../src/xds/translate/sidecar/rbac';
import type { ResourceChange, XdsNode } from '../../src/xds/transport/provider';
import { TypeUrl } from '../../src/xds/transport/type-urls';
import { startHub } from '../helpers/hub';
import { letTimePass, until } from '../helpers/until';
import { decode } from '../xds/translate/helpers';

let hub: Hub;
let provider: CatalogXdsProvider;
const node = (id: string): XdsNode => ({ id, cluster: 'x', clientFeatures: [], userAgent: 'envoy' });

async function put(url: string, body: unknown): Promise<void> {
  const res = await hub.http.inject({ method: 'PUT', url, payload: body as object });
  assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
}

/**
 * The changes the provider announces once `done` says it has seen enough, and in a short
 * window after it: what the tests assert must not have been announced would come in it.
 */
async function changesUntil(
  action: () => Promise<void>,
  done: (all: ResourceChange[]) => boolean,
): Promise<ResourceChange[]> {
  const seen: ResourceChange[] = [];
  const stop = provider.onChange((c) => seen.push(...c));
  try {
    await action();
    await until(() => done(seen), { what: () => `the announcements awaited (saw ${seen.length} changes)` });
    await letTimePass(100, 'a window for announcements that must not come (another node, a secret) to show');
    return seen;
  } finally {
    stop();
  }
}

/** A listener change for `id`: for it alone, or for every node (which the test then rejects). */
const isListenerFor = (c: ResourceChange, id: string) => c.typeUrl === TypeUrl.Listener && (c.nodeIds?.has(id) ?? true);

before(async () => {
  const started = await startHub({ nodeName: 'prov-node' }, { parts: ALL_PARTS });
  hub = started;
  provider = started.provider;
  for (const [name, id, port] of [
    ['web', 'web1', 25001],
    ['web', 'web2', 25002],
    ['api', 'api1', 25003],
  ] as const) {
    await put('/v1/agent/service/register', {
      Name: name,
      ID: id,
      Port: 9000 + (port % 100),
      Connect: { SidecarService: { Port: port, Checks: [{ TTL: '1h', Status: 'passing' }] } },
    });
  }
  await provider.ready();
  await until(
    () =>
      ['web', 'api'].every((s) => hub.catalog.connectCa().leaves.has(s)) &&
      provider.get(TypeUrl.Secret, node('api1-sidecar-proxy')).byName.size === 2,
    'leaves for web and api, and both secrets for api1-sidecar-proxy',
  );
});
after(() => hub?.close());

test('a sidecar gets its own sets: its service’s leaf and the trust bundle, listeners and clusters of its own', async () => {
  const td = hub.catalog.connectCa().trustDomain;
  const web1 = provider.get(TypeUrl.Secret, node('web1-sidecar-proxy'));
  assert.deepEqual([...web1.byName.keys()].sort(), [`spiffe://${td}`, `spiffe://${td}/ns/default/dc/dc1/svc/web`]);
  assert.deepEqual([...web1.wildcard], [], 'secrets are asked for by name');
  const api1 = provider.get(TypeUrl.Secret, node('api1-sidecar-proxy'));
  assert.ok(!api1.byName.has(`spiffe://${td}/ns/default/dc/dc1/svc/web`), 'no other service’s leaf');
  assert.deepEqual(
    [...provider.get(TypeUrl.Listener, node('web1-sidecar-proxy')).byName.keys()],
    ['public_listener:0.0.0.0:25001'],
  );
  assert.deepEqual([...provider.get(TypeUrl.Cluster, node('web1-sidecar-proxy')).byName.keys()], ['local_app']);
  assert.equal(
    provider.get(TypeUrl.Secret, node('not-a-proxy')).byName.size,
    0,
    'an Envoy that is no sidecar gets no secret',
  );
});

test('an intention change for web is announced only to web’s sidecars', async () => {
  const changes = await changesUntil(
    () => put('/v1/connect/intentions/exact?source=api&destination=web', { Action: 'deny' }),
    // Both web sidecars reached (an announcement to everyone reaches them too, and fails below).
    (all) => ['web1', 'web2'].every((id) => all.some((c) => isListenerFor(c, `${id}-sidecar-proxy`))),
  );
  const listeners = changes.filter((c) => c.typeUrl === TypeUrl.Listener);
  assert.ok(listeners.length > 0, 'the public listeners changed');
  const reached = new Set(listeners.flatMap((c) => [...(c.nodeIds ?? ['<everyone>'])]));
  assert.deepEqual([...reached].sort(), ['web1-sidecar-proxy', 'web2-sidecar-proxy']);
  assert.ok(!changes.some((c) => c.typeUrl === TypeUrl.Secret), 'no secret moved');
});

test('a node that becomes a sidecar is told every name it now sees', async () => {
  const id = 'late1-sidecar-proxy';
  assert.equal(provider.get(TypeUrl.Secret, node(id)).byName.size, 0);
  const changes = await changesUntil(
    () =>
      put('/v1/agent/service/register', {
        Name: 'late',
        ID: 'late1',
        Port: 9050,
        Connect: { SidecarService: { Port: 25050, Checks: [{ TTL: '1h', Status: 'passing' }] } },
      }),
    (all) => all.some((c) => c.nodeIds?.has(id) && c.typeUrl === TypeUrl.Listener),
  );
  const forIt = changes.filter((c) => c.nodeIds?.has(id));
  assert.ok(forIt.find((c) => c.typeUrl === TypeUrl.Listener)?.names.has('public_listener:0.0.0.0:25050'));
  assert.ok(
    forIt.find((c) => c.typeUrl === TypeUrl.Cluster)?.names.has('web'),
    'the plain clusters it saw before are announced (they go away for it)',
  );
});

test('L7 permissions: the first match decides; requests no permission matches get the default', () => {
  const perms = [
    { action: 'deny' as const, http: { PathPrefix: '/admin' } },
    { action: 'allow' as const, http: { PathPrefix: '/', Methods: ['GET'] } },
  ];
  const admin = { url_path: { path: { prefix: '/admin' } } };
  const get = {
    and_rules: {
      rules: [
        { url_path: { path: { prefix: '/' } } },
        { header: { name: ':method', string_match: { safe_regex: { regex: 'GET' } } } },
      ],
    },
  };
  assert.deepEqual(l7Permission(perms, 'deny'), { and_rules: { rules: [get, { not_rule: admin }] } });
  assert.deepEqual(l7Permission(perms, 'allow'), {
    or_rules: { rules: [{ and_rules: { rules: [get, { not_rule: admin }] } }, { not_rule: admin }] },
  });
  assert.equal(
    l7Permission([{ action: 'deny', http: { PathExact: '/x' } }], 'deny'),
    undefined,
    'nothing can be allowed',
  );
});

test('a terminating gateway: its linked service’s leaf, a chain per linked service, and both sides follow moves', async () => {
  const td = hub.catalog.connectCa().trustDomain;
  const mesh = `db.default.dc1.internal.${td}`;
  const gw = node('term1');
  await put('/v1/agent/service/register', { Name: 'db', ID: 'db1', Address: '10.0.0.5', Port: 5432 });
  await put('/v1/agent/service/register', {
    Name: 'client',
    ID: 'client1',
    Port: 9060,
    Connect: {
      SidecarService: {
        Port: 25060,
        Checks: [{ TTL: '1h', Status: 'passing' }],
        Proxy: { Upstreams: [{ DestinationName: 'db', LocalBindPort: 19060 }] },
      },
    },
  });
  await put('/v1/config', { Kind: 'terminating-gateway', Name: 'term', Services: [{ Name: 'db' }] });
  await put('/v1/agent/service/register', {
    Name: 'term',
    ID: 'term1',
    Kind: 'terminating-gateway',
    Address: '127.0.0.1',
    Port: 8443,
    Check: { TTL: '1h', Status: 'passing' },
  });
  const cluster = () => provider.get(TypeUrl.Cluster, gw).byName.get(mesh);
  const endpoints = () =>
    decode(provider.get(TypeUrl.ClusterLoadAssignment, node('client1-sidecar-proxy')).byName.get(mesh)!).endpoints;
  const ports = (eps: any[] | undefined) =>
    (eps ?? []).flatMap((l) => l.lbEndpoints.map((e: any) => e.endpoint.address.socketAddress.portValue));
  await until(
    () => cluster() !== undefined && provider.get(TypeUrl.Secret, gw).byName.size === 2,
    'the gateway’s sets',
  );
  assert.deepEqual(
    [...provider.get(TypeUrl.Secret, gw).byName.keys()].sort(),
    [`spiffe://${td}`, `spiffe://${td}/ns/default/dc/dc1/svc/db`],
    "db's leaf (not the gateway's own) and the trust bundle",
  );
  const listener = decode(provider.get(TypeUrl.Listener, gw).byName.get('default:127.0.0.1:8443')!);
  assert.deepEqual(
    listener.filterChains.map((c: any) => c.filterChainMatch.serverNames),
    [[mesh]],
  );
  assert.deepEqual(
    ports(decode(cluster()!).loadAssignment.endpoints),
    [5432],
    "the gateway's cluster is db's instance",
  );
  assert.deepEqual(ports(endpoints()), [8443], "client's mesh cluster for db reaches the gateway");

  // db moves: only the gateway's cluster changes (no service-list change: the incremental path).
  const dbMoved = await changesUntil(
    () => put('/v1/agent/service/register', { Name: 'db', ID: 'db1', Address: '10.0.0.5', Port: 5433 }),
    (all) => all.some((c) => c.typeUrl === TypeUrl.Cluster && c.nodeIds?.has('term1')),
  );
  assert.deepEqual(ports(decode(cluster()!).loadAssignment.endpoints), [5433]);
  assert.ok(!dbMoved.some((c) => c.typeUrl === TypeUrl.Cluster && c.nodeIds === undefined), 'not announced to all');
  // The gateway moves: db's mesh endpoints follow.
  await changesUntil(
    () =>
      put('/v1/agent/service/register', {
        Name: 'term',
        ID: 'term1',
        Kind: 'terminating-gateway',
        Address: '127.0.0.1',
        Port: 8444,
        Check: { TTL: '1h', Status: 'passing' },
      }),
    (all) => all.some((c) => c.typeUrl === TypeUrl.ClusterLoadAssignment && c.names.has(mesh)),
  );
  assert.deepEqual(ports(endpoints()), [8444]);

  // `*` links the plain services outside the mesh (ext), not those with sidecars (web, api, client).
  await put('/v1/agent/service/register', { Name: 'ext', ID: 'ext1', Address: '10.0.0.9', Port: 443 });
  await put('/v1/config', { Kind: 'terminating-gateway', Name: 'term', Services: [{ Name: 'db' }, { Name: '*' }] });
  const serverNames = () =>
    decode(provider.get(TypeUrl.Listener, gw).byName.get('default:127.0.0.1:8444')!).filterChains.map(
      (c: any) => c.filterChainMatch.serverNames[0],
    );
  await until(() => serverNames().length === 2, { what: () => `two chains (saw ${serverNames()})` });
  assert.deepEqual(serverNames(), [mesh, `ext.default.dc1.internal.${td}`]);
});

test('an ingress gateway’s mesh clusters take the protocol proxy-defaults gives (no service-defaults)', async () => {
  const td = hub.catalog.connectCa().trustDomain;
  const mesh = `api.default.dc1.internal.${td}`;
  await put('/v1/config', { Kind: 'proxy-defaults', Name: 'global', Config: { protocol: 'http2' } });
  try {
    await put('/v1/config', {
      Kind: 'ingress-gateway',
      Name: 'edge',
      Listeners: [{ Port: 8080, Protocol: 'http2', Services: [{ Name: 'api', Hosts: ['*'] }] }],
    });
    await put('/v1/agent/service/register', { Name: 'edge', ID: 'edge1', Kind: 'ingress-gateway', Port: 8443 });
    await until(() => provider.get(TypeUrl.Cluster, node('edge1')).byName.has(mesh), "the gateway's cluster for api");
    const cluster = decode(provider.get(TypeUrl.Cluster, node('edge1')).byName.get(mesh)!);
    assert.ok(cluster.typedExtensionProtocolOptions, 'HTTP/2 protocol options on the mesh cluster');
    const tls = cluster.transportSocket.typedConfig.commonTlsContext;
    assert.deepEqual(tls.alpnProtocols, ['h2', 'http/1.1'], 'h2 offered, as for an http2 service');
  } finally {
    await hub.http.inject({ method: 'DELETE', url: '/v1/config/proxy-defaults/global' });
  }
});
