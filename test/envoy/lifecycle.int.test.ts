// The hub's lifecycle under a real Envoy carrying steady traffic: the hub
// stopped with SIGTERM and killed with SIGKILL (no request fails while it is
// away; Envoy reconnects; on Delta the hub answers Envoy's
// initial_resource_versions with only what changed, counted on the wire by
// the hub's resources-sent counter), and resource TTLs per type
// (--resource-ttl with --resource-ttl-types clusters,endpoints): heartbeats
// keep them alive, after SIGKILL Envoy drops the clusters once the TTL runs
// out while it keeps the TTL-less Listener and routes, and a restarted hub
// restores traffic. (Envoy ignores the expiry of a ClusterLoadAssignment
// alone: with endpoints-only TTLs it keeps routing to the last endpoints;
// docs/envoy.md.)
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { envoyBootstrap } from '../../src/cli/envoy-bootstrap';
import { startEnvoy, type Envoy } from '../helpers/envoy';
import { spawnHub, type SpawnedHub } from '../helpers/hub';
import { tmpDir } from '../helpers/tmp';
import { freePort, hubCall, startBackend, untilServedBy, type Backend } from './harness';
import { openLoop, summary } from './mbb-scenarios';

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

interface Ports {
  http: number;
  grpc: number;
}

async function hubAt(dataDir: string, ports: Ports | undefined, args: string[] = []): Promise<{ hub: SpawnedHub; ports: Ports }> {
  const hub = await spawnHub(['--data-dir', dataDir, '--http-port', String(ports?.http ?? 0), '--grpc-port', String(ports?.grpc ?? 0), ...args]);
  cleanups.push(() => hub.stop('SIGKILL'));
  return { hub, ports: { http: Number(new URL(hub.httpUrl).port), grpc: Number(hub.grpcAddress.split(':').pop()) } };
}

async function connected(envoy: Envoy): Promise<number> {
  return (await envoy.stats()).get('control_plane.connected_state') ?? -1;
}

async function resourcesSent(httpUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${httpUrl}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^xdshub_xds_resources_sent_total\{type="(\w+)",variant="(\w+)"\} (\d+)/gm)) out[`${m[2]}/${m[1]}`] = Number(m[3]);
  return out;
}

async function setup(args: string[] = []) {
  const dir = await tmpDir('xdshub-envoy-lifecycle');
  cleanups.push(() => dir.cleanup());
  let { hub, ports } = await hubAt(dir.path, undefined, args);
  const backends: Backend[] = [await startBackend('life-a'), await startBackend('life-b')];
  cleanups.push(() => Promise.all(backends.map((b) => b.close())));
  const port = await freePort();
  const register = (h: SpawnedHub, b: Backend) =>
    hubCall(h.httpUrl, 'PUT', '/v1/catalog/register', { Node: 'life-node', Address: '127.0.0.1', Service: { ID: b.name, Service: 'web', Port: b.port } });
  await register(hub, backends[0]!);
  await hubCall(hub.httpUrl, 'PUT', '/v1/config', { Kind: 'ingress-gateway', Name: 'edge', Listeners: [{ Port: port, Protocol: 'http', Services: [{ Name: 'web', Hosts: ['*'] }] }] });
  const envoy = await startEnvoy({
    bootstrap: envoyBootstrap({
      nodeId: 'life-1', cluster: 'edge', transport: 'delta', ads: true, adminBind: '127.0.0.1:0',
      grpcAddr: `127.0.0.1:${ports.grpc}`, httpAddr: `127.0.0.1:${ports.http}`, refreshDelayMs: 1000, datacenter: 'dc1',
    }),
  });
  cleanups.push(() => envoy.stop());
  await untilServedBy(envoy, port, 'life-a');
  return {
    envoy, port, backends, register,
    hub: () => hub,
    async restart() {
      ({ hub, ports } = await hubAt(dir.path, ports, args));
      return hub;
    },
  };
}

