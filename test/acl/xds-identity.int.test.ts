// xDS identity under ACLs, Consul's model, through a real grpc-js ADS client
// carrying its token in gRPC metadata: a node that is a registered sidecar
// needs service:write on the service it fronts (a read-everything token that
// claims db's sidecar's node id is PERMISSION_DENIED, in Delta, SotW and REST,
// and so is an open stream whose node becomes a sidecar later); a Consul-style
// sidecar token gets its whole config and its own leaf only; a plain node never
// receives a leaf's private key, and is answered (not left waiting) when ACLs
// filter everything it asked for.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { status } from '@grpc/grpc-js';
import { serviceSpiffeId } from '../../src/connect/spiffe';
import type { Hub } from '../../src/hub';
import { lookupType } from '../../src/xds/transport/envoy-proto';
import { TypeUrl } from '../../src/xds/transport/type-urls';
import { freePort } from '../envoy/harness';
import { AdsClient, resourcesOf } from './ads-client';
import { aclHub, as, ROOT, tokenWith } from './helpers';

const READ_ALL = 'service_prefix "" { policy = "read" }\nnode_prefix "" { policy = "read" }';
const WEB_SIDECAR =
  'service "web" { policy = "write" }\nservice_prefix "" { policy = "read" }\nnode_prefix "" { policy = "read" }';
let hub: Hub;
const clients: AdsClient[] = [];
let td = '';

function ads(kind: 'delta' | 'sotw', nodeId: string, token: string | undefined): AdsClient {
  const c = new AdsClient(hub.grpcPort, kind, nodeId, token);
  clients.push(c);
  return c;
}

/** One unary xDS Fetch over grpc-js with the token in metadata; resolves with the decoded DiscoveryResponse. */
function fetchUnary(path: string, nodeId: string, token: string, names: string[]): Promise<Record<string, any>> {
  const req = lookupType('envoy.service.discovery.v3.DiscoveryRequest');
  const res = lookupType('envoy.service.discovery.v3.DiscoveryResponse');
  const client = new grpc.Client(`127.0.0.1:${hub.grpcPort}`, grpc.credentials.createInsecure());
  const md = new grpc.Metadata();
  md.set('x-consul-token', token);
  return new Promise<Record<string, any>>((resolve, reject) => {
    client.makeUnaryRequest(
      path,
      (m: Record<string, unknown>) => Buffer.from(req.encode(req.fromObject(m)).finish()),
      (b: Buffer) => res.toObject(res.decode(b), { arrays: true }),
      { node: { id: nodeId, cluster: 'test' }, resourceNames: names },
      md,
      (err, value) => (err ? reject(err) : resolve(value as Record<string, any>)),
    );
  }).finally(() => client.close());
}

/** The stream's final status, which must be PERMISSION_DENIED before any response (a response fails, naming what came). */
async function refusal(c: AdsClient): Promise<grpc.StatusObject> {
  const first = await Promise.race([c.status, c.next()]);
  assert.ok(
    !first || 'code' in first,
    `the hub answered instead of refusing: ${JSON.stringify(first && resourcesOf(first).map((r) => r.name))}`,
  );
  const st = await c.status;
  assert.equal(st.code, status.PERMISSION_DENIED, st.details);
  return st;
}

const leafName = (service: string) => serviceSpiffeId(td, hub.config.datacenter, service);

async function registerWithSidecar(
  name: string,
  port: number,
  upstreams: { DestinationName: string; LocalBindPort: number }[] = [],
): Promise<void> {
  const r = await as(hub, ROOT, 'PUT', '/v1/agent/service/register', {
    Name: name,
    ID: `${name}1`,
    Port: port,
    Connect: { SidecarService: { Port: port + 1000, Proxy: { Upstreams: upstreams } } },
  });
  assert.equal(r.status, 200, r.text);
}

