// bench/xds: how fast one endpoint change reaches N Envoy-like Delta ADS
// clients, and what it costs the server — for the hub and, in the same run,
// for a bare grpc-js server that writes one pre-encoded response to the same N
// streams (the limit in this runtime). Prints figures and targets; asserts nothing.
//
//   node --import tsx bench/xds.ts [--clients 1000] [--services 1000] [--procs 2] [--rounds 10]
//        [--mode peers|both|all|hub|hub-notrim|bare|bare-sync|gcp|<list: bare,hub,bare,hub>] [--settle-ms 500]
//        [--churn 1000] [--churn-seconds 10] [--churn-connections 32] ["--hub-args=--xds-debounce 50ms ..."] (with "=": a value that starts with -- is otherwise taken for a flag)
//        [--pin on|off] [--tsx]
//   node --import tsx bench/xds.ts --storm [--clients 5000] [--services 1]
//   node --import tsx bench/xds.ts --fanout [--clients 5000] [--services 100]   (bench/xds/fanout.ts)
//
// The hub is a real hub process (createHub, default flags unless --hub-args;
// its SQLite log on /dev/shm, so disk latency from other work stays out);
// its changes are catalog writes over its HTTP API and t0 is the moment the
// write's acknowledgement arrives. The bare server's t0 is when it starts
// writing. `bare-sync` is the bare server also sending each client one shared,
// pre-encoded initial CDS set and EDS set of S resources, as the hub must.
// `hub-notrim` is the hub with --memory-trim=false; `all` runs bare,
// bare-sync, hub-notrim and hub. `gcp` is go-control-plane v0.14 on its
// LinearCache (bench/xds/gcp, built by scripts/ensure-go-control-plane.sh),
// changed by a message to it as the bare server is; `peers` (the default) runs
// bare, hub and gcp, and prints the hub's CPU per change per client against
// both (process CPU by cpuUsage/getrusage, in microseconds, over every round,
// without the full GC the servers force for their RSS reading before the
// rounds; the Node servers' GC pauses by perf_hooks). A list of modes runs
// them in its order (alternated runs); a mode run more than once is summed up
// by its median run.
//
// After the change rounds the hub also takes `--churn` writes per second for
// `--churn-seconds` (0: skip): responses per stream per second and staleness
// (from each write's acknowledgement until a sampled client holds it). The
// bare server takes the same churn as changes told to it directly (no HTTP,
// no log): it folds the changes of one --xds-debounce window and writes one
// response carrying them all to every stream — the limit for the hub's
// staleness in the same run (its t0 is when the change is sent to it).
//
// --storm: every client connects at once; time until all hold their first full
// set, streams refused, RSS per client after the storm and the HTTP latency of
// reads during it — hub against bare-sync.
//
// Every process is separate: the server, and `procs` client processes holding
// N/procs clients each, every client on its own HTTP/2 connection, subscribed
// as Envoy does (wildcard CDS, then EDS by name for all S clusters). They run
// compiled (dist/, built once per run; --tsx: the sources under tsx), and with
// --pin on (the default with 2+ cores) the server on core 0 and the clients on
// the others. Besides the whole rounds' CPU, each server's CPU per change per
// client from just before the write until the last client holds it (#26's
// window) is printed; a Node server's line also splits main thread from
// helper threads and counts its full GCs (XDS_BENCH_SERVER_NODE_ARGS: node
// flags for the server alone, e.g. --trace-gc).

import { execFileSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseConfig } from '../src/config';
import { forkTracked as fork } from '../test/helpers/procs';
import { benchScript } from './xds/compiled';
import { fanoutBench } from './xds/fanout';
import { churn, type HubWriter, hubWriter, probe, summary } from './xds/hub-http';
import { killAll, Proc } from './xds/proc';
import {
  type ClientCommand,
  type ClientReply,
  cpuBetween,
  gcPauseBetween,
  type Mode,
  mainThreadBetween,
  now,
  pct,
  type ServerCommand,
  type ServerReply,
  type ServerStats,
} from './xds/protocol';

