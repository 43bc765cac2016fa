// bench/envoy: write-to-traffic latency through real Envoys. For each change,
// t0 is the hub's acknowledgement of the HTTP write that moves service `web`
// to a new backend; the figure is the time until the first request through
// each Envoy reaches that backend (stamped by the backend on arrival). The hub
// runs as its own process with default flags, compiled as `npm start` runs it
// (dist/, built once by the bench; --tsx for the sources); every Envoy is an ingress
// gateway of its own (`edge-<i>`, its own listener port) with a client that
// sends requests back to back through it. Prints figures; asserts nothing.
//
// Next to that end-to-end figure it prints the hub's own share: from the same
// acknowledgement until the hub wrote the last response carrying the change
// to the bench's Envoys (the EDS `lastPushAtMs` of each stream in
// GET /v1/xds/clients, read after the change is through), so a run tells the
// hub's time from Envoy's and the clients'.
//
//   node --import tsx bench/envoy.ts [--changes 100] [--envoys 1,20] [--transports delta,sotw] [--hub-args="--xds-debounce 0ms"]
//        [--envoy-concurrency 1] [--probe-gap-ms 0] [--hub-node-args="--cpu-prof --cpu-prof-dir=DIR"]
//
// --envoy-concurrency: Envoy worker threads (default 1, as in the tests);
// --probe-gap-ms: pause between one client's requests (default 0: back to
// back, the tightest stamp, and the most CPU taken from the hub);
// --hub-node-args: Node flags for the hub process (a CPU profile, say);
// --load-clients N: N scripted Delta ADS clients (bench/xds/clients.ts, in two
// processes, each on its own HTTP/2 connection, subscribed as Envoy is:
// wildcard CDS, then EDS for every cluster, ACKing all) connected to the hub
// for the whole run, so every change also goes to them (issue #26: ≤ 100 ms
// p99 with 1,000 of them).
//
// Run it with no other benchmark on the machine.
import { once } from 'node:events';
import http from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { envoyBootstrap } from '../src/cli/envoy-bootstrap';
import { freePort, hubCall } from '../test/envoy/harness';
import { type Envoy, envoyVersion, startEnvoy } from '../test/helpers/envoy';
import { type SpawnedHub, spawnHub } from '../test/helpers/hub';
import { forkTracked } from '../test/helpers/procs';
import { tmpDir } from '../test/helpers/tmp';
import { benchScript } from './xds/compiled';
import { Proc } from './xds/proc';
import type { ClientCommand, ClientReply } from './xds/protocol';

const { values } = parseArgs({
  options: {
    changes: { type: 'string', default: '100' },
    envoys: { type: 'string', default: '1,20' },
    transports: { type: 'string', default: 'delta,sotw' },
    'hub-args': { type: 'string', default: '' },
    'cap-ms': { type: 'string', default: '5000' },
    'envoy-concurrency': { type: 'string', default: '1' },
    'probe-gap-ms': { type: 'string', default: '0' },
    'hub-node-args': { type: 'string', default: '' },
    'load-clients': { type: 'string', default: '0' },
    tsx: { type: 'boolean', default: process.env['XDS_BENCH_TSX'] === '1' },
  },
});
const LOAD_CLIENTS = Number(values['load-clients']);
const ENVOY_CONCURRENCY = Number(values['envoy-concurrency']);
const PROBE_GAP_MS = Number(values['probe-gap-ms']);
const CHANGES = Number(values.changes);
const ENVOY_COUNTS = values.envoys.split(',').map(Number);
const TRANSPORTS = values.transports.split(',') as ('delta' | 'sotw')[];
const CAP_MS = Number(values['cap-ms']);

/** A backend that stamps, per change, when each Envoy's first request arrived (header x-prober = Envoy index). */
interface StampingBackend {
  port: number;
  /** From now on, record first arrivals for this change. */
  arm(change: number): void;
  firsts: Map<number, bigint>;
  close(): Promise<void>;
}

