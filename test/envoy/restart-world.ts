// The world of restart-reconnect.int.test.ts: a hub process (`xdshub serve`,
// SQLite in a temporary directory) restarted on the same ports and data dir,
// and Envoy gateways — SotW ADS and Delta ADS, on the pinned Envoy and on the
// older one — each with its own ingress-gateway entry and listener, all routed
// to service `web`. It measures what a restart costs: when each Envoy is back
// (seen by the hub and by Envoy's own `control_plane.connected_state`) and how
// long a write then takes to reach its traffic (seen by the backend).
import { once } from 'node:events';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { after } from 'node:test';
import { type EnvoyTransport, envoyBootstrap } from '../../src/cli/envoy-bootstrap';
import type { Envoy } from '../helpers/envoy';
import { type SpawnedHub, spawnHub } from '../helpers/hub';
import { spawnTracked } from '../helpers/procs';
import { tmpDir } from '../helpers/tmp';
import { letTimePass, until } from '../helpers/until';
import { startEnvoyWith } from './compat-envoy';
import { freePort, hubCall, untilServedBy } from './harness';

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

/** A guard against hangs, not a measure: a hub process can take 15–35 s to start on a loaded machine. */
export const CAP_MS = 90_000;

/** How a gateway reaches the hub: ADS, or one stream per type. */
export interface Way {
  transport: EnvoyTransport;
  ads: boolean;
}

export interface Gateway extends Way {
  /** e.g. "SotW ADS 1.36.4": the transport and the Envoy release. */
  label: string;
  nodeId: string;
  envoy: Envoy;
  port: number;
}

/**
 * A backend in its own process, answering 200 with its name, that reports
 * when each gateway (by the Host its traffic carries) first reached it. Its
 * own process: a stall of the test process (which drives the load) must not
 * stall the backend too, or Envoy's connections to it time out and the test
 * would count the machine's load as failed requests. It exits when its stdin
 * closes, so it dies with the test however the test ends.
 */
export interface TimedBackend {
  name: string;
  port: number;
  firstHitAt: Map<string, number>;
}

const BACKEND = `
const http = require('node:http');
const name = process.argv[1];
const seen = new Set();
const server = http.createServer((req, res) => {
  const host = String(req.headers.host || '');
  if (!seen.has(host)) { seen.add(host); process.stdout.write('hit ' + host + ' ' + Date.now() + '\\n'); }
  req.resume();
  res.setHeader('content-type', 'text/plain');
  res.end(name);
});
server.keepAliveTimeout = 60000;
server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () =>
  process.stdout.write('listening ' + server.address().port + '\\n'));
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
`;

export async function timedBackend(name: string): Promise<TimedBackend> {
  const child = spawnTracked(process.execPath, ['-e', BACKEND, name], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = once(child, 'exit');
  cleanups.push(async () => {
    child.stdin!.end();
    child.kill('SIGKILL');
    await exited;
  });
  const firstHitAt = new Map<string, number>();
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const [word, a, b] = line.split(' ');
      if (word === 'listening') resolve(Number(a));
      else if (word === 'hit') firstHitAt.set(a!, Number(b));
    });
    void exited.then(() => reject(new Error(`backend ${name} exited before listening`)));
  });
  return { name, port, firstHitAt };
}

interface Ports {
  http: number;
  grpc: number;
}

export interface RestartWorld {
  gateways: Gateway[];
  hub(): SpawnedHub;
  register(b: TimedBackend): Promise<unknown>;
  /** Stops the hub with `signal`; resolves its exit code or signal. */
  stop(signal: NodeJS.Signals): Promise<number | NodeJS.Signals>;
  /**
   * Starts the hub again on the same ports and data dir; resolves when it
   * printed its listening line, with when that was and when its gRPC port
   * first took a connection (it binds before it prints the line).
   */
  restart(): Promise<{ hub: SpawnedHub; listeningAt: number; grpcOpenAt: number }>;
}

async function hubAt(
  dataDir: string,
  ports: Ports | undefined,
): Promise<{ hub: SpawnedHub; ports: Ports; listeningAt: number }> {
  const portArgs = ['--http-port', String(ports?.http ?? 0), '--grpc-port', String(ports?.grpc ?? 0)];
  const hub = await spawnHub(['--data-dir', dataDir, ...portArgs]);
  const listeningAt = Date.now();
  cleanups.push(() => hub.stop('SIGKILL'));
  const bound = { http: Number(new URL(hub.httpUrl).port), grpc: Number(hub.grpcAddress.split(':').pop()) };
  return { hub, listeningAt, ports: bound };
}