const { values } = parseArgs({
  options: {
    clients: { type: 'string' },
    services: { type: 'string' },
    procs: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '10' },
    // Rounds run first and not counted: both servers' code warm (JIT) before the measured ones.
    warmup: { type: 'string', default: '3' },
    mode: { type: 'string' },
    'bytes-check': { type: 'string', default: '10' },
    // Wait after the last client is in sync before the "connected" stats (GC'd in both servers at that moment).
    'settle-ms': { type: 'string', default: '500' },
    churn: { type: 'string', default: '1000' },
    'churn-seconds': { type: 'string', default: '10' },
    'churn-connections': { type: 'string', default: '32' },
    'hub-args': { type: 'string', default: '' },
    storm: { type: 'boolean', default: false },
    // Run the bench processes from the TypeScript sources under tsx instead of the compiled dist/ (bench/xds/compiled.ts).
    tsx: { type: 'boolean', default: process.env['XDS_BENCH_TSX'] === '1' },
    // on: the server on core 0, the clients on the others (how many clients one core carries; less noise); off: anywhere.
    pin: { type: 'string', default: availableParallelism() > 1 ? 'on' : 'off' },
    fanout: { type: 'boolean', default: false },
  },
});
const STORM = values.storm;
const N = Number(values.clients ?? (STORM ? 5000 : 1000));
const S = Number(values.services ?? (STORM ? 1 : 1000));
const P = Math.max(1, Number(values.procs));
const ROUNDS = Number(values.rounds);
const MODE = values.mode ?? (STORM ? 'storm' : 'peers');
// A list (`--mode bare,hub,bare,hub`) runs those modes in that order: alternated runs in one go.
const modes: Mode[] = MODE.includes(',')
  ? (MODE.split(',') as Mode[])
  : MODE === 'peers'
    ? ['bare', 'hub', 'gcp']
    : MODE === 'both'
      ? ['bare', 'hub']
      : MODE === 'storm'
        ? ['bare-sync', 'hub']
        : MODE === 'all'
          ? ['bare', 'bare-sync', 'hub-notrim', 'hub']
          : [MODE as Mode];
const HUB_ARGS = values['hub-args'];
const PIN = values.pin === 'on';
/** --pin: the cores of the server and of the client processes (taskset lists). */
const PIN_SERVER = '0';
const PIN_CLIENTS = `1-${Math.max(1, availableParallelism() - 1)}`;
const hubConfig = parseConfig(HUB_ARGS.split(/\s+/).filter(Boolean), {});
const EXEC = ['--expose-gc', '--max-old-space-size=4096'];
/** A bench process: compiled (bench/xds/compiled.ts) unless --tsx. */
const script = (file: string) => benchScript(join(__dirname, 'xds', file), values.tsx);
const f1 = (x: number) => x.toFixed(1);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Server = Proc<ServerCommand, ServerReply>;
type Clients = Proc<ClientCommand, ClientReply>;

interface Started {
  server: Server;
  port: number;
  httpUrl: string | undefined;
  before: ServerStats;
  procs: Clients[];
  /** Connect + initial sync, ms. */
  connectMs: number;
  connected: ServerStats;
  refusedByClients: number;
  failedByClients: number;
}

