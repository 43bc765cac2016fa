// Stream flood bench: one gRPC connection opens 10,000 streams as fast as it
// can (Subscribe, or Delta ADS with --kind xds), past the per-connection bound
// (--grpc-max-streams-per-connection, 2,048 by default), while another client
// reads over HTTP and a third opens a normal xDS stream on its own connection.
// Printed: how the flood's streams ended (accepted, RESOURCE_EXHAUSTED, other),
// when the last of them was settled (accepted or refused), the HTTP GETs' p50,
// p99 and max latency during the flood (10 s timeout each), and how long the
// other xDS stream took to get its first response.
//
// Everything is a real process: an `xdshub serve` child (memory store), the
// flood in a child of its own (grpc-js, one channel), the GETs and the normal
// xDS stream here.
//
//   node --import tsx bench/stream-flood.ts [--streams 10000] [--kind subscribe|xds]
//     [--hub-args "..."] [--node-args="--cpu-prof --cpu-prof-dir=/tmp/prof"]

import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { loadSubscribeProto, SUBSCRIBE_METHOD_PATH } from '../src/subscribe/proto';
import { lookupType } from '../src/xds/transport/envoy-proto';
import { forkTracked, spawnTracked } from '../test/helpers/procs';

const DELTA_ADS = '/envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources';
const CDS = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';
const GET_TIMEOUT_MS = 10_000;
/** The flood is given this long to settle (every stream accepted or refused) before the figures are taken. */
const SETTLE_LIMIT_MS = 120_000;

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    streams: { type: 'string', default: '10000' },
    kind: { type: 'string', default: 'subscribe' },
    'hub-args': { type: 'string', default: '' },
    /** Node options for the hub process (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"). */
    'node-args': { type: 'string', default: '' },
  },
});

/** What a flood child reports. */
type FloodReport =
  | { kind: 'sent'; ms: number }
  | { kind: 'settled'; ms: number; accepted: number; ended: Record<string, number>; pending: number };

const deltaRequest = (node: string): Buffer => {
  const Req = lookupType('envoy.service.discovery.v3.DeltaDiscoveryRequest');
  const message = Req.fromObject({ node: { id: node, cluster: 'bench' }, typeUrl: CDS, resourceNamesSubscribe: ['*'] });
  return Buffer.from(Req.encode(message).finish());
};

/** Channel options for a connection of its own (grpc-js shares one between equal channels otherwise). */
const ownConnection = (name: string) => ({ 'grpc.use_local_subchannel_pool': 1, [name]: 1 }) as grpc.ChannelOptions;

/**
 * The flood (a child process): `count` streams on one channel. A stream is
 * settled when the hub accepts it (response headers: Subscribe sends them
 * once its subscription exists; xDS once its first response is written) or
 * ends it. Reports when every stream is settled, or at SETTLE_LIMIT_MS.
 */
function flood(address: string, count: number, kind: string): void {
  const report = (m: FloodReport) => process.send?.(m);
  const client = new grpc.Client(address, grpc.credentials.createInsecure(), ownConnection('bench.flood'));
  const subscribe = loadSubscribeProto().service.Subscribe!;
  const subscribeRequest = subscribe.requestSerialize({ Topic: 'ServiceHealth', NamedSubject: { Key: 'svc-1' } });
  const ended: Record<string, number> = {};
  let accepted = 0;
  let settled = 0;
  const started = performance.now();
  const done = () => {
    report({ kind: 'settled', ms: performance.now() - started, accepted, ended, pending: count - settled });
    process.exit(0);
  };
  const limit = setTimeout(done, SETTLE_LIMIT_MS);
  const settle = () => {
    if (++settled !== count) return;
    clearTimeout(limit);
    done();
  };
  for (let i = 0; i < count; i++) {
    let isSettled = false;
    const once = (what: () => void) => () => {
      if (isSettled) return;
      isSettled = true;
      what();
      settle();
    };
    let call: grpc.ClientReadableStream<Buffer> | grpc.ClientDuplexStream<Buffer, Buffer>;
    if (kind === 'xds') {
      const duplex = client.makeBidiStreamRequest(
        DELTA_ADS,
        (b: Buffer) => b,
        (b: Buffer) => b,
      );
      duplex.write(deltaRequest(`flood-${i}`));
      call = duplex;
    } else {
      const raw = (b: Buffer) => b;
      call = client.makeServerStreamRequest(SUBSCRIBE_METHOD_PATH, raw, raw, subscribeRequest);
    }
    call.on(
      'data',
      once(() => accepted++),
    );
    call.on(
      'metadata',
      once(() => accepted++),
    );
    call.on('error', () => undefined);
    call.on('status', (st: grpc.StatusObject) => {
      once(() => {
        const name = grpc.status[st.code] ?? String(st.code);
        ended[name] = (ended[name] ?? 0) + 1;
      })();
    });
  }
  report({ kind: 'sent', ms: performance.now() - started });
}

interface Hub {
  child: ChildProcess;
  http: number;
  grpc: string;
}

