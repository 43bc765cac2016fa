// Redis bench: acknowledged writes/s through HTTP with one and with two hubs
// taking writes on one Redis log, with and without --redis-wait-replicas 1, and
// the apply lag on the other hub (from a write's acknowledgement on its hub to the
// moment a read on the other hub returns it).
//
// Real processes: a redis-server primary (AOF, fsync as --fsync says) and a
// replica (present in every case, so WAIT is the only difference), two
// `xdshub serve --store redis://…` hubs, and a load generator in its own process
// (keep-alive clients, each sending its next registration when the previous one is
// answered). With "1 hub" the second hub takes no writes and only serves the lag
// probes. A baseline row first: one hub on the memory log, the same HTTP path
// without Redis. Before each Redis case, the same case on bare processes
// (bench/redis/bare-hub.ts: fastify, one Lua append per batch, its own tail, no
// catalog, views or xDS): the limit of this machine and these libraries for that
// case, measured in the same run. A probe is a blocking read on the other hub
// (`GET /v1/catalog/node/<name>?index=<ack index - 1>`), which answers as soon as
// that hub has applied the write; one write in `--sample` is probed.
//
//   node --import tsx bench/redis.ts [--seconds 10] [--concurrency 64] [--fsync always|everysec] [--sample 10] [--only "2 hubs"|baseline|bare] [--no-bare] [--cpu-prof DIR] [--hub-node-args="FLAGS"]
//
// --only TEXT: only the cases whose name contains TEXT. --no-bare: leave out the bare rows.
//
// --cpu-prof DIR: each hub process runs under `node --cpu-prof` and writes its profile into DIR.
// --hub-node-args=FLAGS: node flags for each hub process (space-separated, e.g. --hub-node-args=--max-semi-space-size=32;
// with the "=", as the value starts with a dash).
//
// Targets (issue 11): >= 5,000 acknowledged writes/s per hub; p99 apply lag on the other hub <= 50 ms.

import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Redis from 'ioredis';
import { type SpawnedHub, spawnHub, spawnServer } from '../test/helpers/hub';
import { spawnTracked } from '../test/helpers/procs';
import { type RunningRedis, startRedis } from '../test/helpers/redis';
import { tmpDir } from '../test/helpers/tmp';

interface LoadSpec {
  /** HTTP ports of the hubs taking writes; client i writes to writers[i % n]. */
  writers: number[];
  /** For each writer, the HTTP port of the hub its writes are probed on. */
  observers: number[];
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  sampleEvery: number;
  tag: string;
}

interface LoadResult {
  acked: number[];
  failures: number;
  latenciesMs: number[];
  lagsMs: number[];
  probesMissed: number;
  probeAsks: number;
  failureSample: string;
  missSample: string;
}

/**
 * The load generator (plain JavaScript, its own process so its CPU is not the hubs').
 * Keep-alive connections through undici's Pool: half the client CPU per request of
 * node:http (~30 against ~60 µs on this machine), CPU the hubs share the cores with.
 */
