// bench/xds: how fast one endpoint change reaches N Envoy-like Delta ADS
// clients, and what it costs the server — for the hub and, in the same run,
// for a bare grpc-js server that writes one pre-encoded response to the same N
// streams (the limit in this runtime). Prints figures; asserts nothing.
// `bare-sync` is that bare server also sending each client one shared,
// pre-encoded initial CDS set and EDS set of S resources, as the hub must
// (plain `bare` never sends an initial set, so its clients never subscribe to EDS).
//
//   node --import tsx bench/xds.ts [--clients 1000] [--services 1000] [--procs 2] [--rounds 10] [--mode both|all|hub|hub-notrim|bare|bare-sync] [--settle-ms 500]
//
// `hub-notrim` is the hub with --memory-trim=false; `all` runs bare, bare-sync, hub-notrim and hub.
//
// Every process is separate: the server, and `procs` client processes holding
// N/procs clients each, every client on its own HTTP/2 connection, subscribed
// as Envoy does (wildcard CDS, then EDS by name for all S clusters).
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { pct, type ClientCommand, type ClientReply, type Mode, type ServerCommand, type ServerReply } from './xds/protocol';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '1000' },
    services: { type: 'string', default: '1000' },
    procs: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '10' },
    mode: { type: 'string', default: 'both' },
    'bytes-check': { type: 'string', default: '10' },
    // Wait after the last client is in sync before the "connected" stats (GC'd in both servers at that moment).
    'settle-ms': { type: 'string', default: '500' },
  },
});
const N = Number(values.clients);
const S = Number(values.services);
const P = Math.max(1, Number(values.procs));
const ROUNDS = Number(values.rounds);
const modes: Mode[] = values.mode === 'both' ? ['bare', 'hub'] : values.mode === 'all' ? ['bare', 'bare-sync', 'hub-notrim', 'hub'] : [values.mode as Mode];

const EXEC = ['--import', 'tsx', '--expose-gc', '--max-old-space-size=4096'];