async function startHub(extra: string[]): Promise<Hub> {
  const root = join(__dirname, '..');
  const child = spawnTracked(
    process.execPath,
    [
      ...args['node-args']!.split(' ').filter((a) => a !== ''),
      ...['--import', 'tsx', join(root, 'src/cli/main.ts'), 'serve', '--store', 'memory'],
      ...['--http-port', '0', '--grpc-port', '0', '--log-level', 'warn', ...extra],
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout! });
  return new Promise<Hub>((resolve, reject) => {
    lines.on('line', (line) => {
      const m = /^xdshub listening http=http:\/\/[^:]+:(\d+) grpc=(\S+)/.exec(line);
      if (m) resolve({ child, http: Number(m[1]), grpc: m[2]! });
    });
    child.once('exit', (code) => reject(new Error(`hub exited (${code}) before starting`)));
  });
}

function http(port: number, method: string, path: string, body?: unknown): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, method, path, timeout: GET_TIMEOUT_MS }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, ms: performance.now() - started }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
    req.end(payload);
  });
}

/** GETs one after the other until `stop()` is called; their latencies (status 0: timed out or failed). */
function getLoop(port: number): { stop(): Promise<Array<{ status: number; ms: number }>> } {
  const results: Array<{ status: number; ms: number }> = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      results.push(await http(port, 'GET', '/v1/catalog/nodes'));
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return results;
    },
  };
}

/** A normal Delta ADS stream on its own connection: ms to its first response (NaN when it ended first). */
async function normalXds(address: string): Promise<number> {
  const client = new grpc.Client(address, grpc.credentials.createInsecure(), ownConnection('bench.normal'));
  const started = performance.now();
  const call = client.makeBidiStreamRequest(
    DELTA_ADS,
    (b: Buffer) => b,
    (b: Buffer) => b,
  );
  call.write(deltaRequest('normal-envoy'));
  try {
    return await new Promise<number>((resolve) => {
      call.on('data', () => resolve(performance.now() - started));
      call.on('error', () => resolve(NaN));
    });
  } finally {
    call.cancel();
    client.close();
  }
}

/** CPU time a process used so far, ms (utime + stime, clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

async function main(): Promise<void> {
  const count = Number(args.streams);
  const hubArgs = args['hub-args']!.split(' ').filter((a) => a !== '');
  const hub = await startHub(hubArgs);
  try {
    for (let i = 0; i < 50; i++) {
      const service = { ID: `svc-${i}`, Service: `svc-${i % 5}`, Port: 80 };
      const node = { Node: `node-${i}`, Address: `10.0.0.${i}`, Service: service };
      await http(hub.http, 'PUT', '/v1/catalog/register', node);
    }
    const cpuBefore = cpuMs(hub.child.pid!);
    const gets = getLoop(hub.http);
    const child = forkTracked(__filename, ['flood', hub.grpc, String(count), args.kind!], {
      execArgv: ['--import', 'tsx'],
    });
    const reports: FloodReport[] = [];
    child.on('message', (m: FloodReport) => reports.push(m));
    await new Promise<void>((resolve) => child.once('message', () => resolve()));
    const xdsMs = await normalXds(hub.grpc);
    await once(child, 'exit');
    const hubCpu = cpuMs(hub.child.pid!) - cpuBefore;
    const latencies = await gets.stop();
    const sent = reports.find((r) => r.kind === 'sent');
    const settled = reports.find((r): r is Extract<FloodReport, { kind: 'settled' }> => r.kind === 'settled');
    const ok = latencies
      .filter((l) => l.status === 200)
      .map((l) => l.ms)
      .sort((a, b) => a - b);
    const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${hub.child.pid}/status`, 'utf8'))?.[1];
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const ms = (n: number | undefined) => `${(n ?? NaN).toFixed(0)} ms`;
    const hubArgsText = hubArgs.join(' ');
    console.log(`stream flood: ${count} ${args.kind} streams on one connection, hub args "${hubArgsText}"`);
    console.log(`load average ${load}`);
    console.log(
      `flood: all sent after ${ms(sent?.ms)}; settled after ${ms(settled?.ms)}: ${settled?.accepted} accepted, ` +
        `ended ${JSON.stringify(settled?.ended)}, ${settled?.pending} still pending`,
    );
    console.log(
      `GETs during the flood: ${latencies.length}, ${latencies.length - ok.length} failed or timed out; ` +
        `p50 ${ms(quantile(ok, 0.5))}, p99 ${ms(quantile(ok, 0.99))}, max ${ms(ok.at(-1))}`,
    );
    console.log(
      `normal xDS stream on another connection: first response after ${ms(xdsMs)}; ` +
        `hub CPU during the flood ${hubCpu} ms; hub RSS ${rss} kB`,
    );
  } finally {
    hub.child.kill('SIGTERM');
    await once(hub.child, 'exit');
  }
}

if (positionals[0] === 'flood') flood(positionals[1]!, Number(positionals[2]), positionals[3]!);
else
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