const LOAD_WORKER = `
const { Pool } = require('undici');
const spec = JSON.parse(process.env.XDSHUB_BENCH_SPEC);
const pools = new Map();
function pool(port, connections) {
  const key = port + '/' + connections;
  if (!pools.has(key)) pools.set(key, new Pool('http://127.0.0.1:' + port, { connections, headersTimeout: 0, bodyTimeout: 0 }));
  return pools.get(key);
}
async function http(port, method, path, payload, connections) {
  const res = await pool(port, connections).request({ method, path, body: payload, headers: payload === undefined ? {} : { 'content-type': 'application/json' } });
  return { status: res.statusCode, index: Number(res.headers['x-consul-index'] || 0), body: await res.body.text() };
}
(async () => {
  const measureFrom = performance.now() + spec.warmupMs;
  const end = measureFrom + spec.durationMs;
  const acked = spec.writers.map(() => 0);
  const latencies = [], lags = [], probes = [];
  let failures = 0, probesMissed = 0, probeAsks = 0, failureSample = '', missSample = '';
  // Tells the parent when the measured window opens and when its writes end (it reads the hubs' CPU time then).
  setTimeout(() => process.stdout.write('measuring\\n'), spec.warmupMs);
  setTimeout(() => process.stdout.write('written\\n'), spec.warmupMs + spec.durationMs);
  await Promise.all(Array.from({ length: spec.concurrency }, async (_, client) => {
    const w = client % spec.writers.length;
    for (let n = 0; performance.now() < end; n++) {
      const node = spec.tag + '-' + client + '-' + n;
      const payload = JSON.stringify({ Node: node, Address: '10.0.0.1', Service: { Service: 'bench', ID: node, Port: 8080, Tags: ['b'] } });
      const t0 = performance.now();
      const res = await http(spec.writers[w], 'PUT', '/v1/catalog/register', payload, spec.concurrency);
      const t1 = performance.now();
      if (t0 < measureFrom) continue;
      if (res.status !== 200) { failures++; failureSample ||= res.status + ' ' + res.body.slice(0, 200); continue; }
      acked[w]++;
      latencies.push(t1 - t0);
      if (acked[w] % spec.sampleEvery !== 0) continue;
      // Answers once the other hub's index passes ack - 1; a missing node's index is that
      // of every node change, so an answer without the node asks again from its index,
      // for up to 30 s (then the probe counts as missed).
      probes.push((async () => {
        let index = res.index - 1;
        const giveUp = performance.now() + 30000;
        while (performance.now() < giveUp) {
          probeAsks++;
          const p = await http(spec.observers[w], 'GET', '/v1/catalog/node/' + node + '?index=' + index + '&wait=10s', undefined, 256);
          if (p.status === 200 && p.body !== 'null') { lags.push(performance.now() - t1); return; }
          if (p.status !== 200) { missSample ||= p.status + ' ' + p.body.slice(0, 200); break; }
          if (p.index >= res.index) missSample ||= node + ' absent at index ' + p.index + ', past its acknowledged index ' + res.index;
          // Not there yet: the wait ended first. (A hub behind the write waits for an
          // index the shared log holds; an index from its future would read as a reset
          // and be answered at once.) Ask again from the index it gave, which waits for
          // its next change instead of asking in a loop.
          index = p.index;
        }
        probesMissed++;
      })().catch((err) => { probesMissed++; missSample ||= String(err); }));
    }
  }));
  await Promise.all(probes);
  await Promise.all([...pools.values()].map((p) => p.destroy()));
  process.stdout.write(JSON.stringify({ acked, failures, latenciesMs: latencies, lagsMs: lags, probesMissed, probeAsks, failureSample, missSample }) + '\\n');
})();
`;

/**
 * CPU time (user + system, ms) a process has used so far, from /proc (Linux); with
 * `mainThread`, only its main thread's (the JavaScript; not GC or libuv threads).
 */