test('SIGTERM and SIGKILL under steady traffic: no request fails, Envoy reconnects, Delta resends only what changed', async (t) => {
  const s = await setup();
  const traffic = openLoop(s.port, 'web', 50);
  const failed = () => traffic.counts.status5xx + traffic.counts.otherStatus + traffic.counts.connectionErrors;
  try {
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      const code = await s.hub().stop(signal);
      assert.equal(code, signal === 'SIGTERM' ? 0 : 'SIGKILL');
      await s.envoy.until(async () => (await connected(s.envoy)) === 0, 'Envoy sees the hub gone');
      const okBefore = traffic.counts.ok;
      await s.envoy.until(() => traffic.counts.ok >= okBefore + 20, 'twenty requests served while the hub is away');
      const hub = await s.restart();
      // One change right after the restart: the only resource the hub may send to the reconnected Envoy.
      const next = signal === 'SIGTERM' ? s.backends[1]! : s.backends[0]!;
      await (signal === 'SIGTERM' ? s.register(hub, next) : hubCall(hub.httpUrl, 'PUT', '/v1/catalog/deregister', { Node: 'life-node', ServiceID: s.backends[1]!.name }));
      await s.envoy.until(async () => (await connected(s.envoy)) === 1, 'Envoy reconnected');
      await untilServedBy(s.envoy, s.port, signal === 'SIGTERM' ? ['life-a', 'life-b'] : 'life-a');
      const sent = await resourcesSent(hub.httpUrl);
      t.diagnostic(`${signal}: resources sent by the restarted hub: ${JSON.stringify(sent)}`);
      // Wildcard CDS/LDS get their first answer empty (X-DELTA-9): zero resources.
      const nonZero = Object.fromEntries(Object.entries(sent).filter(([, n]) => n > 0));
      assert.deepEqual(nonZero, { 'delta/EDS': 1 }, 'Envoy named what it holds (initial_resource_versions): only the changed assignment goes on the wire');
    }
  } finally {
    await traffic.stop();
  }
  t.diagnostic(summary('steady traffic through both restarts', traffic.counts));
  assert.equal(failed(), 0, summary('steady traffic', traffic.counts));
  assert.equal((await s.envoy.rejectedUpdates()).total, 0);
});

test('--resource-ttl on clusters and endpoints: heartbeats keep them over 3× the TTL; after SIGKILL Envoy drops them after the TTL and keeps the rest; a restart restores traffic', async (t) => {
  const TTL = 1_000;
  const s = await setup(['--resource-ttl', `${TTL}ms`, '--resource-ttl-types', 'clusters,endpoints']);
  const traffic = openLoop(s.port, 'web', 50);
  const failed = () => traffic.counts.status5xx + traffic.counts.otherStatus + traffic.counts.connectionErrors;
  try {
    // 3.5 × the TTL with the hub alive: only heartbeats keep the endpoints.
    const until = Date.now() + 3.5 * TTL;
    await s.envoy.until(() => Date.now() >= until, 'three and a half TTLs');
    assert.equal(failed(), 0, `heartbeats kept the clusters and endpoints alive: ${summary('ttl', traffic.counts)}`);
    const metrics = await (await fetch(`${s.hub().httpUrl}/metrics`)).text();
    assert.match(metrics, /^xdshub_xds_heartbeats_total\{type="EDS",variant="delta"\} [1-9]/m, 'EDS heartbeats were sent');
    assert.match(metrics, /^xdshub_xds_heartbeats_total\{type="CDS",variant="delta"\} [1-9]/m, 'CDS heartbeats were sent');
    assert.doesNotMatch(metrics, /^xdshub_xds_heartbeats_total\{type="(LDS|RDS)"/m, 'listeners and routes carry no TTL');

    await s.hub().stop('SIGKILL');
    const killedAt = Date.now();
    await s.envoy.until(() => failed() > 0, 'Envoy dropping the TTL\'d cluster', 10_000);
    const droppedAfter = Date.now() - killedAt;
    t.diagnostic(`cluster dropped ${droppedAfter} ms after SIGKILL (TTL ${TTL} ms, heartbeat every ${TTL / 2} ms)`);
    assert.ok(droppedAfter >= TTL / 2 - 100, `not before the TTL could have run out (${droppedAfter} ms)`);
    assert.match(traffic.counts.samples[0]!, /^503/, 'the listener (no TTL) still answers; the cluster behind it is gone');
    const dump = await s.envoy.configDump();
    const clusters = dump.configs.find((c: any) => String(c['@type']).endsWith('ClustersConfigDump'));
    assert.ok(!(clusters.dynamic_active_clusters ?? []).some((c: any) => c.cluster.name === 'web'), 'Cluster web (TTL) was dropped');
    const listeners = dump.configs.find((c: any) => String(c['@type']).endsWith('ListenersConfigDump'));
    assert.ok(listeners.dynamic_listeners.some((l: any) => l.name.startsWith('edge:')), 'the gateway Listener (no TTL) is kept');

    await s.restart();
    const gone = failed();
    await untilServedBy(s.envoy, s.port, 'life-a');
    t.diagnostic(`${gone} requests failed while the cluster was gone`);
  } finally {
    await traffic.stop();
  }
  assert.equal((await s.envoy.rejectedUpdates()).total, 0);
});
