// The Connect quick start with Consul's own tools, unchanged: `consul services
// register` with the sidecar shorthand for a server (api) and a client (web,
// with an upstream to api), `consul config write` of api's service-defaults, then `consul connect envoy -bootstrap
// -sidecar-for <id> -grpc-addr <hub>` for each, and a real Envoy on each of
// those bootstraps. Proven: both get their config with nothing rejected, and
// real traffic flows client → web's sidecar → mutual TLS → api's sidecar → api.

import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { type Backend, freePort, request, untilServedBy } from '../envoy/harness';
import { type ConsulTarget, runConsul } from '../helpers/consul-cli';
import { type Envoy, startEnvoy } from '../helpers/envoy';
import { type CliMeshWorld, cliMeshWorld } from './mesh-world';

let world: CliMeshWorld;
let hub: Hub;
let target: ConsulTarget;
let dir: string;
let api: Backend;
let envoys: Envoy[];

before(async () => {
  world = await cliMeshWorld('cli-mesh');
  ({ hub, target, dir, api, envoys } = world);
});
after(() => world?.close());

async function register(name: string, body: string): Promise<void> {
  const file = join(dir, `${name}.hcl`);
  await writeFile(file, body);
  await runConsul(['services', 'register', file], target);
}

/** What `consul connect envoy -bootstrap -sidecar-for <id>` prints, parsed. */
async function bootstrapFor(serviceId: string): Promise<Record<string, any>> {
  const { stdout } = await runConsul(
    ['connect', 'envoy', '-bootstrap', '-sidecar-for', serviceId, '-grpc-addr', `127.0.0.1:${hub.grpcPort}`],
    target,
  );
  return JSON.parse(stdout);
}

test("connect envoy -sidecar-for bootstraps carry web → its sidecar → mTLS → api's sidecar → api", {
  timeout: 170_000,
}, async () => {
  const [apiPublic, webPublic, upstream] = [await freePort(), await freePort(), await freePort()];
  // api speaks HTTP (so its sidecar passes on who called, in X-Forwarded-Client-Cert), written as operators write it.
  const defaults = join(dir, 'api-defaults.hcl');
  await writeFile(defaults, 'Kind = "service-defaults"\nName = "api"\nProtocol = "http"\n');
  await runConsul(['config', 'write', defaults], target);
  // Consul's own sidecar defaults (no checks named): the sidecar's TCP check turns passing once its Envoy listens.
  await register(
    'api',
    `service {\n  name = "api"\n  id = "api1"\n  port = ${api.port}\n` +
      `  connect { sidecar_service { port = ${apiPublic} } }\n}\n`,
  );
  await register(
    'web',
    [
      'service {',
      '  name = "web"',
      '  id = "web1"',
      `  port = ${await freePort()}`,
      '  connect {',
      '    sidecar_service {',
      `      port = ${webPublic}`,
      `      proxy { upstreams = [{ destination_name = "api", local_bind_port = ${upstream} }] }`,
      '    }',
      '  }',
      '}',
      '',
    ].join('\n'),
  );
  const [apiBoot, webBoot] = [await bootstrapFor('api1'), await bootstrapFor('web1')];
  assert.equal(apiBoot.node.id, 'api1-sidecar-proxy');
  assert.equal(webBoot.node.id, 'web1-sidecar-proxy');
  const [apiEnvoy, webEnvoy] = await Promise.all([
    startEnvoy({ bootstrap: apiBoot }),
    startEnvoy({ bootstrap: webBoot }),
  ]);
  envoys.push(apiEnvoy, webEnvoy);
  await untilServedBy(webEnvoy, upstream, 'api1', { capMs: 90_000 });
  const who = await request(upstream, '/who');
  assert.equal(who.status, 200, who.body);
  assert.match(who.body, /^spiffe:\/\/[^/]+\.consul\/ns\/default\/dc\/dc1\/svc\/web$/, "api saw web's certificate");
  for (const envoy of [apiEnvoy, webEnvoy]) {
    const rejected = await envoy.rejectedUpdates();
    assert.equal(rejected.total, 0, JSON.stringify(rejected.by));
  }
  const stats = await apiEnvoy.stats();
  const handshakes = [...stats].filter(([name]) => name.endsWith('.ssl.handshake')).reduce((n, [, v]) => n + v, 0);
  assert.ok(handshakes > 0, "api's sidecar took TLS handshakes");
});

test('connect envoy -gateway=ingress -register: registered at its address; its Envoy gets its config, rejects nothing', {
  timeout: 170_000,
}, async () => {
  const [gatewayPort, listenerPort] = [await freePort(), await freePort()];
  const entry = join(dir, 'ingress.hcl');
  await writeFile(
    entry,
    `Kind = "ingress-gateway"\nName = "edge"\nListeners = [{ Port = ${listenerPort}, Protocol = "http", ` +
      'Services = [{ Name = "api", Hosts = ["*"] }] }]\n',
  );
  await runConsul(['config', 'write', entry], target);
  const { stdout } = await runConsul(
    [
      'connect',
      'envoy',
      '-gateway=ingress',
      '-register',
      '-service',
      'edge',
      '-address',
      `127.0.0.1:${gatewayPort}`,
      '-bootstrap',
      '-grpc-addr',
      `127.0.0.1:${hub.grpcPort}`,
    ],
    target,
  );
  const registered = (await hub.http.inject({ method: 'GET', url: '/v1/agent/service/edge' })).json();
  assert.equal(registered.Kind, 'ingress-gateway');
  assert.equal(registered.Address, '127.0.0.1');
  assert.equal(registered.Port, gatewayPort);
  assert.deepEqual(registered.Proxy, { MeshGateway: {}, Expose: {} });
  const boot = JSON.parse(stdout);
  assert.equal(boot.node.id, 'edge');
  const envoy = await startEnvoy({ bootstrap: boot });
  envoys.push(envoy);
  type Listeners = { listener_statuses?: { local_address?: { socket_address?: { port_value?: number } } }[] };
  const bound = async () => {
    const body = JSON.parse(await envoy.admin('/listeners?format=json')) as Listeners;
    return body.listener_statuses?.some((l) => l.local_address?.socket_address?.port_value === listenerPort);
  };
  await envoy.until(bound, `a listener on the entry's port ${listenerPort}`);
  const rejected = await envoy.rejectedUpdates();
  assert.equal(rejected.total, 0, JSON.stringify(rejected.by));
});