/** Waits until the CA holds a leaf for each service (the hub issues one for every service with a proxy). */
async function leavesFor(...services: string[]): Promise<void> {
  for (;;) {
    const at = hub.catalog.lastIndex();
    const ca = hub.catalog.connectCa();
    if (ca.trustDomain !== '' && services.every((s) => ca.leaves.has(s))) return void (td = ca.trustDomain);
    await hub.catalog.waitForIndex(at);
  }
}

before(async () => {
  hub = await aclHub({ nodeName: 'xds-identity' });
  await registerWithSidecar('db', 5432);
  await registerWithSidecar('web', 8080, [{ DestinationName: 'db', LocalBindPort: 9191 }]);
  await leavesFor('db', 'web');
});
after(async () => {
  for (const c of clients) c.close();
  await hub?.close();
});

test('a read-everything token claiming a registered sidecar node id is PERMISSION_DENIED (Delta and SotW), with nothing sent', async () => {
  const reader = await tokenWith(hub, READ_ALL);
  for (const kind of ['delta', 'sotw'] as const) {
    const c = ads(kind, 'db1-sidecar-proxy', reader.secret);
    if (kind === 'delta') c.subscribe(TypeUrl.Secret, [leafName('db')]);
    else c.request(TypeUrl.Secret, [leafName('db')]);
    const st = await refusal(c);
    assert.match(st.details, /lacks permission 'service:write' on "db"/);
    assert.match(st.details, /xDS node "db1-sidecar-proxy" is the connect-proxy "db1-sidecar-proxy" of "db"/);
    assert.equal(await c.next(), undefined, `${kind}: no response before the refusal`);
  }
});

test('REST polling as a registered sidecar node needs service:write too (403); secrets are never served over HTTP', async () => {
  const reader = await tokenWith(hub, READ_ALL);
  const body = { node: { id: 'db1-sidecar-proxy', cluster: 'db' }, resource_names: [] };
  const r = await as(hub, reader.secret, 'POST', '/v3/discovery:clusters', body);
  assert.equal(r.status, 403, r.text);
  assert.match(r.text, /lacks permission 'service:write' on .db/);
  const plain = await as(hub, reader.secret, 'POST', '/v3/discovery:clusters', {
    node: { id: 'poller', cluster: 'x' },
    resource_names: [],
  });
  assert.equal(plain.status, 200, plain.text);
  const sds = await as(hub, ROOT, 'POST', '/v3/discovery:secrets', {
    node: { id: 'db1-sidecar-proxy', cluster: 'db' },
    resource_names: [leafName('db')],
  });
  assert.equal(sds.status, 404, 'SDS is gRPC only');
  assert.doesNotMatch(sds.text, /PRIVATE KEY/);
});

test('a Consul-style sidecar token gets web’s whole config and web’s key only, never db’s', async () => {
  const t = await tokenWith(hub, WEB_SIDECAR);
  const c = ads('delta', 'web1-sidecar-proxy', t.secret);
  c.subscribe(TypeUrl.Cluster, ['*']);
  const cds = await c.nextOf(TypeUrl.Cluster);
  c.ack(cds);
  const clusterNames = resourcesOf(cds)
    .map((r) => r.name)
    .sort();
  assert.deepEqual(clusterNames, [`db.default.dc1.internal.${td}`, 'local_app']);
  c.subscribe(TypeUrl.Listener, ['*']);
  const lds = await c.nextOf(TypeUrl.Listener);
  c.ack(lds);
  assert.deepEqual(
    resourcesOf(lds)
      .map((r) => r.name)
      .sort(),
    ['db:127.0.0.1:9191', 'public_listener:0.0.0.0:9080'],
  );
  c.subscribe(TypeUrl.ClusterLoadAssignment, [clusterNames[0]!]);
  const eds = await c.nextOf(TypeUrl.ClusterLoadAssignment);
  c.ack(eds);
  assert.deepEqual(
    resourcesOf(eds).map((r) => r.name),
    [clusterNames[0]],
    'db’s mesh assignment (read on db)',
  );
  c.subscribe(TypeUrl.Secret, [leafName('web'), `spiffe://${td}`, leafName('db')]);
  const sds = await c.nextOf(TypeUrl.Secret);
  const secrets = resourcesOf(sds);
  assert.deepEqual(secrets.map((s) => s.name).sort(), [leafName('web'), `spiffe://${td}`].sort());
  const web = secrets.find((s) => s.name === leafName('web'))!;
  assert.equal(
    web.msg.tlsCertificate.privateKey.inlineString,
    hub.catalog.connectCa().leaves.get('web')!.PrivateKeyPEM,
  );
  assert.deepEqual(sds.removedResources, [leafName('db')], 'db’s leaf is answered as absent');
});

