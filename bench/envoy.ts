// bench/envoy: write-to-traffic latency through real Envoys. For each change,
// t0 is the hub's acknowledgement of the HTTP write that moves service `web`
// to a new backend; the figure is the time until the first request through
// each Envoy reaches that backend (stamped by the backend on arrival). The hub
// runs as its own process with default flags; every Envoy is an ingress
// gateway of its own (`edge-<i>`, its own listener port) with a client that
// sends requests back to back through it. Prints figures; asserts nothing.
//
//   node --import tsx bench/envoy.ts [--changes 100] [--envoys 1,20] [--transports delta,sotw] [--hub-args="--xds-debounce 0ms"]
//
// Run it through /work/team/bench-lock on a shared machine.
import { once } from 'node:events';
import http from 'node:http';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { envoyBootstrap } from '../src/cli/envoy-bootstrap';
import { envoyVersion, startEnvoy, type Envoy } from '../test/helpers/envoy';
import { spawnHub, type SpawnedHub } from '../test/helpers/hub';
import { tmpDir } from '../test/helpers/tmp';
import { freePort, hubCall } from '../test/envoy/harness';

const { values } = parseArgs({
  options: {
    changes: { type: 'string', default: '100' },
    envoys: { type: 'string', default: '1,20' },
    transports: { type: 'string', default: 'delta,sotw' },
    'hub-args': { type: 'string', default: '' },
    'cap-ms': { type: 'string', default: '5000' },
  },
});
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
    close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

/** Sends requests back to back through one Envoy until stopped. */
function prober(index: number, port: number): { stop(): void; errors(): number } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let on = true;
  let errors = 0;
  const one = () =>
    new Promise<void>((resolve) => {
      const req = http.request({ host: '127.0.0.1', port, path: '/', agent, headers: { host: 'web', 'x-prober': String(index) } }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', () => {
        errors++;
        setTimeout(resolve, 5);
      });
      req.end();
    });
  void (async () => {
    while (on) await one();
    agent.destroy();
  })();
  return { stop: () => (on = false), errors: () => errors };
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function run(hub: SpawnedHub, transport: 'delta' | 'sotw', count: number): Promise<string> {
  const backends = [await stampingBackend(), await stampingBackend(), await stampingBackend()];
  const register = (b: StampingBackend) =>
    hubCall(hub.httpUrl, 'PUT', '/v1/catalog/register', { Node: 'bench-node', Address: '127.0.0.1', Service: { ID: 'web-1', Service: 'web', Port: b.port } });
  await register(backends[0]!);
  const envoys: Envoy[] = [];
  const probers: ReturnType<typeof prober>[] = [];
  const grpcPort = Number(hub.grpcAddress.split(':').pop());
  const httpPort = Number(new URL(hub.httpUrl).port);
  try {
    for (let i = 0; i < count; i++) {
      const port = await freePort();
      const gw = `edge-${transport}-${i}`;
      await hubCall(hub.httpUrl, 'PUT', '/v1/config', { Kind: 'ingress-gateway', Name: gw, Listeners: [{ Port: port, Protocol: 'http', Services: [{ Name: 'web', Hosts: ['*'] }] }] });
      const bootstrap = envoyBootstrap({
        nodeId: gw, cluster: gw, transport, ads: true, adminBind: '127.0.0.1:0',
        grpcAddr: `127.0.0.1:${grpcPort}`, httpAddr: `127.0.0.1:${httpPort}`, refreshDelayMs: 1000, datacenter: 'dc1',
      });
      const envoy = await startEnvoy({ bootstrap, logLevel: 'warn', capMs: 30_000 });
      envoys.push(envoy);
      await envoy.until(async () => (await envoy.listenerPort(`${gw}:${port}`)) !== undefined, `listener ${gw}`, 30_000);
      probers.push(prober(i, port));
    }
    await sleep(500);
    const latencies: number[] = [];
    let missed = 0;
    for (let c = 1; c <= CHANGES; c++) {
      const target = backends[c % backends.length]!;
      target.arm(c);
      const t0 = await register(target).then(() => process.hrtime.bigint());
      const deadline = Date.now() + CAP_MS;
      while (target.firsts.size < count && Date.now() < deadline) await sleep(1);
      for (let i = 0; i < count; i++) {
        const at = target.firsts.get(i);
        if (at === undefined) missed++;
        else latencies.push(Math.max(0, Number(at - t0) / 1e6));
      }
      target.arm(-1);
      await sleep(30); // requests already on their way to the old backend finish
    }
    latencies.sort((a, b) => a - b);
    const errors = probers.reduce((s, p) => s + p.errors(), 0);
    return `${transport.padEnd(5)} ADS, ${String(count).padStart(2)} Envoy(s): ${CHANGES} changes, ${latencies.length} samples — p50 ${pct(latencies, 50).toFixed(1)} ms, p99 ${pct(latencies, 99).toFixed(1)} ms, max ${latencies[latencies.length - 1]!.toFixed(1)} ms; missed ${missed}, request errors ${errors}; load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`;
  } finally {
    probers.forEach((p) => p.stop());
    await Promise.all(envoys.map((e) => e.stop()));
    for (const e of envoys) await hubCall(hub.httpUrl, 'DELETE', `/v1/config/ingress-gateway/${e.id}`).catch(() => undefined);
    await Promise.all(backends.map((b) => b.close()));
  }
}

async function main(): Promise<void> {
  const dir = await tmpDir('xdshub-bench-envoy');
  const extra = values['hub-args'] === '' ? [] : values['hub-args'].split(/\s+/);
  const hub = await spawnHub(['--http-port', '0', '--grpc-port', '0', '--data-dir', dir.path, '--log-level', 'warn', ...extra], {}, { built: false });
  console.log(`bench/envoy: envoy ${envoyVersion()}, hub flags: defaults${extra.length ? ` + ${extra.join(' ')}` : ''}; t0 = HTTP write acknowledged, t1 = first request through each Envoy at the new backend`);
  try {
    for (const transport of TRANSPORTS) for (const count of ENVOY_COUNTS) console.log(await run(hub, transport, count));
  } finally {
    await hub.stop('SIGTERM');
    await dir.cleanup();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
