// A terminating gateway the way Consul runs one: api is a plain service outside
// the mesh (no sidecar), `consul config write` of a terminating-gateway entry
// linking it, `consul connect envoy -gateway=terminating -register -service
// term -address 127.0.0.1:PORT -bootstrap` and a real Envoy on that bootstrap;
// web behind its own sidecar (from `consul connect envoy -sidecar-for`) with an
// upstream to api. Proven: web's traffic to api goes web's sidecar → mutual
// TLS → the gateway (which answers with api's leaf, checked by web's sidecar)
// → api in plaintext; the gateway is bound on its registered address; a deny
// intention web → api makes the gateway refuse it (its RBAC counts it); with
// api's protocol http, L7 intentions apply at the gateway.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { TLSSocket } from 'node:tls';
import type { Hub } from '../../src/hub';
import { type Backend, freePort, request, untilServedBy } from '../envoy/harness';
import { type Envoy, startEnvoy } from '../helpers/envoy';
import { boundAddresses, type CliMeshWorld, cliMeshWorld } from './mesh-world';

let world: CliMeshWorld;
let hub: Hub;
let api: Backend;
let envoys: Envoy[];

before(async () => {
  world = await cliMeshWorld('cli-term');
  ({ hub, api, envoys } = world);
});
after(() => world?.close());

const write = (name: string, body: string, args: string[]) => world.write(name, body, args);
const sum = (stats: Map<string, number>, suffix: string) =>
  [...stats].filter(([n]) => n.endsWith(suffix)).reduce((n, [, v]) => n + v, 0);

test('terminating gateway from `consul connect envoy -gateway=terminating`: mesh traffic to a service outside the mesh', {
  timeout: 240_000,
}, async () => {
  const [webPublic, upstream, gatewayPort] = [await freePort(), await freePort(), await freePort()];
  // api: no sidecar, reached only through the gateway.
  await write('api', `service {\n  name = "api"\n  id = "api1"\n  address = "127.0.0.1"\n  port = ${api.port}\n}\n`, [
    'services',
    'register',
  ]);
  await write(
    'web',
    `service {\n  name = "web"\n  id = "web1"\n  port = ${await freePort()}\n  connect {\n    sidecar_service {\n` +
      `      port = ${webPublic}\n` +
      `      proxy { upstreams = [{ destination_name = "api", local_bind_port = ${upstream} }] }\n    }\n  }\n}\n`,
    ['services', 'register'],
  );
  await write('term-entry', 'Kind = "terminating-gateway"\nName = "term"\nServices = [{ Name = "api" }]\n', [
    'config',
    'write',
  ]);
  const webBoot = await world.sidecarBootstrap('web1');
  const gwBoot = await world.gatewayBootstrap('terminating', 'term', gatewayPort);
  assert.equal(gwBoot.node.id, 'term');
  const gatewayServices = (await hub.http.inject({ method: 'GET', url: '/v1/catalog/gateway-services/term' })).json();
  assert.deepEqual(
    gatewayServices.map((g: Record<string, any>) => [g.Service.Name, g.GatewayKind]),
    [['api', 'terminating-gateway']],
  );
  // As in Consul, the gateway is one of api's Connect instances.
  const connect = (await hub.http.inject({ method: 'GET', url: '/v1/health/connect/api' })).json();
  assert.deepEqual(
    connect.map((c: Record<string, any>) => [c.Service.ID, c.Service.Kind]),
    [['term', 'terminating-gateway']],
  );
  const [webEnvoy, gwEnvoy] = await Promise.all([
    startEnvoy({ bootstrap: webBoot }),
    startEnvoy({ bootstrap: gwBoot }),
  ]);
  envoys.push(webEnvoy, gwEnvoy);

  // TCP (api's default protocol): web's sidecar → mTLS → gateway → api.
  const hitsBefore = api.hits();
  await untilServedBy(webEnvoy, upstream, 'api1', { capMs: 120_000 });
  assert.ok(api.hits() > hitsBefore, 'api answered');
  const gwStats = await gwEnvoy.stats();
  assert.ok(sum(gwStats, '.ssl.handshake') > 0, "the gateway terminated web's mutual TLS");
  assert.ok(sum(gwStats, 'rbac.allowed') > 0, "the gateway's RBAC admitted web");
  const bound = await boundAddresses(gwEnvoy);
  assert.ok(
    bound?.some((a) => a?.['address'] === '127.0.0.1' && a?.['port_value'] === gatewayPort),
    JSON.stringify(bound),
  );

  // A deny intention web → api: the gateway drops web's connections.
  await write('deny', 'Kind = "service-intentions"\nName = "api"\nSources = [{ Name = "web", Action = "deny" }]\n', [
    'config',
    'write',
  ]);
  let last = '';
  await gwEnvoy.until(
    async () => {
      const denied = sum(await gwEnvoy.stats(), 'rbac.denied');
      try {
        const r = await request(upstream, '/', { timeoutMs: 10_000 });
        last = `${r.status} ${r.body.slice(0, 80)}`;
      } catch (err) {
        last = `error: ${(err as Error).message}`;
      }
      return !last.startsWith('200') && sum(await gwEnvoy.stats(), 'rbac.denied') > denied;
    },
    () => `the gateway denying web by intention (last: ${last})`,
  );

  // api as http: web's upstream and the gateway's chain become HTTP; an L7 intention applies at the gateway.
  await write('api-defaults', 'Kind = "service-defaults"\nName = "api"\nProtocol = "http"\n', ['config', 'write']);
  await write(
    'l7',
    'Kind = "service-intentions"\nName = "api"\nSources = [{ Name = "web", Permissions = [\n' +
      '  { Action = "deny", HTTP = { PathPrefix = "/admin" } },\n  { Action = "allow", HTTP = { PathPrefix = "/" } }\n] }]\n',
    ['config', 'write'],
  );
  await webEnvoy.until(async () => {
    const r = await request(upstream, '/', { timeoutMs: 10_000 }).catch(() => undefined);
    return r?.status === 200 && r.body === 'api1';
  }, 'a 200 from api over http through the gateway');
  const admin = await request(upstream, '/admin', { timeoutMs: 10_000 });
  assert.equal(admin.status, 403, admin.body);
  const listeners = await gwEnvoy.admin('/config_dump?resource=dynamic_listeners');
  assert.match(listeners, /HttpConnectionManager/, "the gateway's chain for api is HTTP");
  for (const envoy of [webEnvoy, gwEnvoy]) {
    const rejected = await envoy.rejectedUpdates();
    assert.equal(rejected.total, 0, JSON.stringify(rejected.by));
  }
});