test('service "web" write alone: the sidecar’s own config, but no upstream it may not read', async () => {
  const t = await tokenWith(hub, 'service "web" { policy = "write" }');
  const c = ads('sotw', 'web1-sidecar-proxy', t.secret);
  c.request(TypeUrl.Cluster, []);
  const cds = await c.nextOf(TypeUrl.Cluster);
  assert.deepEqual(
    resourcesOf(cds).map((r) => r.name),
    ['local_app'],
  );
  c.request(TypeUrl.Cluster, [], cds.versionInfo, cds.nonce);
  c.request(TypeUrl.Listener, []);
  const lds = await c.nextOf(TypeUrl.Listener);
  assert.deepEqual(
    resourcesOf(lds).map((r) => r.name),
    ['public_listener:0.0.0.0:9080'],
  );
  c.request(TypeUrl.Secret, [leafName('web')]);
  const sds = await c.nextOf(TypeUrl.Secret);
  assert.deepEqual(
    resourcesOf(sds).map((r) => r.name),
    [leafName('web')],
  );
});

test('a plain node with a read-everything token never gets a leaf: answered empty, not left to time out', async () => {
  const reader = await tokenWith(hub, READ_ALL);
  const d = ads('delta', 'curious', reader.secret);
  d.subscribe(TypeUrl.Secret, [leafName('db'), leafName('web')]);
  const r = await d.nextOf(TypeUrl.Secret);
  assert.deepEqual(r.resources, []);
  assert.deepEqual([...r.removedResources].sort(), [leafName('db'), leafName('web')].sort());
  const s = ads('sotw', 'curious-sotw', reader.secret);
  s.request(TypeUrl.Secret, [leafName('db')]);
  const rs = await s.nextOf(TypeUrl.Secret);
  assert.deepEqual(rs.resources, []);
  assert.notEqual(rs.versionInfo, '', 'an empty SotW answer still carries a version');
  // A token that reads nothing: the wildcard CDS is answered with an empty set.
  const none = await tokenWith(hub, 'node_prefix "" { policy = "read" }');
  const e = ads('sotw', 'blind', none.secret);
  e.request(TypeUrl.Cluster, []);
  const cds = await e.nextOf(TypeUrl.Cluster);
  assert.deepEqual(cds.resources, []);
  assert.notEqual(cds.versionInfo, '');
});

test('an open stream whose node becomes a registered sidecar is ended with PERMISSION_DENIED', async () => {
  const reader = await tokenWith(hub, READ_ALL);
  const c = ads('delta', 'late1-sidecar-proxy', reader.secret);
  c.subscribe(TypeUrl.Cluster, ['*']);
  c.ack(await c.nextOf(TypeUrl.Cluster));
  await registerWithSidecar('late', 7000);
  // Without the check the stream stays open and is served late's sidecar config instead.
  for (;;) {
    const r = await Promise.race([c.status, c.next()]);
    if (!r || 'code' in r) break;
    assert.ok(!resourcesOf(r).some((x) => x.name === 'local_app'), 'served as late’s sidecar');
    c.ack(r);
  }
  const st = await c.status;
  assert.equal(st.code, status.PERMISSION_DENIED, st.details);
  assert.match(st.details, /lacks permission 'service:write' on "late"/);
});

