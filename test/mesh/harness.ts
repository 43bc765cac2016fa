// Service-mesh test harness: a hub with xDS, apps registered with a sidecar
// through Consul's agent API by the `consul` npm client (unchanged), a real
// Envoy per sidecar started with the bootstrap `xdshub envoy bootstrap
// --proxy-id` prints, and Envoy's /certs read back.
import Consul from 'consul';
import { envoyBootstrap } from '../../src/cli/envoy-bootstrap';
import type { Config } from '../../src/config';
import type { Hub } from '../../src/hub';
import { freePort, startBackend, startHubWithXds } from '../envoy/harness';
import { type Envoy, startEnvoy } from '../helpers/envoy';

export { freePort };

export async function startMeshHub(overrides: Partial<Config> = {}): Promise<{ hub: Hub; consul: Consul }> {
  const hub = await startHubWithXds({ nodeName: 'mesh-node', ...overrides });
  return { hub, consul: new Consul({ host: '127.0.0.1', port: hub.httpPort }) };
}

export interface AppSpec {
  name: string;
  id: string;
  /** Where the app listens. */
  port: number;
  /** The sidecar's public port (a free port: tests never use fixed ones). */
  sidecarPort: number;
  upstreams?: { destinationName: string; localBindPort: number }[];
  /** The app's Meta (its sidecar inherits it, so resolver subsets can select sidecars by it). */
  meta?: Record<string, string>;
}

/**
 * Registers the app and its sidecar in one agent registration (the sidecar
 * shorthand). The sidecar's checks are Consul's defaults with a 1 s interval
 * (its TCP check would otherwise wait 10 s to see Envoy listening).
 */
export async function registerApp(consul: Consul, spec: AppSpec): Promise<string> {
  await consul.agent.service.register({
    name: spec.name,
    id: spec.id,
    port: spec.port,
    ...(spec.meta ? { meta: spec.meta } : {}),
    connect: {
      sidecarService: {
        port: spec.sidecarPort,
        checks: [
          { name: 'Connect Sidecar Listening', tcp: `127.0.0.1:${spec.sidecarPort}`, interval: '1s' },
          { name: `Connect Sidecar Aliasing ${spec.id}`, aliasservice: spec.id },
        ],
        proxy: {
          destinationservicename: spec.name,
          ...(spec.upstreams
            ? {
                upstreams: spec.upstreams.map((u) => ({
                  DestinationName: u.destinationName,
                  LocalBindPort: u.localBindPort,
                })),
              }
            : {}),
        },
      },
    },
  } as never);
  return `${spec.id}-sidecar-proxy`;
}

/** A sidecar Envoy: node id = the proxy's service ID, bootstrapped like `xdshub envoy bootstrap --proxy-id`. */
export function startSidecar(hub: Hub, proxyId: string, cluster: string): Promise<Envoy> {
  return startEnvoy({
    bootstrap: envoyBootstrap({
      nodeId: proxyId,
      cluster,
      transport: 'delta',
      ads: true,
      adminBind: '127.0.0.1:0',
      grpcAddr: `127.0.0.1:${hub.grpcPort}`,
      httpAddr: `127.0.0.1:${hub.httpPort}`,
      refreshDelayMs: 1000,
      datacenter: hub.config.datacenter,
    }),
    // A sidecar has no listener until its resources arrive: ready (LIVE) is reached after the first fetch.
    waitReady: true,
  });
}

export interface EnvoyCert {
  serial: string;
  uris: string[];
}

/** What Envoy's /certs says it holds: its own certificates (with SAN URIs) and the CAs it trusts. */
export async function envoyCerts(envoy: Envoy): Promise<{ chains: EnvoyCert[]; cas: EnvoyCert[] }> {
  const body = JSON.parse(await envoy.admin('/certs')) as {
    certificates?: {
      ca_cert?: { serial_number: string; subject_alt_names?: { uri?: string }[] }[];
      cert_chain?: { serial_number: string; subject_alt_names?: { uri?: string }[] }[];
    }[];
  };
  const of = (c: { serial_number: string; subject_alt_names?: { uri?: string }[] }): EnvoyCert => ({
    serial: c.serial_number.toLowerCase(),
    uris: (c.subject_alt_names ?? []).flatMap((s) => (s.uri ? [s.uri] : [])),
  });
  const chains: EnvoyCert[] = [];
  const cas: EnvoyCert[] = [];
  for (const c of body.certificates ?? []) {
    for (const x of c.cert_chain ?? []) chains.push(of(x));
    for (const x of c.ca_cert ?? []) cas.push(of(x));
  }
  return { chains, cas };
}

/**
 * App `a` (instance a1) with an upstream to `web` on 127.0.0.1:upstreamPort,
 * its backend and its sidecar's Envoy started; the backend's close goes to `closers`.
 */
export async function startCallerOfWeb(
  hub: Hub,
  consul: Consul,
  closers: (() => Promise<unknown>)[],
  upstreamPort: number,
  sidecarPort: number,
): Promise<Envoy> {
  const appA = await startBackend('a-app');
  closers.push(() => appA.close());
  const proxyA = await registerApp(consul, {
    name: 'a',
    id: 'a1',
    port: appA.port,
    sidecarPort,
    upstreams: [{ destinationName: 'web', localBindPort: upstreamPort }],
  });
  return startSidecar(hub, proxyA, 'a-sidecar-proxy');
}