test('terminating gateway: TLS origination with CAFile, CertFile/KeyFile and SNI; `*` links the services outside the mesh', {
  timeout: 240_000,
}, async () => {
  // legacy: an HTTPS service outside the mesh that wants a client certificate; here both sides'
  // certificates come from the hub's CA (any CA would do: the gateway reads the files).
  const json = async (url: string) => (await hub.http.inject({ method: 'GET', url })).json();
  const [serverLeaf, clientLeaf, roots] = [
    await json('/v1/agent/connect/ca/leaf/legacy'),
    await json('/v1/agent/connect/ca/leaf/term'),
    await json('/v1/agent/connect/ca/roots'),
  ];
  const files = {
    ca: join(world.dir, 'ca.pem'),
    cert: join(world.dir, 'term.pem'),
    key: join(world.dir, 'term-key.pem'),
  };
  const rootPem = roots.Roots.map((r: { RootCert: string }) => r.RootCert).join('\n');
  await writeFile(files.ca, rootPem);
  await writeFile(files.cert, clientLeaf.CertPEM);
  await writeFile(files.key, clientLeaf.PrivateKeyPEM);
  const legacy = createServer(
    {
      key: serverLeaf.PrivateKeyPEM,
      cert: serverLeaf.CertPEM,
      ca: rootPem,
      requestCert: true,
      rejectUnauthorized: true,
    },
    (req, res) => {
      const socket = req.socket as TLSSocket;
      res.end(`sni=${socket.servername} client=${socket.getPeerCertificate().subject?.CN}`);
    },
  );
  legacy.listen(0, '127.0.0.1');
  await once(legacy, 'listening');
  after(() => new Promise<void>((resolve) => legacy.close(() => resolve())));
  const legacyPort = (legacy.address() as AddressInfo).port;
  const [webPublic, apiUp, legacyUp] = [await freePort(), await freePort(), await freePort()];
  await write(
    'legacy',
    `service {\n  name = "legacy"\n  id = "legacy1"\n  address = "127.0.0.1"\n  port = ${legacyPort}\n}\n`,
    ['services', 'register'],
  );
  await write(
    'web2',
    `service {\n  name = "web"\n  id = "web2"\n  port = ${await freePort()}\n  connect {\n    sidecar_service {\n` +
      `      port = ${webPublic}\n      proxy { upstreams = [\n` +
      `        { destination_name = "api", local_bind_port = ${apiUp} },\n` +
      `        { destination_name = "legacy", local_bind_port = ${legacyUp} }\n      ] }\n    }\n  }\n}\n`,
    ['services', 'register'],
  );
  await write(
    'term-tls',
    'Kind = "terminating-gateway"\nName = "term"\nServices = [\n' +
      `  { Name = "legacy", CAFile = "${files.ca}", CertFile = "${files.cert}", KeyFile = "${files.key}", SNI = "legacy.example" },\n` +
      '  { Name = "*" }\n]\n',
    ['config', 'write'],
  );
  const linked = (await hub.http.inject({ method: 'GET', url: '/v1/catalog/gateway-services/term' })).json();
  assert.deepEqual(
    linked.map((g: Record<string, any>) => [g.Service.Name, g.FromWildcard, g.SNI]).sort(),
    [
      ['api', true, ''],
      ['legacy', false, 'legacy.example'],
    ],
    'web has a sidecar: `*` leaves it out',
  );
  const webEnvoy = await startEnvoy({ bootstrap: await world.sidecarBootstrap('web2') });
  envoys.push(webEnvoy);
  // legacy: web's sidecar → mTLS → gateway → TLS with the gateway's client certificate and the SNI asked for.
  await untilServedBy(webEnvoy, legacyUp, 'sni=legacy.example client=term', { capMs: 120_000 });
  // api, now linked by `*` alone, still answers through the gateway.
  await untilServedBy(webEnvoy, apiUp, 'api1', { capMs: 120_000 });
  for (const envoy of envoys) {
    const rejected = await envoy.rejectedUpdates();
    assert.equal(rejected.total, 0, JSON.stringify(rejected.by));
  }
});