test('operator views of a sidecar never show key material', async () => {
  const t = await tokenWith(hub, WEB_SIDECAR);
  const c = ads('delta', 'web1-sidecar-proxy', t.secret);
  c.subscribe(TypeUrl.Secret, [leafName('web')]);
  const sds = await c.nextOf(TypeUrl.Secret);
  c.ack(sds);
  const op = await tokenWith(hub, 'operator = "read"');
  const now = hub.catalog.lastIndex();
  const urls = [
    '/v1/xds/config/web1-sidecar-proxy',
    `/v1/xds/config/web1-sidecar-proxy?index=${now}`,
    '/v1/xds/clients',
    '/v1/xds/history/web1-sidecar-proxy',
    `/v1/xds/diff/web1-sidecar-proxy?from=1&to=${now}`,
    '/v1/xds/nodes',
  ];
  for (const url of urls) {
    const r = await as(hub, op.secret, 'GET', url);
    assert.equal(r.status, 200, `${url}: ${r.text}`);
    assert.doesNotMatch(r.text, /PRIVATE KEY/, url);
  }
  // A dry run of a change that reissues nothing still shows what each node would get: never a secret's content.
  const dry = await as(hub, ROOT, 'PUT', '/v1/agent/service/register?dry-run=true', {
    Name: 'web',
    ID: 'web1',
    Port: 8081,
    Connect: { SidecarService: { Port: 9080 } },
  });
  assert.equal(dry.status, 200, dry.text);
  assert.doesNotMatch(dry.text, /PRIVATE KEY/);
  const cfg = await as(hub, op.secret, 'GET', '/v1/xds/config/web1-sidecar-proxy');
  assert.deepEqual(
    Object.keys(cfg.json.resources.secrets[leafName('web')].resource).sort(),
    ['@type', 'name'],
    'named, without content',
  );
});

test('unary FetchSecrets: a claimed sidecar node is PERMISSION_DENIED; a plain node is answered without the leaf', async () => {
  const reader = await tokenWith(hub, READ_ALL);
  const fetchSecrets = (nodeId: string) =>
    fetchUnary('/envoy.service.secret.v3.SecretDiscoveryService/FetchSecrets', nodeId, reader.secret, [leafName('db')]);
  await assert.rejects(fetchSecrets('db1-sidecar-proxy'), (err: { code: number; details: string }) => {
    assert.equal(err.code, status.PERMISSION_DENIED);
    assert.match(err.details, /service:write' on "db"/);
    return true;
  });
  const plain = await fetchSecrets('fetcher');
  assert.deepEqual(plain.resources, []);
});

test('a node that is an ingress gateway needs service:write on the gateway', async () => {
  const port = await freePort(); // never bound: no Envoy runs here
  const entry = {
    Kind: 'ingress-gateway',
    Name: 'ig',
    Listeners: [{ Port: port, Protocol: 'tcp', Services: [{ Name: 'db' }] }],
  };
  assert.equal((await as(hub, ROOT, 'PUT', '/v1/config', entry)).status, 200);
  const reader = await tokenWith(hub, READ_ALL);
  const denied = new AdsClient(hub.grpcPort, 'delta', 'ig-envoy-1', reader.secret, 'ig');
  clients.push(denied);
  denied.subscribe(TypeUrl.Listener, ['*']);
  const st = await refusal(denied);
  assert.match(st.details, /service:write' on "ig".*gateway "ig"/);
  const gw = await tokenWith(hub, `service "ig" { policy = "write" }\n${READ_ALL}`);
  const ok = new AdsClient(hub.grpcPort, 'delta', 'ig-envoy-2', gw.secret, 'ig');
  clients.push(ok);
  ok.subscribe(TypeUrl.Listener, ['*']);
  const lds = await ok.nextOf(TypeUrl.Listener);
  assert.deepEqual(
    resourcesOf(lds).map((r) => r.name),
    [`ig:${port}`],
  );
});
