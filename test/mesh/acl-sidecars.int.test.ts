// Sidecars under ACLs with real Envoys, Consul's model: each Envoy sends its
// token as x-consul-token (the bootstrap's initial_metadata). An Envoy with a
// read-everything token claiming db's sidecar is refused (PERMISSION_DENIED)
// and never holds a secret; sidecars with Consul-style tokens (`service "X"
// write` plus `service_prefix "" read` for their upstreams) get their whole
// config, nothing rejected, their own leaf only, and real traffic flows web →
// web's sidecar → mTLS → db's sidecar → db.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { envoyBootstrap } from '../../src/cli/envoy-bootstrap';
import type { Hub } from '../../src/hub';
import { aclHub, as, ROOT, tokenWith, withToken } from '../acl/helpers';
import { type Backend, freePort, startBackend } from '../envoy/harness';
import { type Envoy, startEnvoy } from '../helpers/envoy';

const READ_ALL = 'service_prefix "" { policy = "read" }\nnode_prefix "" { policy = "read" }';
const sidecarToken = (service: string) => `service "${service}" { policy = "write" }\n${READ_ALL}`;

let hub: Hub;
let db: Backend;
let upstreamPort = 0;
const closers: (() => Promise<unknown>)[] = [];

function sidecarEnvoy(proxyId: string, token: string, waitReady: boolean): Promise<Envoy> {
  const bootstrap = envoyBootstrap({
    nodeId: proxyId,
    cluster: proxyId,
    transport: 'delta',
    ads: true,
    adminBind: '127.0.0.1:0',
    grpcAddr: `127.0.0.1:${hub.grpcPort}`,
    httpAddr: `127.0.0.1:${hub.httpPort}`,
    refreshDelayMs: 1000,
    datacenter: hub.config.datacenter,
  });
  return startEnvoy({ bootstrap: withToken(bootstrap, token), waitReady });
}

async function register(
  name: string,
  port: number,
  sidecarPort: number,
  upstreams: { DestinationName: string; LocalBindPort: number }[] = [],
): Promise<void> {
  const r = await as(hub, ROOT, 'PUT', '/v1/agent/service/register', {
    Name: name,
    ID: `${name}1`,
    Port: port,
    Connect: {
      SidecarService: {
        Port: sidecarPort,
        // Consul's default checks, at 1 s (the TCP one would otherwise wait 10 s to see Envoy listening).
        Checks: [
          { Name: 'Connect Sidecar Listening', TCP: `127.0.0.1:${sidecarPort}`, Interval: '1s' },
          { Name: `Connect Sidecar Aliasing ${name}1`, AliasService: `${name}1` },
        ],
        Proxy: { Upstreams: upstreams },
      },
    },
  });
  assert.equal(r.status, 200, r.text);
}

async function dump(envoy: Envoy): Promise<any> {
  return JSON.parse(await envoy.admin('/config_dump?include_eds'));
}

function section(d: any, suffix: string): any {
  return d.configs.find((c: any) => String(c['@type']).endsWith(suffix)) ?? {};
}

before(async () => {
  hub = await aclHub({ nodeName: 'mesh-acl-envoy' });
  closers.push(() => hub.close());
  db = await startBackend('db');
  closers.push(() => db.close());
  upstreamPort = await freePort();
  await register('db', db.port, await freePort());
  await register('web', await freePort(), await freePort(), [{ DestinationName: 'db', LocalBindPort: upstreamPort }]);
});
after(async () => {
  for (const c of closers.reverse()) await c().catch(() => undefined);
});