/** Starts the server, sets up S services, connects N clients (all at once for a storm) and waits until every one holds all S assignments. */
async function start(
  mode: Mode,
  n: number,
  s: number,
  storm: boolean,
  sample: number,
  during?: (httpUrl: string, synced: Promise<unknown>) => Promise<void>,
): Promise<Started> {
  const kind = mode.startsWith('hub') ? 'hub' : mode === 'gcp' ? 'gcp' : 'bare';
  if (kind === 'gcp') execFileSync('bash', [join(__dirname, '..', 'scripts', 'ensure-go-control-plane.sh')]);
  const srv = script(`${kind}-server.ts`);
  const env = {
    ...process.env,
    XDS_BENCH_BARE_SYNC: mode === 'bare-sync' ? '1' : '',
    XDS_BENCH_TRIM: mode === 'hub-notrim' ? '0' : '1',
    XDS_BENCH_HUB_ARGS: HUB_ARGS,
    XDS_BENCH_PIN_CPUS: PIN ? PIN_SERVER : '',
  };
  // XDS_BENCH_SERVER_NODE_ARGS: more node/V8 flags for the server only (e.g. --trace-gc-nvp), not the clients.
  const extra = (process.env['XDS_BENCH_SERVER_NODE_ARGS'] ?? '').split(/\s+/).filter(Boolean);
  const server: Server = new Proc(
    fork(srv.path, [], { execArgv: [...srv.execArgv, ...EXEC, ...extra], env }),
    `${mode}-server`,
  );
  const { port, httpUrl } = await server.next('listening');
  server.send({ cmd: 'setup', services: s });
  await server.next('setup-done');
  server.send({ cmd: 'stats', settle: true });
  const before = await server.next('stats');

  const per = Math.ceil(n / P);
  const procs: Clients[] = [];
  const c = script('clients.ts');
  for (let i = 0; i < P && i * per < n; i++)
    procs.push(
      new Proc(
        fork(c.path, [], {
          execArgv: [...c.execArgv, ...EXEC],
          env: { ...process.env, XDS_BENCH_PIN_CPUS: PIN ? PIN_CLIENTS : '' },
        }),
        `clients-${i}`,
      ),
    );
  // Forked processes take a while to load: the clock starts when all of them can connect at once.
  await Promise.all(procs.map((p) => p.next('loaded')));
  const t = now();
  procs.forEach((p, i) =>
    p.send({
      cmd: 'connect',
      mode,
      port,
      count: Math.min(per, n - i * per),
      offset: i * per,
      services: s,
      storm,
      sample,
    }),
  );
  // Connect + initial sync: every client gets S clusters and S assignments; allow ~0.5 s per client on a busy machine.
  const syncCapMs = Math.max(300_000, n * 500);
  const synced = Promise.all(
    procs.map((p, i) => p.next('ready', (r) => r.count === Math.min(per, n - i * per), syncCapMs)),
  );
  const side = during && httpUrl ? during(httpUrl, synced) : Promise.resolve();
  const ready = await synced;
  await side;
  const connectMs = Math.max(...ready.map((r) => r.at)) - t;
  await sleep(Number(values['settle-ms'])); // let the last ACKs land
  server.send({ cmd: 'stats', settle: true });
  const connected = await server.next('stats');
  return {
    server,
    port,
    httpUrl,
    before,
    procs,
    connectMs,
    connected,
    refusedByClients: ready.reduce((a, r) => a + r.refused, 0),
    failedByClients: ready.reduce((a, r) => a + r.failed, 0),
  };
}

async function stop(run: Started): Promise<void> {
  run.procs.forEach((p) => p.send({ cmd: 'exit' }));
  run.server.send({ cmd: 'exit' });
  await Promise.all([run.server, ...run.procs].map((p) => p.exited()));
}

const perClient = (run: Started, n: number, key: 'rss' | 'heapUsed' | 'heapTotal' | 'external' | 'arrayBuffers') =>
  ((run.connected[key] ?? 0) - (run.before[key] ?? 0)) / n / 1024;

interface Figures {
  mode: Mode;
  p50: number;
  p99: number;
  allP50: number;
  allMax: number;
  bytesPerClient: number;
  cpuMsPerChange: number;
  cpuUsPerClient: number;
  /** GC pause per change per client, µs (Node servers). */
  gcUsPerClient: number | undefined;
  /** Of cpuUsPerClient, the main thread's (Node servers on Linux); the rest is helper threads (GC, compiler). */
  mainUsPerClient: number | undefined;
  /** Server CPU per change per client from just before the write until the last client holds it (#26's window). */
  windowUsPerClient: number;
  rssPerClientKiB: number;
  connectMs: number;
  line: string;
}

