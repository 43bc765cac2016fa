// bench/mesh: the service mesh at 200 sidecars. 200 services, each with a
// sidecar (and an upstream to the next service), registered through the hub's
// HTTP API; one real Envoy per 20 sidecars attached (10), the other 190 are
// simulated sidecars (bench/mesh/sim.ts: Delta ADS as a sidecar Envoy
// subscribes). Measures, from what the user sees (t0 = the HTTP write's
// acknowledgement):
//
//   - hub CPU (and wall time) to issue 200 leaves: a root rotation before any
//     client is attached, until every leaf is reissued under the new root;
//   - an intention change that affects every destination (a `*` entry): time
//     until every sidecar holds its new public listener, bytes pushed, hub CPU;
//   - an intention change for one destination: who received anything;
//   - a leaf rotation of all 200 (root rotation): time until every sidecar
//     holds its new leaf (SDS), bytes, hub CPU.
//
// Real Envoys are timed by polling their admin API (listener updates, /certs)
// every 10 ms, and their bytes are the xDS connection's received bytes. Prints
// figures; asserts nothing. Run it with no other benchmark on the machine.
//
//   node --import tsx bench/mesh.ts [--sidecars 200] [--envoy-every 20]
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { envoyBootstrap } from '../src/cli/envoy-bootstrap';
import { freePort, hubCall } from '../test/envoy/harness';
import { type Envoy, startEnvoy } from '../test/helpers/envoy';
import { type SpawnedHub, spawnHub } from '../test/helpers/hub';
import { SimSidecar } from './mesh/sim';
import { now, pct } from './xds/protocol';

const { values } = parseArgs({
  options: { sidecars: { type: 'string', default: '200' }, 'envoy-every': { type: 'string', default: '20' } },
});
const N = Number(values.sidecars);
const EVERY = Number(values['envoy-every']);
const la = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const f0 = (x: number) => x.toFixed(0);
const f1 = (x: number) => x.toFixed(1);