/** A child with a typed request/reply helper over IPC. */
class Proc<Cmd, Reply extends { kind: string }> {
  private readonly queue: Reply[] = [];
  private readonly waiters: { pred: (r: Reply) => boolean; resolve: (r: Reply) => void }[] = [];
  constructor(readonly child: ChildProcess, readonly label: string) {
    child.on('message', (m: Reply) => {
      if ((m as { kind: string }).kind === 'error') console.error(`${label}: ${(m as unknown as { message: string }).message}`);
      const i = this.waiters.findIndex((w) => w.pred(m));
      if (i >= 0) this.waiters.splice(i, 1)[0]!.resolve(m);
      else this.queue.push(m);
    });
    child.on('exit', (code) => {
      if (code) console.error(`${label} exited with ${code}`);
    });
  }
  send(c: Cmd) {
    this.child.send(c as object);
  }
  next<K extends Reply['kind']>(kind: K, pred: (r: Extract<Reply, { kind: K }>) => boolean = () => true, capMs = 300_000): Promise<Extract<Reply, { kind: K }>> {
    const match = (r: Reply) => r.kind === kind && pred(r as Extract<Reply, { kind: K }>);
    const i = this.queue.findIndex(match);
    if (i >= 0) return Promise.resolve(this.queue.splice(i, 1)[0] as Extract<Reply, { kind: K }>);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.label}: no ${kind} within ${capMs} ms`)), capMs);
      this.waiters.push({ pred: match, resolve: (r) => (clearTimeout(timer), resolve(r as Extract<Reply, { kind: K }>)) });
    });
  }
}

interface Figures {
  mode: Mode;
  n: number;
  s: number;
  p50: number;
  p99: number;
  allP50: number;
  allMax: number;
  bytesPerClient: number;
  cpuMsPerChange: number;
  cpuUsPerClientPerChange: number;
  rssPerClientKiB: number;
  heapPerClientKiB: number;
  /** Memory V8 is told about outside its heap: Buffers (of which `arrayBuffers`) and, e.g., nghttp2 session memory. */
  externalPerClientKiB: number;
  arrayBuffersPerClientKiB: number;
  missing: number;
  connectMs: number;
  /** The hub's malloc_trim calls up to the "connected" stats, and what they gave back. */
  trim?: { trims: number; lastDurationMs: number; releasedBytes: number };
}

async function run(mode: Mode, n: number, s: number, rounds: number): Promise<Figures> {
  const server = new Proc<ServerCommand, ServerReply>(track(fork(join(__dirname, 'xds', `${mode.startsWith('hub') ? 'hub' : 'bare'}-server.ts`), [], { execArgv: EXEC, env: { ...process.env, XDS_BENCH_BARE_SYNC: mode === 'bare-sync' ? '1' : '', XDS_BENCH_TRIM: mode === 'hub-notrim' ? '0' : '1' } })), `${mode}-server`);
  const { port } = await server.next('listening');
  server.send({ cmd: 'setup', services: s });
  await server.next('setup-done');
  server.send({ cmd: 'stats' });
  const before = await server.next('stats');

  const procs: Proc<ClientCommand, ClientReply>[] = [];
  const per = Math.ceil(n / P);
  const t = performance.now();
  for (let i = 0; i < P; i++) {
    const count = Math.min(per, n - i * per);
    if (count <= 0) break;
    const p = new Proc<ClientCommand, ClientReply>(track(fork(join(__dirname, 'xds', 'clients.ts'), [], { execArgv: EXEC })), `clients-${i}`);
    p.send({ cmd: 'connect', mode, port, count, offset: i * per, services: s });
    procs.push(p);
  }
  // Connect + initial sync: every client gets S clusters and S assignments; allow ~0.5 s per client on a busy machine.
  const syncCapMs = Math.max(300_000, n * 500);
  await Promise.all(procs.map((p, i) => p.next('ready', (r) => r.count === Math.min(per, n - i * per), syncCapMs)));
  const connectMs = performance.now() - t;
  await new Promise((r) => setTimeout(r, Number(values['settle-ms']))); // let the last ACKs land
  server.send({ cmd: 'stats' });
  const connected = await server.next('stats');

  const latencies: number[] = [];
  const allTimes: number[] = [];
  const bytes: number[] = [];
  let missing = 0;
  for (let r = 0; r < rounds; r++) {
    const service = (r * 7919) % s;
    procs.forEach((p) => p.send({ cmd: 'arm', name: `svc-${service}`, round: r }));
    await Promise.all(procs.map((p) => p.next('armed', (a) => a.round === r)));
    server.send({ cmd: 'change', service, round: r });
    const [changed, ...arrived] = await Promise.all([server.next('changed', (c) => c.round === r), ...procs.map((p) => p.next('arrived', (a) => a.round === r))]);
    const lat = arrived.flatMap((a) => a.times.map((x) => x - changed.t0));
    latencies.push(...lat);
    allTimes.push(Math.max(...lat));
    bytes.push(...arrived.flatMap((a) => a.bytes));
    missing += arrived.reduce((m, a) => m + a.missing, 0);
    await new Promise((res) => setTimeout(res, 200)); // ACKs settle before the next change
  }
  server.send({ cmd: 'stats' });
  const end = await server.next('stats');
  procs.forEach((p) => p.send({ cmd: 'exit' }));
  server.send({ cmd: 'exit' });
  await Promise.all([server, ...procs].map((p) => new Promise((res) => (p.child.exitCode !== null ? res(null) : p.child.once('exit', res)))));

  const sorted = latencies.sort((a, b) => a - b);
  const allSorted = allTimes.sort((a, b) => a - b);
  const cpuUs = end.cpuUserUs + end.cpuSystemUs - (connected.cpuUserUs + connected.cpuSystemUs);
  return {
    mode,
    n,
    s,
    p50: pct(sorted, 50),
    p99: pct(sorted, 99),
    allP50: pct(allSorted, 50),
    allMax: allSorted.at(-1) ?? NaN,
    bytesPerClient: bytes.reduce((a, b) => a + b, 0) / Math.max(1, bytes.length),
    // Includes the 200 ms settle windows (ACK processing) of each round.
    cpuMsPerChange: cpuUs / 1000 / rounds,
    cpuUsPerClientPerChange: cpuUs / rounds / n,
    rssPerClientKiB: (connected.rss - before.rss) / n / 1024,
    heapPerClientKiB: (connected.heapUsed - before.heapUsed) / n / 1024,
    externalPerClientKiB: (connected.external - before.external) / n / 1024,
    arrayBuffersPerClientKiB: (connected.arrayBuffers - before.arrayBuffers) / n / 1024,
    missing,
    connectMs,
    ...(connected.trim ? { trim: connected.trim } : {}),
  };
}

const f1 = (x: number) => x.toFixed(1);

async function main() {
  const load = () => loadavg().map((x) => x.toFixed(1)).join(' ');
  console.log(`bench/xds: N=${N} clients in ${P} processes, S=${S} services, ${ROUNDS} changes; node ${process.version}; load ${load()}`);
  const results: Figures[] = [];
  for (const mode of modes) {
    const r = await run(mode, N, S, ROUNDS);
    results.push(r);
    console.log(
      `${mode.padEnd(4)} N=${r.n} S=${r.s}: per-client p50 ${f1(r.p50)} ms, p99 ${f1(r.p99)} ms; all-N median ${f1(r.allP50)} ms, max ${f1(r.allMax)} ms; ` +
        `${f1(r.bytesPerClient)} B/client/change; server CPU ${f1(r.cpuMsPerChange)} ms/change (${f1(r.cpuUsPerClientPerChange)} µs/client); ` +
        `RSS ${f1(r.rssPerClientKiB)} KiB/client (heap ${f1(r.heapPerClientKiB)}, external ${f1(r.externalPerClientKiB)}, of it buffers ${f1(r.arrayBuffersPerClientKiB)}); connect+sync ${(r.connectMs / 1000).toFixed(1)} s; missing ${r.missing}` +
        (r.trim ? `; malloc_trim ${r.trim.trims}× before the RSS reading (last ${f1(r.trim.lastDurationMs)} ms), released ${f1(r.trim.releasedBytes / 1048576)} MiB` : ''),
    );
  }
  console.log(`load average after: ${load()} (2 cores; other work on the machine skews every figure)`);
  const hub = results.find((r) => r.mode === 'hub');
  const bare = results.find((r) => r.mode === 'bare');
  if (hub && bare) {
    console.log(`hub/bare: p99 ${(hub.p99 / bare.p99).toFixed(2)}× (target ≤ 1.5×), RSS/client ${(hub.rssPerClientKiB / bare.rssPerClientKiB).toFixed(2)}× (target ≤ 1.25×)`);
  }
  const noTrim = results.find((r) => r.mode === 'hub-notrim');
  if (noTrim && bare) console.log(`hub-notrim/bare: p99 ${(noTrim.p99 / bare.p99).toFixed(2)}×, RSS/client ${(noTrim.rssPerClientKiB / bare.rssPerClientKiB).toFixed(2)}×`);
  const bareSync = results.find((r) => r.mode === 'bare-sync');
  if (hub && bareSync) {
    console.log(`hub/bare-sync (both send the initial sets): p99 ${(hub.p99 / bareSync.p99).toFixed(2)}×, RSS/client ${(hub.rssPerClientKiB / bareSync.rssPerClientKiB).toFixed(2)}×`);
  }
  const small = Number(values['bytes-check']);
  if (hub && small > 0 && small !== S) {
    const r = await run('hub', Math.min(N, 100), small, 3);
    console.log(`delta bytes, one endpoint change: S=${small}: ${f1(r.bytesPerClient)} B/client; S=${S}: ${f1(hub.bytesPerClient)} B/client`);
  }
}

const children = new Set<ChildProcess>();
function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

main().catch((err) => {
  console.error(err);
  // Leave no server or client processes behind.
  for (const c of children) c.kill('SIGKILL');
  process.exit(1);
});