/** One endpoint change per round, to every client. */
async function rounds(mode: Mode, n: number, s: number, count: number): Promise<Figures> {
  const run = await start(mode, n, s, false, Number(values.churn) > 0 ? 25 : 0);
  const writer = run.httpUrl ? hubWriter(run.httpUrl, Number(values['churn-connections'])) : undefined;
  const latencies: number[] = [];
  const allTimes: number[] = [];
  const bytes: number[] = [];
  let missing = 0;
  let windowUs = 0;
  const warmup = Number(values.warmup);
  let base = run.connected;
  for (let r = -warmup; r < count; r++) {
    if (r === 0) {
      // The measured rounds begin: their baseline, taken after the warm-up rounds.
      run.server.send({ cmd: 'rounds-start' });
      base = await run.server.next('stats');
      windowUs = 0;
    }
    const service = ((r + warmup) * 7919) % s;
    run.procs.forEach((p) => p.send({ cmd: 'arm', name: `svc-${service}`, round: r }));
    await Promise.all(run.procs.map((p) => p.next('armed', (a) => a.round === r)));
    const arrivals = Promise.all(run.procs.map((p) => p.next('arrived', (a) => a.round === r)));
    const before = await cpuMark(run.server);
    let t0: number;
    if (writer) t0 = (await writer.change(service)).at;
    else {
      run.server.send({ cmd: 'change', service, round: r });
      t0 = (await run.server.next('changed', (c) => c.round === r)).t0;
    }
    const arrived = await arrivals;
    windowUs += (await cpuMark(run.server)) - before;
    if (r < 0) {
      await sleep(200);
      continue;
    }
    const lat = arrived.flatMap((a) => a.times.map((x) => x - t0));
    latencies.push(...lat);
    allTimes.push(Math.max(...lat));
    bytes.push(...arrived.flatMap((a) => a.bytes));
    missing += arrived.reduce((m, a) => m + a.missing, 0);
    await sleep(200); // ACKs settle before the next change
  }
  run.server.send({ cmd: 'stats' });
  const end = await run.server.next('stats');
  if (Number(values.churn) > 0 && mode !== 'gcp') await churnPhase(mode, run, writer ?? bareWriter(run.server), s);
  writer?.close();
  await stop(run);
  const sorted = latencies.sort((a, b) => a - b);
  const allSorted = allTimes.sort((a, b) => a - b);
  // Without the full GC the "connected" reading forced (for its RSS): a large heap's collection is not a round's cost.
  const cpuUs = cpuBetween(base, end);
  const gcMs = gcPauseBetween(base, end);
  const mainUs = mainThreadBetween(base, end);
  const f: Figures = {
    mode,
    p50: pct(sorted, 50),
    p99: pct(sorted, 99),
    allP50: pct(allSorted, 50),
    allMax: allSorted.at(-1) ?? NaN,
    bytesPerClient: bytes.reduce((a, b) => a + b, 0) / Math.max(1, bytes.length),
    // Includes the 200 ms settle windows (ACK processing) of each round.
    cpuMsPerChange: cpuUs / 1000 / count,
    cpuUsPerClient: cpuUs / count / n,
    gcUsPerClient: gcMs === undefined ? undefined : (gcMs * 1000) / count / n,
    mainUsPerClient: mainUs === undefined ? undefined : mainUs / count / n,
    windowUsPerClient: windowUs / count / n,
    rssPerClientKiB: perClient(run, n, 'rss'),
    connectMs: run.connectMs,
    line: '',
  };
  f.line =
    `${mode.padEnd(10)} N=${n} S=${s}: per-client p50 ${f1(f.p50)} ms, p99 ${f1(f.p99)} ms; all-N median ${f1(f.allP50)} ms, max ${f1(f.allMax)} ms; ` +
    `${f1(f.bytesPerClient)} B/client/change; server CPU ${f1(f.cpuMsPerChange)} ms/change (${f1(cpuUs / count / n)} µs/client` +
    (f.mainUsPerClient === undefined ? '' : `, of it main thread ${f1(f.mainUsPerClient)} µs`) +
    (f.gcUsPerClient === undefined ? '' : `, GC pauses ${f1(f.gcUsPerClient)} µs`) +
    (end.majorGcs === undefined ? '' : `, ${end.majorGcs - (base.majorGcs ?? 0)} full GCs in the rounds`) +
    `); from the write until all hold it ${f1(f.windowUsPerClient)} µs/client; ` +
    `RSS ${f1(f.rssPerClientKiB)} KiB/client (heap ${f1(perClient(run, n, 'heapUsed'))}${run.connected.heapTotal === undefined ? '' : ` of ${f1(perClient(run, n, 'heapTotal'))} committed`}, external ${f1(perClient(run, n, 'external'))}, of it buffers ${f1(perClient(run, n, 'arrayBuffers'))}); ` +
    `connect+sync ${(run.connectMs / 1000).toFixed(1)} s; missing ${missing}; streams refused ${run.connected.refused ?? run.refusedByClients}` +
    (end.steps && base.steps
      ? `; rule steps in the rounds: ${end.steps.hits - base.steps.hits} from the class, ${end.steps.misses - base.steps.misses} computed`
      : '') +
    (run.connected.trim
      ? `; malloc_trim ${run.connected.trim.trims}× before the RSS reading (last ${f1(run.connected.trim.lastDurationMs)} ms), released ${f1(run.connected.trim.releasedBytes / 1048576)} MiB`
      : '');
  console.log(f.line);
  return f;
}