/** The hub process's CPU seconds (user + system) from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Side {
  svc: string;
  proxyId: string;
  publicPort: number;
  upstreamPort: number;
  envoy?: Envoy;
  sim?: SimSidecar;
}

async function main(): Promise<void> {
  console.log(`bench/mesh: ${N} sidecars, a real Envoy every ${EVERY}; load average ${la()}`);
  // From the sources (never a stale dist/).
  const hub: SpawnedHub = await spawnHub(['--store', 'memory', '--http-port', '0', '--grpc-port', '0'], {
    XDSHUB_LOG_LEVEL: 'warn',
  });
  const pid = hub.child.pid!;
  const grpcPort = Number(hub.grpcAddress.split(':').pop());
  const http = hub.httpUrl;
  const sides: Side[] = [];
  const cleanup: (() => Promise<unknown>)[] = [() => hub.stop('SIGTERM')];
  try {
    /** The hub's own counts (docs/operations.md): leaves under the active root, leaves issued, their CPU. */
    const caMetrics = async () => {
      const text = await (await fetch(`${http}/metrics`)).text();
      const num = (re: RegExp) => {
        const v = Number(re.exec(text)?.[1]);
        if (!Number.isFinite(v)) throw new Error(`the hub's /metrics has no ${re.source}`);
        return v;
      };
      return {
        active: num(/^xdshub_connect_leaves\{root="active"\} (\S+)/m),
        issued: num(/^xdshub_connect_leaves_issued_total (\S+)/m),
      };
    };
    // ── Registration ──
    for (let i = 0; i < N; i++) {
      const real = i % EVERY === 0;
      sides.push({
        svc: `s${i}`,
        proxyId: `s${i}-1-sidecar-proxy`,
        publicPort: real ? await freePort() : 40_000 + i,
        upstreamPort: real ? await freePort() : 50_000 + i,
      });
    }
    const cpu0 = cpuSeconds(pid);
    const r0 = now();
    for (let i = 0; i < N; i += 10) {
      await Promise.all(
        sides.slice(i, i + 10).map((s, k) =>
          hubCall(http, 'PUT', '/v1/agent/service/register', {
            Name: s.svc,
            ID: `${s.svc}-1`,
            Port: 10_000 + i + k,
            Connect: {
              SidecarService: {
                Port: s.publicPort,
                Checks: [{ TTL: '1h', Status: 'passing' }],
                Proxy: { Upstreams: [{ DestinationName: `s${(i + k + 1) % N}`, LocalBindPort: s.upstreamPort }] },
              },
            },
          }),
        ),
      );
    }
    const regMs = now() - r0;
    const td = (await hubCall(http, 'GET', '/v1/connect/ca/roots')).TrustDomain as string;
    // Every service's leaf issued (the hub issues them as sidecars register).
    while ((await caMetrics()).active < N) await sleep(50);
    const regCpu = cpuSeconds(pid) - cpu0;
    console.log(
      `registered ${N} services with sidecars (and their ${N} leaves) in ${f0(regMs)} ms; hub CPU ${f1(regCpu * 1000)} ms`,
    );

    // ── 200 leaves: a root rotation with no client attached ──
    const rotate = async () => {
      const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
        type: 'pkcs8',
        format: 'pem',
      });
      const c0 = cpuSeconds(pid);
      // t0 is the acknowledgement (hubCall resolves when the answer arrives).
      await hubCall(http, 'PUT', '/v1/connect/ca/configuration', { Provider: 'consul', Config: { PrivateKey: key } });
      const t0 = now();
      return { t0, c0 };
    };
    {
      const before = await caMetrics();
      const { t0, c0 } = await rotate();
      let m = await caMetrics();
      while (m.active < N) {
        await sleep(50);
        m = await caMetrics();
      }
      const ms = now() - t0;
      const cpu = cpuSeconds(pid) - c0;
      console.log(
        `issue ${N} leaves (root rotation, no client attached): all ${N} reissued ${f0(ms)} ms after the write's acknowledgement; ` +
          `hub process CPU ${f0(cpu * 1000)} ms in that time for ${m.issued - before.issued} leaves issued (${f1((cpu * 1000) / N)} ms per leaf: key, signature, log append, apply, translation); load ${la()}`,
      );
    }

    // ── Attach: real Envoys and simulated sidecars ──
    const leafName = (svc: string) => `spiffe://${td}/ns/default/dc/dc1/svc/${svc}`;
    const listenerName = (s: Side) => `public_listener:127.0.0.1:${s.publicPort}`;
    const a0 = now();
    for (let i = 0; i < N; i++) {
      const s = sides[i]!;
      if (i % EVERY === 0) continue;
      s.sim = new SimSidecar(
        grpcPort,
        s.proxyId,
        `${s.svc}-sidecar-proxy`,
        [listenerName(s), leafName(s.svc), `spiffe://${td}`],
        [leafName(s.svc), `spiffe://${td}`],
      );
      s.sim.open();
    }
    const reals = sides.filter((_, i) => i % EVERY === 0);
    await Promise.all(
      reals.map(async (s) => {
        s.envoy = await startEnvoy({
          bootstrap: envoyBootstrap({
            nodeId: s.proxyId,
            cluster: `${s.svc}-sidecar-proxy`,
            transport: 'delta',
            ads: true,
            adminBind: '127.0.0.1:0',
            grpcAddr: `127.0.0.1:${grpcPort}`,
            httpAddr: '127.0.0.1:1',
            refreshDelayMs: 1000,
            datacenter: 'dc1',
          }),
          capMs: 60_000,
        });
        cleanup.push(() => s.envoy!.stop());
      }),
    );
    await Promise.all(sides.filter((s) => s.sim).map((s) => s.sim!.whenReady()));
    for (const s of reals)
      await s.envoy!.until(
        async () => (await s.envoy!.listenerPort(listenerName(s))) !== undefined,
        'public listener up',
        60_000,
      );
    console.log(
      `attached ${reals.length} Envoys and ${N - reals.length} simulated sidecars; all hold their listeners and secrets ${f0(now() - a0)} ms after the first connected`,
    );

    // ── Helpers to time one push ──
    const stat = async (e: Envoy, name: string) => (await e.stats()).get(name) ?? 0;
    const rxBytes = (e: Envoy) => stat(e, 'cluster.xdshub.upstream_cx_rx_bytes_total');
    async function push(
      what: string,
      arm: (s: Side) => string,
      write: () => Promise<void>,
      realDone: (s: Side, before: unknown) => Promise<boolean>,
      realBefore: (s: Side) => Promise<unknown>,
    ) {
      for (const s of sides) s.sim?.arm(arm(s));
      const befores = await Promise.all(
        reals.map(async (s) => ({ s, before: await realBefore(s), rx: await rxBytes(s.envoy!) })),
      );
      const c0 = cpuSeconds(pid);
      await write();
      const t0 = now();
      const realTimes = new Map<Side, number>();
      const deadline = t0 + 30_000;
      while (now() < deadline) {
        const simsDone = sides.every((s) => !s.sim || s.sim.arrivedAt > 0);
        for (const b of befores) if (!realTimes.has(b.s) && (await realDone(b.s, b.before))) realTimes.set(b.s, now());
        if (simsDone && realTimes.size === reals.length) break;
        await sleep(10);
      }
      const cpu = cpuSeconds(pid) - c0;
      const simTimes = sides.flatMap((s) => (s.sim && s.sim.arrivedAt > 0 ? [s.sim.arrivedAt - t0] : []));
      const simBytes = sides.reduce((sum, s) => sum + (s.sim?.bytes ?? 0), 0);
      let envoyBytes = 0;
      for (const b of befores) envoyBytes += (await rxBytes(b.s.envoy!)) - b.rx;
      const times = [...simTimes, ...[...realTimes.values()].map((t) => t - t0)].sort((a, b) => a - b);
      const missing = N - times.length;
      console.log(
        `${what}: ${times.length}/${N} sidecars hold it (missing ${missing}); after the acknowledgement p50 ${f0(pct(times, 50))} ms, p99 ${f0(pct(times, 99))} ms, last ${f0(times.at(-1) ?? NaN)} ms ` +
          `(Envoys: last ${f0(Math.max(...[...realTimes.values()].map((t) => t - t0)))} ms); bytes pushed ${f1((simBytes + envoyBytes) / 1024)} KiB ` +
          `(${f0((simBytes + envoyBytes) / Math.max(times.length, 1))} B per sidecar); hub CPU ${f0(cpu * 1000)} ms; load ${la()}`,
      );
    }

    // ── An intention change that affects every destination ──
    const ldsUpdates = (e: Envoy) => stat(e, 'listener_manager.lds.update_success');
    await push(
      'intention change for every destination (* entry)',
      (s) => listenerName(s),
      async () =>
        void (await hubCall(http, 'PUT', '/v1/config', {
          Kind: 'service-intentions',
          Name: '*',
          Sources: [{ Name: 'nobody', Action: 'deny' }],
        })),
      async (s, before) => (await ldsUpdates(s.envoy!)) > (before as number),
      (s) => ldsUpdates(s.envoy!),
    );

    // ── An intention change for one destination: who hears of it ──
    {
      const target = sides[5]!;
      await sleep(1000); // the previous push has settled
      for (const s of sides) s.sim?.arm(listenerName(s));
      const rx = await Promise.all(reals.map((s) => rxBytes(s.envoy!)));
      await hubCall(http, 'PUT', `/v1/connect/intentions/exact?source=nobody2&destination=${target.svc}`, {
        Action: 'deny',
      });
      const t0 = now();
      while (target.sim!.arrivedAt === 0 && now() < t0 + 10_000) await sleep(5);
      await sleep(1000);
      const reached = sides
        .filter((s) => s.sim && s.sim.responses > 0)
        .map((s) => `${s.svc} (${[...s.sim!.types].join('+')})`);
      const envoyBytes = (await Promise.all(reals.map((s) => rxBytes(s.envoy!)))).reduce(
        (sum, v, i) => sum + v - rx[i]!,
        0,
      );
      console.log(
        `intention change for one destination (${target.svc}): its sidecar held it ${f0(target.sim!.arrivedAt - t0)} ms after the acknowledgement; sidecars that received anything within 1 s: ${reached.join(', ') || 'none'} (simulated) + ${f0(envoyBytes)} B to the real Envoys (their xDS connections, heartbeats included)`,
      );
    }

    // ── A leaf rotation of every service (root rotation) ──
    const chainSerials = async (e: Envoy) => {
      const body = JSON.parse(await e.admin('/certs')) as {
        certificates?: { cert_chain?: { serial_number: string }[] }[];
      };
      return (body.certificates ?? [])
        .flatMap((c) => (c.cert_chain ?? []).map((x) => x.serial_number))
        .sort()
        .join(',');
    };
    await push(
      'leaf rotation of all (root rotation, every leaf reissued)',
      (s) => leafName(s.svc),
      async () => void (await rotate()),
      async (s, before) => (await chainSerials(s.envoy!)) !== before,
      (s) => chainSerials(s.envoy!),
    );
  } finally {
    for (const s of sides) s.sim?.close();
    for (const c of cleanup.reverse()) await c().catch(() => undefined);
  }
  console.log(`done; load average ${la()}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