async function stampingBackend(): Promise<StampingBackend> {
  let armed = -1;
  const firsts = new Map<number, bigint>();
  const server = http.createServer((req, res) => {
    const at = process.hrtime.bigint();
    const prober = Number(req.headers['x-prober']);
    if (armed >= 0 && !firsts.has(prober)) firsts.set(prober, at);
    req.resume();
    res.end('ok');
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as { port: number }).port,
    arm(change) {
      armed = change;
      firsts.clear();
    },
    firsts,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Sends requests back to back through one Envoy until stopped. */
function prober(index: number, port: number): { stop(): void; errors(): number } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let on = true;
  let errors = 0;
  const one = () =>
    new Promise<void>((resolve) => {
      const req = http.request(
        { host: '127.0.0.1', port, path: '/', agent, headers: { host: 'web', 'x-prober': String(index) } },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', () => {
        errors++;
        setTimeout(resolve, 5);
      });
      req.end();
    });
  void (async () => {
    while (on) {
      await one();
      if (PROBE_GAP_MS > 0) await sleep(PROBE_GAP_MS);
    }
    agent.destroy();
  })();
  return { stop: () => (on = false), errors: () => errors };
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** Wall-clock time in epoch ms with a fraction: comparable with the hub process's lastPushAtMs. */
const epochMs = () => performance.timeOrigin + performance.now();

/** When the hub last wrote EDS to each of `nodes`' streams (GET /v1/xds/clients), epoch ms; undefined for a node without one. */
async function lastEdsPush(hub: SpawnedHub, nodes: readonly string[]): Promise<(number | undefined)[]> {
  const clients = (await hubCall(hub.httpUrl, 'GET', '/v1/xds/clients')) as {
    node: { id: string } | null;
    types: { type: string; lastPushAtMs: number | null }[];
  }[];
  const at = new Map<string, number>();
  for (const c of clients) {
    const t = c.types.find((x) => x.type === 'EDS')?.lastPushAtMs;
    if (c.node && t != null) at.set(c.node.id, Math.max(at.get(c.node.id) ?? 0, t));
  }
  return nodes.map((n) => at.get(n));
}

const figures = (sorted: number[]) =>
  sorted.length === 0
    ? 'no samples'
    : `p50 ${pct(sorted, 50).toFixed(1)} ms, p99 ${pct(sorted, 99).toFixed(1)} ms, max ${sorted[sorted.length - 1]!.toFixed(1)} ms`;

async function run(hub: SpawnedHub, transport: 'delta' | 'sotw', count: number): Promise<string> {
  const backends = [await stampingBackend(), await stampingBackend(), await stampingBackend()];
  const register = (b: StampingBackend) =>
    hubCall(hub.httpUrl, 'PUT', '/v1/catalog/register', {
      Node: 'bench-node',
      Address: '127.0.0.1',
      Service: { ID: 'web-1', Service: 'web', Port: b.port },
    });
  await register(backends[0]!);
  const envoys: Envoy[] = [];
  const probers: ReturnType<typeof prober>[] = [];
  const grpcPort = Number(hub.grpcAddress.split(':').pop());
  const httpPort = Number(new URL(hub.httpUrl).port);
  try {
    for (let i = 0; i < count; i++) {
      const port = await freePort();
      const gw = `edge-${transport}-${i}`;
      await hubCall(hub.httpUrl, 'PUT', '/v1/config', {
        Kind: 'ingress-gateway',
        Name: gw,
        Listeners: [{ Port: port, Protocol: 'http', Services: [{ Name: 'web', Hosts: ['*'] }] }],
      });
      const bootstrap = envoyBootstrap({
        nodeId: gw,
        cluster: gw,
        transport,
        ads: true,
        adminBind: '127.0.0.1:0',
        grpcAddr: `127.0.0.1:${grpcPort}`,
        httpAddr: `127.0.0.1:${httpPort}`,
        refreshDelayMs: 1000,
        datacenter: 'dc1',
      });
      const envoy = await startEnvoy({ bootstrap, logLevel: 'warn', capMs: 30_000, concurrency: ENVOY_CONCURRENCY });
      envoys.push(envoy);
      await envoy.until(
        async () => (await envoy.listenerPort(`${gw}:${port}`)) !== undefined,
        `listener ${gw}`,
        30_000,
      );
      probers.push(prober(i, port));
    }
    await sleep(500);
    const latencies: number[] = [];
    /** Per change: ack → the first request through the last Envoy to see it (end to end, the slowest Envoy). */
    const lastEnvoy: number[] = [];
    /** Per change: ack → the hub's last write of the change to any of the Envoys (the hub's share). */
    const hubShare: number[] = [];
    let missed = 0;
    let hubMissed = 0;
    const nodes = envoys.map((e) => e.id);
    for (let c = 1; c <= CHANGES; c++) {
      const target = backends[c % backends.length]!;
      target.arm(c);
      const sentEpoch = epochMs();
      await register(target);
      const t0 = process.hrtime.bigint();
      const t0Epoch = epochMs();
      const deadline = Date.now() + CAP_MS;
      while (target.firsts.size < count && Date.now() < deadline) await sleep(1);
      let slowest = 0;
      for (let i = 0; i < count; i++) {
        const at = target.firsts.get(i);
        if (at === undefined) missed++;
        else {
          const ms = Math.max(0, Number(at - t0) / 1e6);
          latencies.push(ms);
          slowest = Math.max(slowest, ms);
        }
      }
      if (target.firsts.size === count) lastEnvoy.push(slowest);
      target.arm(-1);
      // Read after the change is through, outside the measured window.
      const pushes = await lastEdsPush(hub, nodes);
      // A push may be written before the acknowledgement reaches the bench (then the share is 0).
      if (pushes.every((p) => p !== undefined && p >= sentEpoch))
        hubShare.push(Math.max(0, Math.max(...(pushes as number[])) - t0Epoch));
      else hubMissed++;
      await sleep(30); // requests already on their way to the old backend finish
    }
    for (const list of [latencies, lastEnvoy, hubShare]) list.sort((a, b) => a - b);
    const errors = probers.reduce((s, p) => s + p.errors(), 0);
    return (
      `${transport.padEnd(5)} ADS, ${String(count).padStart(2)} Envoy(s): ${CHANGES} changes, ${latencies.length} samples — ` +
      `end to end (each Envoy) ${figures(latencies)}; end to end (last Envoy of a change) ${figures(lastEnvoy)}; ` +
      `hub wrote the last response ${figures(hubShare)}${hubMissed ? ` (${hubMissed} changes without a stamp)` : ''}; ` +
      `missed ${missed}, request errors ${errors}; load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`
    );
  } finally {
    probers.forEach((p) => p.stop());
    await Promise.all(envoys.map((e) => e.stop()));
    for (const e of envoys)
      await hubCall(hub.httpUrl, 'DELETE', `/v1/config/ingress-gateway/${e.id}`).catch(() => undefined);
    await Promise.all(backends.map((b) => b.close()));
  }
}

type LoadProc = Proc<ClientCommand, ClientReply>;

/** N scripted clients in two processes, connected and holding their first assignments. */
async function loadClients(grpcPort: number, n: number): Promise<LoadProc[]> {
  const per = Math.ceil(n / 2);
  const clients = benchScript(join(__dirname, 'xds', 'clients.ts'), values.tsx);
  const procs: LoadProc[] = [];
  for (let i = 0; i * per < n; i++)
    procs.push(new Proc(forkTracked(clients.path, [], { execArgv: clients.execArgv }), `load-${i}`));
  await Promise.all(procs.map((p) => p.next('loaded')));
  procs.forEach((p, i) =>
    p.send({
      cmd: 'connect',
      mode: 'hub',
      port: grpcPort,
      count: Math.min(per, n - i * per),
      offset: i * per,
      services: 1,
      storm: false,
      sample: 0,
    }),
  );
  await Promise.all(procs.map((p, i) => p.next('ready', (r) => r.count === Math.min(per, n - i * per), 300_000)));
  return procs;
}

async function main(): Promise<void> {
  const dir = await tmpDir('xdshub-bench-envoy');
  const extra = values['hub-args'] === '' ? [] : values['hub-args'].split(/\s+/);
  const nodeArgs = values['hub-node-args'];
  // The hub as `npm start` runs it: compiled (benchScript builds dist/ once), unless --tsx / XDS_BENCH_TSX=1.
  if (!values.tsx) benchScript(join(__dirname, 'xds', 'clients.ts'));
  const hub = await spawnHub(
    ['--http-port', '0', '--grpc-port', '0', '--data-dir', dir.path, '--log-level', 'warn', ...extra],
    {},
    { built: !values.tsx, nodeArgs: nodeArgs ? nodeArgs.split(/\s+/) : [] },
  );
  console.log(
    `bench/envoy: envoy ${envoyVersion()} (--concurrency ${ENVOY_CONCURRENCY}), hub flags: defaults${extra.length ? ` + ${extra.join(' ')}` : ''}` +
      `${nodeArgs ? `, hub node flags ${nodeArgs}` : ''}; clients ${PROBE_GAP_MS > 0 ? `pause ${PROBE_GAP_MS} ms between requests` : 'send back to back'}; ` +
      "t0 = HTTP write acknowledged, t1 = first request through each Envoy at the new backend; hub share = t0 → the hub wrote the change's last EDS response",
  );
  let load: LoadProc[] = [];
  try {
    if (LOAD_CLIENTS > 0) {
      // `web` exists before they connect, so they subscribe to its assignment and get every change the Envoys get.
      await hubCall(hub.httpUrl, 'PUT', '/v1/catalog/register', {
        Node: 'bench-node',
        Address: '127.0.0.1',
        Service: { ID: 'web-1', Service: 'web', Port: 9 },
      });
      load = await loadClients(Number(hub.grpcAddress.split(':').pop()), LOAD_CLIENTS);
      console.log(
        `${LOAD_CLIENTS} scripted Delta ADS clients connected beside the Envoys, subscribed to web's assignment (each gets every change too)`,
      );
    }
    for (const transport of TRANSPORTS) for (const count of ENVOY_COUNTS) console.log(await run(hub, transport, count));
  } finally {
    load.forEach((p) => p.send({ cmd: 'exit' }));
    await Promise.all(load.map((p) => p.exited()));
    await hub.stop('SIGTERM');
    await dir.cleanup();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