let marks = 0;
/** The server's CPU time now (µs), asked by message: before a round's write, and once its last client holds it. */
async function cpuMark(server: Server): Promise<number> {
  const id = ++marks;
  server.send({ cmd: 'cpu-mark', id });
  return (await server.next('cpu-mark', (m) => m.id === id)).cpuUs;
}

/** Staleness p99 of each mode's churn phase (hub against bare). */
const churnStaleP99 = new Map<Mode, number>();

/** The bare server's churn: each change told to it directly; t0 when it is sent. */
function bareWriter(server: Server): HubWriter {
  const ports = new Map<number, number>();
  return {
    warm: async () => {},
    async change(i) {
      const port = (ports.get(i) ?? 8080) + 1;
      ports.set(i, port);
      const at = now();
      server.send({ cmd: 'churn-change', service: i, port, windowMs: hubConfig.xdsDebounceMs });
      return { name: `svc-${i}`, port, at };
    },
    close: () => {},
  };
}

/** `--churn` writes per second (the hub: through its HTTP API) while every client is connected. */
async function churnPhase(mode: Mode, run: Started, writer: HubWriter, s: number): Promise<void> {
  const rate = Number(values.churn);
  await writer.warm();
  run.procs.forEach((p) => p.send({ cmd: 'churn-start' }));
  const result = await churn(writer, s, rate, Number(values['churn-seconds']));
  run.procs.forEach((p) => p.send({ cmd: 'churn-writes-done' }));
  await sleep(hubConfig.xdsMaxDelayMs + 2_000); // the last writes reach everyone
  run.procs.forEach((p) => p.send({ cmd: 'churn-stop', changes: result.changes }));
  const replies = await Promise.all(run.procs.map((p) => p.next('churned')));
  const pushRates = replies.flatMap((r) => r.pushes.map((x) => x / result.seconds)).sort((a, b) => a - b);
  const stale = replies.flatMap((r) => r.staleness).sort((a, b) => a - b);
  const undelivered = replies.reduce((a, r) => a + r.undelivered, 0);
  const bound = 1000 / hubConfig.xdsDebounceMs;
  churnStaleP99.set(mode, pct(stale, 99));
  console.log(
    `${mode} churn: ${result.changes.length} writes in ${f1(result.seconds)} s (${f1(result.changes.length / result.seconds)}/s asked ${rate}/s); ${mode.startsWith('hub') ? 'HTTP write' : 'change sent (no HTTP)'} ${summary(result.latencies)}; ` +
      `responses per stream per second p50 ${f1(pct(pushRates, 50))}, p99 ${f1(pct(pushRates, 99))}, max ${f1(pushRates.at(-1) ?? NaN)} (target ≤ 1/window = ${f1(bound)}); ` +
      `staleness (sampled clients) ${summary(stale)} (target p99 ≤ max delay ${hubConfig.xdsMaxDelayMs} ms); never delivered ${undelivered}`,
  );
}

