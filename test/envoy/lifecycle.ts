// The hub's lifecycle under real Envoys, shared by lifecycle-restart and
// lifecycle-ttl: a hub process (SQLite in a temporary directory) that can be
// killed and restarted on the same ports, backends life-a and life-b, and one
// Envoy gateway per transport carrying traffic to service `web`.
import { after } from 'node:test';
import { type EnvoyTransport, envoyBootstrap } from '../../src/cli/envoy-bootstrap';
import { type Envoy, startEnvoy } from '../helpers/envoy';
import { type SpawnedHub, spawnHub } from '../helpers/hub';
import { tmpDir } from '../helpers/tmp';
import { type Backend, freePort, hubCall, startBackend, untilServedBy } from './harness';

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

/**
 * Waits on events; generous so a loaded machine is not a failure (a hub
 * process takes 15–35 s to start at load 22 on two cores).
 */
export const CAP_MS = 60_000;
export const TTL_MS = 2_000;
/**
 * Heartbeats every 200 ms: the hub process (or Envoy) would have to stall
 * 1.8 s for a TTL to run out while the hub lives — not a thing a loaded
 * machine does, where 800 ms (a 1 s TTL) was within reach.
 */
export const TTL_ARGS = ['--resource-ttl', `${TTL_MS}ms`, '--heartbeat-interval', '200ms'];

interface Ports {
  http: number;
  grpc: number;
}

async function hubAt(
  dataDir: string,
  ports: Ports | undefined,
  args: string[] = [],
): Promise<{ hub: SpawnedHub; ports: Ports }> {
  const hub = await spawnHub([
    '--data-dir',
    dataDir,
    '--http-port',
    String(ports?.http ?? 0),
    '--grpc-port',
    String(ports?.grpc ?? 0),
    ...args,
  ]);
  cleanups.push(() => hub.stop('SIGKILL'));
  return { hub, ports: { http: Number(new URL(hub.httpUrl).port), grpc: Number(hub.grpcAddress.split(':').pop()) } };
}

export async function connected(envoy: Envoy): Promise<number> {
  return (await envoy.stats()).get('control_plane.connected_state') ?? -1;
}

export async function metrics(httpUrl: string): Promise<string> {
  return (await fetch(`${httpUrl}/metrics`)).text();
}

export async function resourcesSent(httpUrl: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const m of (await metrics(httpUrl)).matchAll(
    /^xdshub_xds_resources_sent_total\{type="(\w+)",variant="(\w+)"\} (\d+)/gm,
  ))
    out[`${m[2]}/${m[1]}`] = Number(m[3]);
  return out;
}

export interface Gateway {
  envoy: Envoy;
  port: number;
}

/**
 * A hub process (SQLite in a temporary directory), backend life-a registered
 * as `web`, and one Envoy gateway per transport (each its own ingress-gateway
 * entry and port), all served by life-a.
 */
export async function setup(args: string[], transports: readonly EnvoyTransport[], envoyArgs: string[] = []) {
  const dir = await tmpDir('xdshub-envoy-lifecycle');
  cleanups.push(() => dir.cleanup());
  let { hub, ports } = await hubAt(dir.path, undefined, args);
  const backends: Backend[] = [await startBackend('life-a'), await startBackend('life-b')];
  cleanups.push(() => Promise.all(backends.map((b) => b.close())));
  const register = (h: SpawnedHub, b: Backend) =>
    hubCall(h.httpUrl, 'PUT', '/v1/catalog/register', {
      Node: 'life-node',
      Address: '127.0.0.1',
      Service: { ID: b.name, Service: 'web', Port: b.port },
    });
  await register(hub, backends[0]!);
  const gateways: Gateway[] = [];
  for (const transport of transports) {
    const port = await freePort();
    const name = `edge-${transport}`;
    await hubCall(hub.httpUrl, 'PUT', '/v1/config', {
      Kind: 'ingress-gateway',
      Name: name,
      Listeners: [{ Port: port, Protocol: 'http', Services: [{ Name: 'web', Hosts: ['*'] }] }],
    });
    const bootstrap = envoyBootstrap({
      nodeId: `life-${transport}`,
      cluster: name,
      transport,
      ads: true,
      adminBind: '127.0.0.1:0',
      grpcAddr: `127.0.0.1:${ports.grpc}`,
      httpAddr: `127.0.0.1:${ports.http}`,
      refreshDelayMs: 1000,
      datacenter: 'dc1',
    });
    // The bootstrap caps Envoy's reconnect back-off at 1 s (HUB_RECONNECT_BACKOFF), so a restart costs no 30 s wait.
    const envoy = await startEnvoy({ bootstrap, args: envoyArgs, capMs: CAP_MS });
    cleanups.push(() => envoy.stop());
    await untilServedBy(envoy, port, 'life-a', { capMs: CAP_MS });
    gateways.push({ envoy, port });
  }
  return {
    gateways,
    backends,
    register,
    hub: () => hub,
    async restart() {
      ({ hub, ports } = await hubAt(dir.path, ports, args));
      return hub;
    },
  };
}