function cpuMs(pid: number, mainThread = false): number {
  const stat = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line (11 and 12 after the name), in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The machine's CPU time so far, busy and total, in clock ticks summed over all cores (/proc/stat). */
function machineTicks(): { busy: number; total: number } {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).map(Number);
  const total = ticks.reduce((a, b) => a + b, 0);
  // idle and iowait are the 4th and 5th figures.
  return { busy: total - ticks[3]! - ticks[4]!, total };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Waits until the replica reports its link to the primary up (WAIT needs it). */
async function replicaInSync(replica: RunningRedis): Promise<void> {
  const client = new Redis(replica.url);
  try {
    for (let i = 0; i < 200; i++) {
      if (/master_link_status:up/.test(await client.info('replication'))) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the replica never caught up with the primary');
  } finally {
    client.disconnect();
  }
}

/** What serves a case: xdshub on the memory log (baseline), xdshub on Redis, or bare processes on Redis. */
type Kind = 'baseline' | 'hub' | 'bare';

const caseName = (writerHubs: number, waitReplicas: number, kind: Kind) =>
  kind === 'baseline'
    ? 'baseline: 1 hub, memory log'
    : `${kind === 'bare' ? 'bare: ' : ''}${writerHubs} hub${writerHubs > 1 ? 's' : ''} writing, ${waitReplicas ? 'WAIT 1' : 'no WAIT'}`;

/** A bare hub process (bench/redis/bare-hub.ts) on `redisUrl`, in the shape of a spawned xdshub. */
async function spawnBare(redisUrl: string, waitReplicas: number): Promise<SpawnedHub> {
  const argv = [
    '--import',
    'tsx',
    join(__dirname, 'redis', 'bare-hub.ts'),
    '--redis',
    redisUrl,
    '--wait-replicas',
    String(waitReplicas),
  ];
  const { match, ...spawned } = await spawnServer(
    process.execPath,
    argv,
    {},
    /^bare hub listening http=(\S+)/,
    'bare hub',
  );
  return { ...spawned, httpUrl: match[1]!, grpcAddress: '' };
}

/**
 * One case. `baseline`: the same HTTP path on one hub with the in-process memory log
 * (no Redis; the probes read the writing hub itself). `bare`: two bare processes
 * instead of the hubs, the limit the Redis rows compare with.
 */
async function scenario(
  writerHubs: 1 | 2,
  waitReplicas: 0 | 1,
  opts: { durationMs: number; concurrency: number; fsync: string; sampleEvery: number; nodeArgs: string[] },
  kind: Kind,
) {
  const baseline = kind === 'baseline';
  const dir = await tmpDir('xdshub-bench-redis');
  const primary = await startRedis({ appendonly: true, dir: dir.path });
  const replica = await startRedis({ replicaOf: primary.port });
  const hubs: SpawnedHub[] = [];
  try {
    if (opts.fsync !== 'always') {
      const admin = new Redis(primary.url);
      await admin.config('SET', 'appendfsync', opts.fsync);
      admin.disconnect();
    }
    await replicaInSync(replica);
    const args = [
      '--store',
      baseline ? 'memory' : primary.url,
      '--http-port',
      '0',
      '--grpc-port',
      '0',
      '--compact-every',
      '0',
      '--log-level',
      'warn',
    ];
    if (waitReplicas) args.push('--redis-wait-replicas', String(waitReplicas));
    for (const name of baseline ? ['bench-a'] : ['bench-a', 'bench-b']) {
      hubs.push(
        kind === 'bare'
          ? await spawnBare(primary.url, waitReplicas)
          : await spawnHub([...args, '--node-name', name], {}, { nodeArgs: opts.nodeArgs }),
      );
    }
    const ports = hubs.map((h) => Number(new URL(h.httpUrl).port));
    const writers = ports.slice(0, writerHubs);
    // Writes on a are probed on b, and (with two writing hubs) writes on b on a.
    const observers = writers.map((_, i) => ports[(i + 1) % ports.length]!);
    const spec: LoadSpec = {
      writers,
      observers,
      concurrency: opts.concurrency,
      warmupMs: 1_000,
      durationMs: opts.durationMs,
      sampleEvery: opts.sampleEvery,
      tag: `${kind}${writerHubs}r${waitReplicas}`,
    };
    // From the repository's root, where `require('undici')` finds the package.
    const child = spawnTracked(process.execPath, ['-e', LOAD_WORKER], {
      cwd: join(__dirname, '..'),
      env: { ...process.env, XDSHUB_BENCH_SPEC: JSON.stringify(spec) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    // The rest of the bench's processes: the load generator, the Redis primary and its replica.
    const others = [child.pid!, primary.pid, replica.pid];
    /** CPU so far (ms) of each hub, of each hub's main thread, of the other processes; the machine's ticks. */
    const snapshot = () => ({
      hubs: hubs.map((h) => cpuMs(h.child.pid!)),
      main: hubs.map((h) => cpuMs(h.child.pid!, true)),
      others: others.map((pid) => cpuMs(pid)),
      machine: machineTicks(),
    });
    let from: ReturnType<typeof snapshot> | undefined;
    let to: ReturnType<typeof snapshot> | undefined;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (!from && out.includes('measuring\n')) from = snapshot();
      if (!to && out.includes('written\n')) to = snapshot();
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    if (code !== 0) throw new Error(`load generator exited with ${code}`);
    const r = JSON.parse(out.slice(out.lastIndexOf('\n', out.length - 2) + 1)) as LoadResult;
    const seconds = opts.durationMs / 1000;
    const latencies = r.latenciesMs.sort((a, b) => a - b);
    const lags = r.lagsMs.sort((a, b) => a - b);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const total = sum(r.acked);
    /** µs of CPU per acknowledged write of each process between two snapshots, "a + b + …". */
    const perWrite = (a: number[], b: number[]) =>
      a.map((ms, i) => Math.round(((b[i]! - ms) * 1000) / Math.max(1, total))).join(' + ');
    return {
      case: caseName(writerHubs, waitReplicas, kind),
      'writes/s': Math.round(total / seconds),
      'writes/s per hub': r.acked.map((n) => Math.round(n / seconds)).join(' + '),
      'ack p50 ms': Number(percentile(latencies, 50).toFixed(1)),
      'ack p99 ms': Number(percentile(latencies, 99).toFixed(1)),
      failures: r.failures,
      'lag p50 ms': Number(percentile(lags, 50).toFixed(1)),
      'lag p99 ms': Number(percentile(lags, 99).toFixed(1)),
      'lag max ms': Number((lags[lags.length - 1] ?? NaN).toFixed(1)),
      probes: lags.length,
      'probes missed': r.probesMissed,
      // Requests per probe: 1 when the observing hub waits until it has the write; each extra one is an answer without it (the hub's CPU counts them).
      'asks per probe': Number((r.probeAsks / Math.max(1, lags.length + r.probesMissed)).toFixed(2)),
      // CPU of the hub processes (both, on Redis) per acknowledged write: moves much less with the machine's load than the rates do.
      'hubs CPU µs/write': from && to ? Math.round(((sum(to.hubs) - sum(from.hubs)) * 1000) / Math.max(1, total)) : NaN,
      // Each hub's main thread (JavaScript) per acknowledged write, hub a first: with one hub writing, the writer then the applier.
      'main thread µs/write': from && to ? perWrite(from.main, to.main) : '',
      // CPU per acknowledged write of the load generator, the Redis primary and its replica: what the hubs share the cores with.
      'load gen + primary + replica µs/write': from && to ? perWrite(from.others, to.others) : '',
      // How busy the whole machine was while writes were measured (every process, not only this bench's): near 100 % the cores are the limit.
      'machine busy %':
        from && to
          ? Math.round(
              (100 * (to.machine.busy - from.machine.busy)) / Math.max(1, to.machine.total - from.machine.total),
            )
          : NaN,
      ...(r.failureSample ? { 'first failure': r.failureSample } : {}),
      ...(r.missSample ? { 'first missed probe': r.missSample } : {}),
    };
  } finally {
    for (const h of hubs) await h.stop('SIGTERM');
    await replica.stop();
    await primary.stop();
    await dir.cleanup();
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '10' },
      concurrency: { type: 'string', default: '64' },
      fsync: { type: 'string', default: 'always' },
      sample: { type: 'string', default: '10' },
      only: { type: 'string' },
      'cpu-prof': { type: 'string' },
      'hub-node-args': { type: 'string' },
      'no-bare': { type: 'boolean', default: false },
    },
  });
  if (!['always', 'everysec', 'no'].includes(values.fsync!))
    throw new Error(`--fsync: expected always, everysec or no, got "${values.fsync}"`);
  const opts = {
    durationMs: Number(values.seconds) * 1000,
    concurrency: Number(values.concurrency),
    fsync: values.fsync!,
    sampleEvery: Number(values.sample),
    nodeArgs: [
      ...(values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', values['cpu-prof']] : []),
      ...(values['hub-node-args']?.split(' ').filter((a) => a !== '') ?? []),
    ],
  };
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  console.log(
    `bench/redis: ${values.seconds} s per case, ${opts.concurrency} HTTP writers, primary appendfsync ${opts.fsync}, one replica${opts.nodeArgs.length ? `, hubs run with ${opts.nodeArgs.join(' ')}` : ''}; load average ${load()}`,
  );
  const rows = [];
  const cases: [1 | 2, 0 | 1, Kind][] = [[1, 0, 'baseline']];
  // Each Redis case right after its bare limit, so both run in the same conditions.
  for (const [hubs, wait] of [
    [1, 0],
    [1, 1],
    [2, 0],
    [2, 1],
  ] as const) {
    if (!values['no-bare']) cases.push([hubs, wait, 'bare']);
    cases.push([hubs, wait, 'hub']);
  }
  for (const [hubs, wait, kind] of cases) {
    if (values.only && !caseName(hubs, wait, kind).includes(values.only)) continue;
    rows.push(await scenario(hubs, wait, opts, kind));
  }
  console.table(rows);
  console.log(
    `targets: >= 5,000 writes/s per hub; lag p99 <= 50 ms. "bare" rows: the limit for the case below them. load average at the end ${load()}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