/** Every client connects at once; the hub's HTTP API is read throughout. */
async function storm(
  mode: Mode,
  n: number,
  s: number,
): Promise<{ mode: Mode; ms: number; rss: number; refused: number }> {
  let http = '';
  const run = await start(mode, n, s, true, 0, async (httpUrl, synced) => {
    const r = await probe(httpUrl, '/v1/health/service/svc-0', synced);
    http = `; HTTP GET /v1/health/service during the storm: ${summary(r.latencies)}, ${r.failures} failed`;
  });
  const refused = run.connected.refused ?? run.refusedByClients;
  const rss = perClient(run, n, 'rss');
  console.log(
    `${mode.padEnd(10)} storm N=${n} S=${s}: all hold their first full set after ${(run.connectMs / 1000).toFixed(2)} s; streams refused ${refused} ` +
      `(clients saw ${run.refusedByClients} refused, ${run.failedByClients} other failures); RSS ${f1(rss)} KiB/client (heap ${f1(perClient(run, n, 'heapUsed'))})${http}`,
  );
  await stop(run);
  return { mode, ms: run.connectMs, rss, refused };
}

async function main() {
  const load = () =>
    loadavg()
      .map((x) => x.toFixed(1))
      .join(' ');
  if (values.fanout)
    return fanoutBench({
      clients: N,
      services: S,
      procs: P,
      rounds: ROUNDS,
      hubArgs: HUB_ARGS,
      execArgv: ['--import', 'tsx', ...EXEC],
      load,
    });
  console.log(
    `bench/xds${STORM ? ' --storm' : ''}: N=${N} clients in ${P} processes, S=${S} services; hub flags: ${HUB_ARGS || '(defaults)'}; ` +
      `${PIN ? `server on core ${PIN_SERVER}, clients on ${PIN_CLIENTS}` : 'not pinned'}; node ${process.version}; load ${load()}`,
  );
  if (STORM) {
    const results = [];
    for (const mode of modes) results.push(await storm(mode, N, S));
    console.log(`load average after: ${load()} (2 cores; other work on the machine skews every figure)`);
    const hub = results.find((r) => r.mode === 'hub');
    const bare = results.find((r) => r.mode === 'bare-sync') ?? results.find((r) => r.mode === 'bare');
    if (hub && bare) {
      console.log(
        `storm hub/${bare.mode}: time to first full set ${(hub.ms / bare.ms).toFixed(2)}× (target ≤ 1.3×), streams refused ${hub.refused} (target 0), RSS/client ${(hub.rss / bare.rss).toFixed(2)}× (target ≤ 1.1×)`,
      );
    }
    return;
  }
  const runs: Figures[] = [];
  for (const mode of modes) {
    runs.push(await rounds(mode, N, S, ROUNDS));
    console.log(`load average: ${load()}`);
  }
  console.log(`load average after: ${load()} (2 cores; other work on the machine skews every figure)`);
  // A mode run more than once is summed up by its run with the median CPU per client.
  const results = [...new Set(runs.map((r) => r.mode))].map((mode) => {
    const of = runs.filter((r) => r.mode === mode).sort((a, b) => a.cpuUsPerClient - b.cpuUsPerClient);
    if (of.length > 1)
      console.log(
        `${mode}: µs/client/change over ${of.length} runs: ${of.map((r) => f1(r.cpuUsPerClient)).join(', ')}`,
      );
    return of[Math.floor((of.length - 1) / 2)]!;
  });
  const hub = results.find((r) => r.mode === 'hub');
  const bare = results.find((r) => r.mode === 'bare');
  if (hub && bare) {
    console.log(
      `hub/bare: p99 ${(hub.p99 / bare.p99).toFixed(2)}× (target ≤ 1.2×), until all N hold it: median ${(hub.allP50 / bare.allP50).toFixed(2)}×, slowest round ${(hub.allMax / bare.allMax).toFixed(2)}×; RSS/client ${(hub.rssPerClientKiB / bare.rssPerClientKiB).toFixed(2)}×`,
    );
  }
  const gcp = results.find((r) => r.mode === 'gcp');
  if (hub && (bare || gcp)) {
    const vs = (o: Figures | undefined, target: string) =>
      o
        ? `${(hub.cpuUsPerClient / o.cpuUsPerClient).toFixed(2)}× ${o.mode} (${f1(o.cpuUsPerClient)} µs; target ${target})`
        : '';
    console.log(
      `server CPU per change per client: hub ${f1(hub.cpuUsPerClient)} µs = ${[vs(bare, '≤ 1.2×'), vs(gcp, '≤ 0.8×')].filter(Boolean).join(', ')}`,
    );
    const inWindow = (o: Figures | undefined) =>
      o ? `${(hub.windowUsPerClient / o.windowUsPerClient).toFixed(2)}× ${o.mode} (${f1(o.windowUsPerClient)} µs)` : '';
    console.log(
      `  from the write until all hold it: hub ${f1(hub.windowUsPerClient)} µs = ${[inWindow(bare), inWindow(gcp)].filter(Boolean).join(', ')}`,
    );
  }
  if (hub && gcp)
    console.log(
      `hub/gcp: p99 ${(hub.p99 / gcp.p99).toFixed(2)}×, RSS/client ${(hub.rssPerClientKiB / gcp.rssPerClientKiB).toFixed(2)}×`,
    );
  const hubStale = churnStaleP99.get('hub');
  const bareStale = churnStaleP99.get('bare');
  if (hubStale !== undefined && bareStale !== undefined)
    console.log(
      `churn staleness p99 hub/bare: ${(hubStale / bareStale).toFixed(2)}× (${f1(hubStale)} vs ${f1(bareStale)} ms)`,
    );
  const noTrim = results.find((r) => r.mode === 'hub-notrim');
  if (noTrim && bare)
    console.log(
      `hub-notrim/bare: p99 ${(noTrim.p99 / bare.p99).toFixed(2)}×, RSS/client ${(noTrim.rssPerClientKiB / bare.rssPerClientKiB).toFixed(2)}×`,
    );
  const bareSync = results.find((r) => r.mode === 'bare-sync');
  if (hub && bareSync)
    console.log(
      `hub/bare-sync (both send the initial sets): p99 ${(hub.p99 / bareSync.p99).toFixed(2)}×, RSS/client ${(hub.rssPerClientKiB / bareSync.rssPerClientKiB).toFixed(2)}×`,
    );
  const small = Number(values['bytes-check']);
  if (hub && small > 0 && small !== S) {
    const saved = values.churn;
    values.churn = '0';
    const r = await rounds('hub', Math.min(N, 100), small, 3);
    values.churn = saved;
    console.log(
      `delta bytes, one endpoint change: S=${small}: ${f1(r.bytesPerClient)} B/client; S=${S}: ${f1(hub.bytesPerClient)} B/client`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  killAll();
  process.exit(1);
});
