// proxy-defaults with Consul's own tools: `consul config write` of a global
// entry saying protocol = "http" (no service-defaults anywhere), two sidecars
// bootstrapped by `consul connect envoy -sidecar-for`, real Envoys on them.
// Proven by what the Envoys do: api's sidecar runs an HTTP connection manager
// (it adds the caller's certificate in X-Forwarded-Client-Cert, counts requests
// under `http.public_listener.*`, and a header-matching L7 intention refuses a
// request with 403); `consul config read` gives the entry back; `consul config
// delete` turns both sidecars back to tcp_proxy (bytes pass through untouched).
// Also: escape hatches and kinds the hub does not serve are refused, saying so.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { type Backend, freePort, request, startBackend, startHubWithXds, untilServedBy } from '../envoy/harness';
import { type ConsulTarget, runConsul } from '../helpers/consul-cli';
import { type Envoy, startEnvoy } from '../helpers/envoy';

let hub: Hub;
let target: ConsulTarget;
let dir: string;
let api: Backend;
const envoys: Envoy[] = [];

before(async () => {
  hub = await startHubWithXds({ nodeName: 'cli-proxy-defaults' });
  target = { httpAddr: `127.0.0.1:${hub.httpPort}` };
  dir = await mkdtemp(join(tmpdir(), 'xdshub-proxy-defaults-'));
  // Answers with the caller's SPIFFE ID when the sidecar in front of it passed one on (only HTTP does).
  api = await startBackend('api1', (req, res) => {
    const xfcc = String(req.headers['x-forwarded-client-cert'] ?? '');
    res.end(/URI=([^;,]+)/.exec(xfcc)?.[1] ?? 'no client certificate');
    return true;
  });
});
after(async () => {
  for (const e of envoys) await e.stop().catch(() => undefined);
  await api?.close();
  await hub?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function write(name: string, body: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, body);
  return file;
}

/** Runs the CLI expecting a refusal; resolves with what it printed. */
async function refused(args: string[]): Promise<string> {
  try {
    await runConsul(args, target);
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return `${e.stdout ?? ''}${e.stderr ?? ''}`;
  }
  throw new Error(`consul ${args.join(' ')} succeeded`);
}

async function bootstrapFor(serviceId: string): Promise<Record<string, any>> {
  const { stdout } = await runConsul(
    ['connect', 'envoy', '-bootstrap', '-sidecar-for', serviceId, '-grpc-addr', `127.0.0.1:${hub.grpcPort}`],
    target,
  );
  return JSON.parse(stdout);
}

const WEB_SPIFFE = /^spiffe:\/\/[^/]+\.consul\/ns\/default\/dc\/dc1\/svc\/web$/;

test('proxy-defaults protocol = "http": sidecars speak HTTP; read round-trips; delete reverts to tcp', {
  timeout: 170_000,
}, async () => {
  const entry = await write(
    'proxy-defaults.hcl',
    'Kind = "proxy-defaults"\nName = "global"\nConfig {\n  protocol = "http"\n  local_connect_timeout_ms = 2000\n}\n',
  );
  await runConsul(['config', 'write', entry], target);
  const { stdout: read } = await runConsul(['config', 'read', '-kind', 'proxy-defaults', '-name', 'global'], target);
  const back = JSON.parse(read);
  assert.equal(back.Kind, 'proxy-defaults');
  assert.equal(back.Name, 'global');
  assert.deepEqual(back.Config, { protocol: 'http', local_connect_timeout_ms: 2000 });

  const [apiPublic, webPublic, upstream] = [await freePort(), await freePort(), await freePort()];
  const apiFile = await write(
    'api.hcl',
    `service {\n  name = "api"\n  id = "api1"\n  port = ${api.port}\n  connect { sidecar_service { port = ${apiPublic} } }\n}\n`,
  );
  const webFile = await write(
    'web.hcl',
    `service {\n  name = "web"\n  id = "web1"\n  port = ${await freePort()}\n  connect {\n    sidecar_service {\n` +
      `      port = ${webPublic}\n` +
      `      proxy { upstreams = [{ destination_name = "api", local_bind_port = ${upstream} }] }\n    }\n  }\n}\n`,
  );
  await runConsul(['services', 'register', apiFile], target);
  await runConsul(['services', 'register', webFile], target);
  // What `consul connect envoy` read: the sidecar's Proxy.Config with the central config merged in, as Consul's agent.
  const agentView = (await hub.http.inject({ method: 'GET', url: '/v1/agent/service/web1-sidecar-proxy' })).json();
  assert.equal(agentView.Proxy.Config.protocol, 'http');
  assert.equal(agentView.Proxy.Upstreams[0].Config.protocol, 'http');

  const [apiEnvoy, webEnvoy] = await Promise.all([
    startEnvoy({ bootstrap: await bootstrapFor('api1') }),
    startEnvoy({ bootstrap: await bootstrapFor('web1') }),
  ]);
  envoys.push(apiEnvoy, webEnvoy);
  // HTTP end to end: api's sidecar terminates HTTP and tells api who called (XFCC).
  await webEnvoy.until(
    async () =>
      WEB_SPIFFE.test((await request(upstream, '/who', { timeoutMs: 10_000 }).catch(() => ({ body: '' }))).body),
    "api answering with web's SPIFFE ID",
    90_000,
  );
  const httpRequests = (await apiEnvoy.stats()).get('http.public_listener.downstream_rq_total') ?? 0;
  assert.ok(httpRequests > 0, "api's public listener counts HTTP requests");

  // An L7 intention (allowed only because proxy-defaults makes api http) takes effect per request.
  const intention = await write(
    'intentions.json',
    JSON.stringify({
      Kind: 'service-intentions',
      Name: 'api',
      Sources: [
        {
          Name: 'web',
          Permissions: [
            { Action: 'deny', HTTP: { Header: [{ Name: 'x-deny', Present: true }] } },
            { Action: 'allow', HTTP: { PathPrefix: '/' } },
          ],
        },
      ],
    }),
  );
  await runConsul(['config', 'write', intention], target);
  await webEnvoy.until(
    async () => (await request(upstream, '/who', { headers: { 'x-deny': '1' } })).status === 403,
    'a request carrying x-deny refused with 403 by the L7 intention',
  );
  assert.match((await request(upstream, '/who')).body, WEB_SPIFFE, 'a request without it still passes');
  await runConsul(['config', 'delete', '-kind', 'service-intentions', '-name', 'api'], target);

  // Delete: both sidecars go back to tcp_proxy; api sees the raw bytes, no XFCC added.
  await runConsul(['config', 'delete', '-kind', 'proxy-defaults', '-name', 'global'], target);
  await untilServedBy(webEnvoy, upstream, 'no client certificate', { path: '/who', capMs: 90_000 });
  const gone = await refused(['config', 'read', '-kind', 'proxy-defaults', '-name', 'global']);
  assert.match(gone, /Config entry not found for "proxy-defaults" \/ "global"/);
  const tcpConnections = (await apiEnvoy.stats()).get('tcp.public_listener.downstream_cx_total') ?? 0;
  assert.ok(tcpConnections > 0, "api's public listener is a tcp_proxy again");
  for (const envoy of [apiEnvoy, webEnvoy]) {
    const rejected = await envoy.rejectedUpdates();
    assert.equal(rejected.total, 0, JSON.stringify(rejected.by));
  }
});

test('consul config write refuses what the hub does not apply, naming it, and kinds it does not serve', async () => {
  const before = hub.catalog.lastIndex();
  const hatch = await write(
    'hatch.hcl',
    'Kind = "proxy-defaults"\nName = "global"\nConfig {\n  envoy_public_listener_json = "{}"\n}\n',
  );
  assert.match(
    await refused(['config', 'write', hatch]),
    /Config\.envoy_public_listener_json: not supported by this hub \(Envoy escape hatches are not applied/,
  );
  const meshGateway = await write(
    'mgw.hcl',
    'Kind = "proxy-defaults"\nName = "global"\nMeshGateway {\n  Mode = "local"\n}\n',
  );
  assert.match(await refused(['config', 'write', meshGateway]), /MeshGateway\.Mode: "local" is not supported/);
  const expose = await write('expose.hcl', 'Kind = "proxy-defaults"\nName = "global"\nExpose {\n  Checks = true\n}\n');
  assert.match(await refused(['config', 'write', expose]), /Expose: not supported by this hub \(expose paths\)/);
  const tproxy = await write('tproxy.hcl', 'Kind = "proxy-defaults"\nName = "global"\nMode = "transparent"\n');
  assert.match(await refused(['config', 'write', tproxy]), /Mode: not supported by this hub \(transparent proxy\)/);
  const kinds: Record<string, string> = {
    'exported-services': 'Kind = "exported-services"\nName = "default"\nServices = []\n',
    'sameness-group': 'Kind = "sameness-group"\nName = "sg"\n',
    'api-gateway': 'Kind = "api-gateway"\nName = "gw"\nListeners = []\n',
    'inline-certificate': 'Kind = "inline-certificate"\nName = "cert"\nCertificate = "x"\nPrivateKey = "y"\n',
    'tcp-route': 'Kind = "tcp-route"\nName = "r"\n',
    'jwt-provider': 'Kind = "jwt-provider"\nName = "okta"\n',
  };
  for (const [kind, body] of Object.entries(kinds)) {
    const out = await refused(['config', 'write', await write(`${kind}.hcl`, body)]);
    assert.match(out, new RegExp(`config entry kind "${kind}" is not supported by this hub`), out);
  }
  assert.equal(hub.catalog.lastIndex(), before, 'nothing appended');
});
