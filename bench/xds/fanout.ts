// bench/xds --fanout: how long one endpoint change takes to reach N Delta ADS
// clients through fan-out hubs (docs/fanout.md), against N clients of the core
// hub itself, in the same run. Every change is a write to the core hub's HTTP
// API; t0 is its acknowledgement, and a client counts once it holds the new
// assignment. Three setups, each with fresh processes:
//   direct   N clients on the core hub
//   fanout   N clients on one fan-out hub of the core hub
//   fanout×2 N clients split over two fan-out hubs
// Prints figures and the fanout/direct p99 ratio (target ≤ 1.3×); asserts nothing.

import { join } from 'node:path';
import { forkTracked as fork } from '../../test/helpers/procs';
import { hubWriter } from './hub-http';
import { Proc } from './proc';
import { type ClientCommand, type ClientReply, now, pct, type ServerCommand, type ServerReply } from './protocol';

type Server = Proc<ServerCommand, ServerReply>;
type Clients = Proc<ClientCommand, ClientReply>;

export interface FanoutBenchOptions {
  clients: number;
  services: number;
  procs: number;
  rounds: number;
  hubArgs: string;
  execArgv: string[];
  load(): string;
}

const f1 = (x: number) => x.toFixed(1);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function server(
  script: string,
  label: string,
  execArgv: string[],
  env: Record<string, string>,
  services: number,
): Promise<{ proc: Server; port: number; httpUrl: string }> {
  const proc: Server = new Proc(
    fork(join(__dirname, script), [], { execArgv, env: { ...process.env, ...env } }),
    label,
  );
  const { port, httpUrl } = await proc.next('listening');
  proc.send({ cmd: 'setup', services });
  await proc.next('setup-done');
  return { proc, port, httpUrl: httpUrl ?? '' };
}

/** One setup: a core hub, `fanouts` fan-out hubs of it (0 = clients on the core), N clients, `rounds` changes. */
async function run(o: FanoutBenchOptions, fanouts: number): Promise<{ p99: number; line: string }> {
  const label = fanouts === 0 ? 'direct' : fanouts === 1 ? 'fanout' : `fanout×${fanouts}`;
  const env = { XDS_BENCH_HUB_ARGS: o.hubArgs, XDS_BENCH_TRIM: '1', XDS_BENCH_BARE_SYNC: '' };
  const core = await server('hub-server.ts', 'core-hub', o.execArgv, env, o.services);
  const edges = [];
  for (let i = 0; i < fanouts; i++) {
    edges.push(
      await server(
        'fanout-server.ts',
        `fanout-${i}`,
        o.execArgv,
        { ...env, XDS_BENCH_UPSTREAM: `127.0.0.1:${core.port}`, XDS_BENCH_UPSTREAM_HTTP: core.httpUrl },
        o.services,
      ),
    );
  }
  const ports = edges.length > 0 ? edges.map((e) => e.port) : [core.port];
  // At least one client process per server, so each process talks to one server.
  const p = Math.max(o.procs, ports.length);
  const per = Math.ceil(o.clients / p);
  const procs: Clients[] = [];
  for (let i = 0; i < p && i * per < o.clients; i++)
    procs.push(new Proc(fork(join(__dirname, 'clients.ts'), [], { execArgv: o.execArgv }), `clients-${i}`));
  await Promise.all(procs.map((c) => c.next('loaded')));
  const t = now();
  procs.forEach((c, i) =>
    c.send({
      cmd: 'connect',
      mode: 'hub',
      port: ports[i % ports.length]!,
      count: Math.min(per, o.clients - i * per),
      offset: i * per,
      services: o.services,
      storm: false,
      sample: 0,
    }),
  );
  const capMs = Math.max(300_000, o.clients * 500);
  const ready = await Promise.all(
    procs.map((c, i) => c.next('ready', (r) => r.count === Math.min(per, o.clients - i * per), capMs)),
  );
  const connectMs = Math.max(...ready.map((r) => r.at)) - t;
  await sleep(500);

  const writer = hubWriter(core.httpUrl);
  const latencies: number[] = [];
  let missing = 0;
  for (let r = 0; r < o.rounds; r++) {
    const service = (r * 7919) % o.services;
    procs.forEach((c) => c.send({ cmd: 'arm', name: `svc-${service}`, round: r }));
    await Promise.all(procs.map((c) => c.next('armed', (a) => a.round === r)));
    const arrivals = Promise.all(procs.map((c) => c.next('arrived', (a) => a.round === r)));
    const t0 = (await writer.change(service)).at;
    const arrived = await arrivals;
    latencies.push(...arrived.flatMap((a) => a.times.map((x) => x - t0)));
    missing += arrived.reduce((m, a) => m + a.missing, 0);
    await sleep(200); // ACKs settle before the next change
  }
  procs.forEach((c) => c.send({ cmd: 'exit' }));
  for (const s of [core, ...edges]) s.proc.send({ cmd: 'exit' });
  await Promise.all([core.proc, ...edges.map((e) => e.proc), ...procs].map((x) => x.exited()));
  const sorted = latencies.sort((a, b) => a - b);
  const p99 = pct(sorted, 99);
  const line = `${label.padEnd(9)} N=${o.clients} S=${o.services}: per-client p50 ${f1(pct(sorted, 50))} ms, p99 ${f1(p99)} ms, max ${f1(sorted.at(-1) ?? NaN)} ms; connect+sync ${(connectMs / 1000).toFixed(1)} s; missing ${missing}`;
  console.log(line);
  return { p99, line };
}

export async function fanoutBench(o: FanoutBenchOptions): Promise<void> {
  console.log(
    `bench/xds --fanout: N=${o.clients} clients in ${o.procs}+ processes, S=${o.services} services, ${o.rounds} changes; hub flags: ${o.hubArgs || '(defaults)'}; node ${process.version}; load ${o.load()}`,
  );
  const direct = await run(o, 0);
  const one = await run(o, 1);
  const two = await run(o, 2);
  console.log(`load average after: ${o.load()} (2 cores; other work on the machine skews every figure)`);
  console.log(
    `fanout/direct: p99 ${(one.p99 / direct.p99).toFixed(2)}× (target ≤ 1.3×); fanout×2/direct: p99 ${(two.p99 / direct.p99).toFixed(2)}×`,
  );
}