/** One gateway per (transport, Envoy binary), each served by `first` before this resolves. */
export async function restartWorld(
  envoys: { version: string; bin: string }[],
  ways: readonly Way[],
  first: TimedBackend,
): Promise<RestartWorld> {
  const dir = await tmpDir('xdshub-restart-reconnect');
  cleanups.push(() => dir.cleanup());
  let { hub, ports } = await hubAt(dir.path, undefined);
  const register = (b: TimedBackend) =>
    hubCall(hub.httpUrl, 'PUT', '/v1/catalog/register', {
      Node: 'restart-node',
      Address: '127.0.0.1',
      Service: { ID: b.name, Service: 'web', Port: b.port },
    });
  await register(first);
  const gateways: Gateway[] = [];
  for (const { version, bin } of envoys) {
    for (const { transport, ads } of ways) {
      const label = `${transport === 'sotw' ? 'SotW' : 'Delta'} ${ads ? 'ADS' : 'per-type'} ${version}`;
      const nodeId = `restart-${transport}-${ads ? 'ads' : 'types'}-${version.replace(/\W/g, '_')}`;
      const port = await freePort();
      const listeners = [{ Port: port, Protocol: 'http', Services: [{ Name: 'web', Hosts: ['*'] }] }];
      await hubCall(hub.httpUrl, 'PUT', '/v1/config', { Kind: 'ingress-gateway', Name: nodeId, Listeners: listeners });
      // The bootstrap exactly as `xdshub envoy bootstrap` prints it: its reconnect back-off is what is measured.
      const bootstrap = envoyBootstrap({
        nodeId,
        cluster: nodeId,
        transport,
        ads,
        adminBind: '127.0.0.1:0',
        grpcAddr: `127.0.0.1:${ports.grpc}`,
        httpAddr: `127.0.0.1:${ports.http}`,
        refreshDelayMs: 1000,
        datacenter: 'dc1',
      });
      const envoy = await startEnvoyWith(bin, { bootstrap, capMs: CAP_MS });
      cleanups.push(() => envoy.stop());
      await untilServedBy(envoy, port, first.name, { host: nodeId, capMs: CAP_MS });
      gateways.push({ label, nodeId, transport, ads, envoy, port });
    }
  }
  return {
    gateways,
    register,
    hub: () => hub,
    stop: (signal) => hub.stop(signal),
    async restart() {
      const probe = firstConnect(ports.grpc);
      const next = await hubAt(dir.path, ports);
      ({ hub, ports } = next);
      return { hub, listeningAt: next.listeningAt, grpcOpenAt: await probe };
    },
  };
}

/** When a TCP connection to 127.0.0.1:port first succeeds (tries every 5 ms until then, within CAP_MS). */
async function firstConnect(port: number): Promise<number> {
  const connectedAt = () =>
    new Promise<number | undefined>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(Date.now());
      });
      socket.once('error', () => resolve(undefined));
    });
  return until(connectedAt, { what: `a TCP connection to port ${port}`, timeout: CAP_MS, interval: 5 });
}

/** Envoy's `control_plane.connected_state` (1: its ADS stream is up), read alone so polling it is cheap. */
export async function connectedState(envoy: Envoy): Promise<number> {
  const text = await envoy.admin('/stats?filter=%5Econtrol_plane%5C.connected_state%24');
  const m = /^control_plane\.connected_state: (\d+)$/m.exec(text);
  return m ? Number(m[1]) : -1;
}

/**
 * Watches each Envoy's `control_plane.connected_state` from now on until
 * stop(), and keeps when its last run of 1s began (epoch ms). Not the first
 * 1: Envoy sets the gauge as soon as it starts a stream, before the hub has
 * answered, so an attempt at a hub that is still away reads 1 for a moment.
 * Polled as fast as the admin API answers, so a figure is late by one poll.
 */
export function watchConnected(gateways: readonly Gateway[]): { at: Map<string, number>; stop(): Promise<void> } {
  const at = new Map<string, number>();
  let on = true;
  const loops = gateways.map(async (g) => {
    while (on) {
      try {
        const state = await connectedState(g.envoy);
        if (state !== 1) at.delete(g.label);
        else if (!at.has(g.label)) at.set(g.label, Date.now());
      } catch {
        // the admin API of a starved Envoy may fail a poll; the next one counts
      }
      await letTimePass(10, 'the watch samples the gauge over time: its period bounds how late a figure is');
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
 * When `nodeId` is back in sync on the hub: every type it uses (clusters,
 * endpoints, listeners, routes) is held — ACKed, or named as held on
 * reconnect — with nothing in flight; the time is when the hub opened the last
 * of the streams that carry them (one on ADS, one per type otherwise). A
 * stream the hub refuses never gets here.
 */
export async function inSyncSince(hubUrl: string, nodeId: string): Promise<number | undefined> {
  let streams: StreamInfo[];
  try {
    streams = (await hubCall(hubUrl, 'GET', '/v1/xds/clients')) as StreamInfo[];
  } catch {
    return undefined;
  }
  let since = 0;
  for (const type of ['CDS', 'EDS', 'LDS', 'RDS']) {
    const held = (t: StreamInfo['types'][number]) =>
      t.type === type && Object.keys(t.acked).length > 0 && t.pendingNonce === null;
    const s = streams.find((x) => x.node?.id === nodeId && x.types.some(held));
    if (!s) return undefined;
    since = Math.max(since, Date.parse(s.connectedAt));
  }
  return since;
}