test('an Envoy with a read-everything token claiming db’s sidecar node id is refused with PERMISSION_DENIED and holds no secret', async () => {
  const reader = await tokenWith(hub, READ_ALL);
  const envoy = await sidecarEnvoy('db1-sidecar-proxy', reader.secret, false);
  closers.push(() => envoy.stop());
  // Envoy logs the status: 7 is PERMISSION_DENIED, with the hub's text (URL-encoded).
  const outcome = await envoy.until(async () => {
    if (/config stream to xdshub closed: 7, Permission%20denied.*service:write.*db/.test(envoy.log())) return 'refused';
    const secrets = section(await dump(envoy), 'SecretsConfigDump');
    const held = [...(secrets.dynamic_active_secrets ?? []), ...(secrets.dynamic_warming_secrets ?? [])].map(
      (x: any) => x.name,
    );
    return held.some((n: string) => n.endsWith('/svc/db')) ? `holds db's leaf: ${held.join(', ')}` : undefined;
  }, 'Envoy to log the refusal');
  assert.equal(outcome, 'refused');
  const d = await dump(envoy);
  assert.deepEqual(section(d, 'SecretsConfigDump').dynamic_active_secrets ?? [], []);
  assert.deepEqual(section(d, 'SecretsConfigDump').dynamic_warming_secrets ?? [], []);
  assert.deepEqual(section(d, 'ClustersConfigDump').dynamic_active_clusters ?? [], []);
  assert.doesNotMatch(await envoy.admin('/certs'), /svc\/db/);
  await envoy.stop();
});

test('Consul-style sidecar tokens: whole configs, nothing rejected, each Envoy its own leaf only, traffic web → db over mTLS', async () => {
  const webToken = await tokenWith(hub, sidecarToken('web'));
  const dbToken = await tokenWith(hub, sidecarToken('db'));
  const [webEnvoy, dbEnvoy] = await Promise.all([
    sidecarEnvoy('web1-sidecar-proxy', webToken.secret, true),
    sidecarEnvoy('db1-sidecar-proxy', dbToken.secret, true),
  ]);
  closers.push(
    () => webEnvoy.stop(),
    () => dbEnvoy.stop(),
  );
  let last = '';
  await webEnvoy.until(
    async () => {
      const res = await fetch(`http://127.0.0.1:${upstreamPort}/hello`).then(
        async (r) => `${r.status} ${await r.text()}`,
        (e: Error) => e.message,
      );
      last = res;
      return res === '200 db' || undefined;
    },
    () => `web → db through the sidecars (last: ${last})`,
  );
  assert.ok(db.hits() > 0);
  const td = hub.catalog.connectCa().trustDomain;
  for (const [envoy, own, other] of [
    [webEnvoy, 'web', 'db'],
    [dbEnvoy, 'db', 'web'],
  ] as const) {
    const d = await dump(envoy);
    const secrets = (section(d, 'SecretsConfigDump').dynamic_active_secrets ?? []).map((s: any) => s.name).sort();
    assert.deepEqual(
      secrets,
      [`spiffe://${td}`, `spiffe://${td}/ns/default/dc/dc1/svc/${own}`],
      `${own}: its leaf and the bundle`,
    );
    assert.ok(!secrets.some((n: string) => n.endsWith(`/svc/${other}`)), `${own} never holds ${other}'s leaf`);
    const clusters = (section(d, 'ClustersConfigDump').dynamic_active_clusters ?? [])
      .map((c: any) => c.cluster.name)
      .sort();
    assert.ok(clusters.includes('local_app'), `${own}: ${clusters.join(',')}`);
    if (own === 'web') assert.ok(clusters.includes(`db.default.dc1.internal.${td}`), clusters.join(','));
    const listeners = (section(d, 'ListenersConfigDump').dynamic_listeners ?? [])
      .filter((l: any) => l.active_state)
      .map((l: any) => l.name);
    assert.ok(
      listeners.some((n: string) => n.startsWith('public_listener:')),
      listeners.join(','),
    );
    if (own === 'web') assert.ok(listeners.includes(`db:127.0.0.1:${upstreamPort}`), listeners.join(','));
    const stats = await envoy.admin('/stats?filter=update_rejected');
    assert.doesNotMatch(stats, /update_rejected: [1-9]/, `${own}: nothing rejected\n${stats}`);
  }
});
