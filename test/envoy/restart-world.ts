// The world of restart-reconnect.int.test.ts: a hub process (`xdshub serve`,
// SQLite in a temporary directory) restarted on the same ports and data dir,
// and Envoy gateways — SotW ADS and Delta ADS, on the pinned Envoy and on the
// older one — each with its own ingress-gateway entry and listener, all routed
// to service `web`. It measures what a restart costs: when each Envoy is back
// (seen by the hub and by Envoy's own `control_plane.connected_state`) and how
// long a write then takes to reach its traffic (seen by the backend).
import { after } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { envoyBootstrap, type EnvoyTransport } from '../../src/cli/envoy-bootstrap';
import type { Envoy } from '../helpers/envoy';
import { spawnHub, type SpawnedHub } from '../helpers/hub';
import { tmpDir } from '../helpers/tmp';
import { startEnvoyWith } from './compat-envoy';
import { freePort, hubCall, startBackend, untilServedBy, type Backend } from './harness';

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

/** A guard against hangs, not a measure: a hub process can take 15–35 s to start on a loaded machine. */
export const CAP_MS = 90_000;

export interface Gateway {
  /** e.g. "sotw/1.36.4": the transport and the Envoy release. */
  label: string;
  nodeId: string;
  transport: EnvoyTransport;
  envoy: Envoy;
  port: number;
}

/** A backend that remembers when each gateway (by the Host its traffic carries) first reached it. */
export interface TimedBackend extends Backend {
  firstHitAt: Map<string, number>;
}

export async function timedBackend(name: string): Promise<TimedBackend> {
  const firstHitAt = new Map<string, number>();
  const b = await startBackend(name, (req) => {
    const host = String(req.headers.host ?? '');
    if (!firstHitAt.has(host)) firstHitAt.set(host, Date.now());
    return false;
  });
  cleanups.push(() => b.close());
  return { ...b, firstHitAt };
}

interface Ports {
  http: number;
  grpc: number;
}

export interface RestartWorld {
  gateways: Gateway[];
  hub(): SpawnedHub;
  register(b: Backend): Promise<unknown>;
  /** Stops the hub with `signal`; resolves its exit code or signal. */
  stop(signal: NodeJS.Signals): Promise<number | NodeJS.Signals>;
  /** Starts the hub again on the same ports and data dir; resolves when it printed its listening line, with when that was. */
  restart(): Promise<{ hub: SpawnedHub; listeningAt: number }>;
}

async function hubAt(dataDir: string, ports: Ports | undefined): Promise<{ hub: SpawnedHub; ports: Ports; listeningAt: number }> {
  const hub = await spawnHub(['--data-dir', dataDir, '--http-port', String(ports?.http ?? 0), '--grpc-port', String(ports?.grpc ?? 0)]);
  const listeningAt = Date.now();
  cleanups.push(() => hub.stop('SIGKILL'));
  return { hub, listeningAt, ports: { http: Number(new URL(hub.httpUrl).port), grpc: Number(hub.grpcAddress.split(':').pop()) } };
}

/** One gateway per (transport, Envoy binary), each served by `first` before this resolves. */
export async function restartWorld(envoys: { version: string; bin: string }[], transports: readonly EnvoyTransport[], first: Backend): Promise<RestartWorld> {
  const dir = await tmpDir('xdshub-restart-reconnect');
  cleanups.push(() => dir.cleanup());
  let { hub, ports } = await hubAt(dir.path, undefined);
  const register = (b: Backend) =>
    hubCall(hub.httpUrl, 'PUT', '/v1/catalog/register', { Node: 'restart-node', Address: '127.0.0.1', Service: { ID: b.name, Service: 'web', Port: b.port } });
  await register(first);
  const gateways: Gateway[] = [];
  for (const { version, bin } of envoys) {
    for (const transport of transports) {
      const label = `${transport}/${version}`;
      const nodeId = `restart-${transport}-${version.replace(/\W/g, '_')}`;
      const port = await freePort();
      await hubCall(hub.httpUrl, 'PUT', '/v1/config', { Kind: 'ingress-gateway', Name: nodeId, Listeners: [{ Port: port, Protocol: 'http', Services: [{ Name: 'web', Hosts: ['*'] }] }] });
      // The bootstrap exactly as `xdshub envoy bootstrap` prints it: its reconnect back-off is what is measured.
      const bootstrap = envoyBootstrap({
        nodeId, cluster: nodeId, transport, ads: true, adminBind: '127.0.0.1:0',
        grpcAddr: `127.0.0.1:${ports.grpc}`, httpAddr: `127.0.0.1:${ports.http}`, refreshDelayMs: 1000, datacenter: 'dc1',
      });
      const envoy = await startEnvoyWith(bin, { bootstrap, capMs: CAP_MS });
      cleanups.push(() => envoy.stop());
      await untilServedBy(envoy, port, first.name, { host: nodeId, capMs: CAP_MS });
      gateways.push({ label, nodeId, transport, envoy, port });
    }
  }
  return {
    gateways,
    register,
    hub: () => hub,
    stop: (signal) => hub.stop(signal),
    async restart() {
      const next = await hubAt(dir.path, ports);
      ({ hub, ports } = next);
      return { hub, listeningAt: next.listeningAt };
    },
  };
}

export async function connectedState(envoy: Envoy): Promise<number> {
  return (await envoy.stats()).get('control_plane.connected_state') ?? -1;
}

/**
 * Watches each Envoy's `control_plane.connected_state` from now on and
 * remembers when it first read 1 (epoch ms). Polled as fast as the admin API
 * answers, so a figure is late by at most one poll.
 */
export function watchConnected(gateways: readonly Gateway[]): { at: Map<string, number>; stop(): Promise<void> } {
  const at = new Map<string, number>();
  let on = true;
  const loops = gateways.map(async (g) => {
    while (on && !at.has(g.label)) {
      try {
        if ((await connectedState(g.envoy)) === 1) at.set(g.label, Date.now());
      } catch {
        // the admin API of a starved Envoy may fail a poll; the next one counts
      }
      await sleep(10);
    }
  });
  return {
    at,
    async stop() {
      on = false;
      await Promise.all(loops);
    },
  };
}

interface StreamInfo {
  node: { id: string } | null;
  connectedAt: string;
  types: { type: string; acked: Record<string, string>; pendingNonce: string | null }[];
}

/**
 * When the hub opened the stream on which `nodeId` is back in sync: its
 * clusters and listeners are held (ACKed, or named as held on reconnect) and
 * nothing is in flight. A stream the hub refuses never gets here.
 */
export async function inSyncSince(hubUrl: string, nodeId: string): Promise<number | undefined> {
  let streams: StreamInfo[];
  try {
    streams = (await hubCall(hubUrl, 'GET', '/v1/xds/clients')) as StreamInfo[];
  } catch {
    return undefined;
  }
  const s = streams.find((x) => x.node?.id === nodeId);
  if (!s) return undefined;
  const held = (t: string) => s.types.some((x) => x.type === t && Object.keys(x.acked).length > 0 && x.pendingNonce === null);
  return held('CDS') && held('LDS') ? Date.parse(s.connectedAt) : undefined;
}
