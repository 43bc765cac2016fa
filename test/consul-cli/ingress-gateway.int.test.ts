// An ingress gateway the way Consul runs one: `consul config write` of an
// ingress-gateway entry exposing api, `consul connect envoy -gateway=ingress
// -register -service ingress -address 127.0.0.1:PORT -bootstrap` and a real
// Envoy on that bootstrap; api behind its own sidecar (Envoy, from `consul
// connect envoy -sidecar-for`). Proven: a plain HTTP request into the gateway's
// listener reaches api over mutual TLS with the gateway's certificate (api
// sees the ingress SPIFFE ID), the listener is bound on the registered address,
// and a deny intention ingress → api makes api's sidecar refuse it.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Backend, freePort, request } from '../envoy/harness';
import { type Envoy, startEnvoy } from '../helpers/envoy';
import { boundAddresses, type CliMeshWorld, cliMeshWorld } from './mesh-world';

let world: CliMeshWorld;
let api: Backend;
let envoys: Envoy[];

before(async () => {
  world = await cliMeshWorld('cli-ingress');
  ({ api, envoys } = world);
});
after(() => world?.close());

const write = (name: string, body: string, args: string[]) => world.write(name, body, args);

test('ingress gateway from `consul connect envoy -gateway=ingress`: HTTP in, mTLS to api, intentions apply', {
  timeout: 200_000,
}, async () => {
  const [apiPublic, gatewayPort, listenerPort, starPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  await write('api-defaults', 'Kind = "service-defaults"\nName = "api"\nProtocol = "http"\n', ['config', 'write']);
  await write(
    'api',
    `service {\n  name = "api"\n  id = "api1"\n  port = ${api.port}\n` +
      `  connect { sidecar_service { port = ${apiPublic} } }\n}\n`,
    ['services', 'register'],
  );
  await write(
    'ingress',
    `Kind = "ingress-gateway"\nName = "ingress"\nListeners = [{ Port = ${listenerPort}, Protocol = "http", ` +
      'Services = [{ Name = "api", Hosts = ["*"] }] },\n' +
      `  { Port = ${starPort}, Protocol = "http", Services = [{ Name = "*" }] }]\n`,
    ['config', 'write'],
  );
  const apiBoot = await world.sidecarBootstrap('api1');
  const gwBoot = await world.gatewayBootstrap('ingress', 'ingress', gatewayPort);
  assert.equal(gwBoot.node.id, 'ingress');
  const [apiEnvoy, gwEnvoy] = await Promise.all([
    startEnvoy({ bootstrap: apiBoot }),
    startEnvoy({ bootstrap: gwBoot }),
  ]);
  envoys.push(apiEnvoy, gwEnvoy);

  // The body is the caller's SPIFFE ID, so wait on a 200 rather than on a fixed name.
  const who = await gwEnvoy.until(async () => {
    const r = await request(listenerPort, '/who', { timeoutMs: 10_000 }).catch(() => undefined);
    return r?.status === 200 ? r : undefined;
  }, 'a 200 through the ingress gateway');
  assert.match(
    who.body,
    /^spiffe:\/\/[^/]+\.consul\/ns\/default\/dc\/dc1\/svc\/ingress$/,
    "api saw the gateway's leaf",
  );

  // `*` exposes every plain service (not api's sidecar, not the gateway) under `<service>.ingress.*`.
  const star = await gwEnvoy.until(async () => {
    const r = await request(starPort, '/who', { host: 'api.ingress.example', timeoutMs: 10_000 }).catch(
      () => undefined,
    );
    return r?.status === 200 ? r : undefined;
  }, 'a 200 through the `*` listener');
  assert.match(star.body, /\/svc\/ingress$/);
  const starRoutes = JSON.parse(await gwEnvoy.admin('/config_dump?resource=dynamic_route_configs'));
  const domains = JSON.stringify(starRoutes).match(/"[a-z0-9-]+\.ingress\.\*"/g) ?? [];
  assert.deepEqual([...new Set(domains)], ['"api.ingress.*"'], 'only the plain service api is exposed');

  // Bound on the registered address, not 0.0.0.0 (Consul binds the gateway's Address).
  const bound = await boundAddresses(gwEnvoy);
  assert.ok(
    bound?.some((a) => a?.['address'] === '127.0.0.1' && a?.['port_value'] === listenerPort),
    JSON.stringify(bound),
  );
  const stats = await apiEnvoy.stats();
  const handshakes = [...stats].filter(([n]) => n.endsWith('.ssl.handshake')).reduce((n, [, v]) => n + v, 0);
  assert.ok(handshakes > 0, "api's sidecar took the gateway's TLS handshakes");

  // A deny intention ingress → api: api's sidecar (network RBAC) drops the gateway's connections,
  // which the gateway answers with a 503.
  await write(
    'deny',
    'Kind = "service-intentions"\nName = "api"\nSources = [{ Name = "ingress", Action = "deny" }]\n',
    ['config', 'write'],
  );
  const denied = async () =>
    [...(await apiEnvoy.stats())].filter(([n]) => n.endsWith('rbac.denied')).reduce((n, [, v]) => n + v, 0);
  let last = '';
  // Done when one request is answered 503 and api's sidecar counted an RBAC denial for it
  // (a 503 alone could be the sidecar's listener being replaced).
  await apiEnvoy.until(
    async () => {
      const before = await denied();
      try {
        const r = await request(listenerPort, '/who', { timeoutMs: 10_000 });
        last = `${r.status} ${r.body.slice(0, 80)}`;
        return r.status === 503 && (await denied()) > before;
      } catch (err) {
        last = `error: ${(err as Error).message}`;
        return false;
      }
    },
    () => `api's sidecar denying the gateway by intention (last: ${last})`,
  );
  for (const envoy of [apiEnvoy, gwEnvoy]) {
    const rejected = await envoy.rejectedUpdates();
    assert.equal(rejected.total, 0, JSON.stringify(rejected.by));
  }
});
