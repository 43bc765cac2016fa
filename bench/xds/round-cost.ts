// bench/xds/round-cost: the push path's own CPU per change per client, with no
// sockets and no other process on the clock. N fake Delta ADS streams on the
// real xDS server (createXdsServer over a fake grpc.Server, the push pipeline
// and pacing it builds), subscribed as Envoy is (wildcard CDS, then EDS by name
// for S clusters). Each round changes one assignment; the server pushes it to
// every stream (each write serialized and copied as grpc-js would), then every
// stream gets its ACK as grpc-js hands it over: the raw request bytes. The
// client side (reading nonces, encoding ACKs) runs off the clock.
//
//   node --import tsx --expose-gc bench/xds/round-cost.ts [--clients 1000,5000] [--services 1000] [--rounds 30] [--ops]
//
// --ops: the ops recorder on the server's callbacks as a hub wires it (the
// per-node history of --xds-history 1000 records, in memory, and the proxy-status
// tracker): its share is the difference to a run without.
// Prints per N: µs per client per change for the push, for the ACKs and both
// (medians of the rounds, process CPU by cpuUsage: GC on helper threads
// included), GC pause per round (perf_hooks) and the load average.
import { EventEmitter } from 'node:events';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { ServerDuplexStream } from '@grpc/grpc-js';
import { createHistory } from '../../src/ops/history';
import { createStatusTracker } from '../../src/ops/status';
import type { XdsCallbacks } from '../../src/xds/transport/callbacks';
import { TypeUrl } from '../../src/xds/transport/type-urls';
import { encodeRequest, serializeResponse, type XdsResponse } from '../../src/xds/transport/wire';
import { cla, cluster, TestProvider } from '../../test/xds/transport/helpers/fixtures';
import { inProcessXds } from '../../test/xds/transport/helpers/in-process';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '1000,5000' },
    services: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '30' },
    ops: { type: 'boolean', default: false },
    warmup: { type: 'string', default: '5' },
    // A CPU profile of the measured rounds only (not the setup), per N: <file>-<N>.cpuprofile.
    profile: { type: 'string' },
    // A sampling heap profile of the measured rounds (every allocation, collected or not): <file>-<N>.heapprofile.
    'heap-profile': { type: 'string' },
  },
});

/** A call as XdsStream uses it: writes are serialized and copied (grpc-js's frame), the last nonce kept for the ACK. */
class FakeCall extends EventEmitter {
  writableEnded = false;
  metadata = { get: () => [] };
  nonce = '';
  typeUrl = '';
  write(m: XdsResponse, written?: () => void): boolean {
    const bytes = serializeResponse(m);
    frames.push(Buffer.from(bytes));
    if (!Buffer.isBuffer(m)) this.nonce = m.nonce;
    if (written) process.nextTick(written); // the sync gate's slot frees once the bytes are handed over
    return true;
  }
  /** Resolves once a response after `nonce` was written (an initial sync may wait at the sync gate). */
  async after(nonce: string): Promise<void> {
    while (this.nonce === nonce) await new Promise((r) => setImmediate(r));
  }
  end(): void {}
  getPeer(): string {
    return 'fake';
  }
}
let frames: Buffer[] = [];

const gcMs = { total: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries() as PerformanceEntry[]) gcMs.total += e.duration;
}).observe({ entryTypes: ['gc'] });

const cpuUs = () => {
  const c = process.cpuUsage();
  return c.user + c.system;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const f1 = (x: number) => x.toFixed(1);

/** The ops recorder's callbacks, as src/ops/index.ts wires them (history and status; no rollouts, no event stream). */
function opsCallbacks(): XdsCallbacks {
  const history = createHistory({ perNode: 1_000, hub: 'bench', index: () => 1n });
  const status = createStatusTracker(() => 1n);
  return {
    sent: (e) => {
      history.sent?.(e);
      status.sent(e);
    },
    answered: (e) => {
      history.answered?.(e);
      status.answered(e);
    },
  };
}

async function run(n: number, s: number, rounds: number, warmup: number) {
  const provider = new TestProvider();
  const names = Array.from({ length: s }, (_, i) => `svc-${i}`);
  provider.set(...names.map((x) => cluster(x)), ...names.map((x) => cla(x)));
  const { xds, deltaAds: handler } = inProcessXds({ provider, ...(values.ops ? { callbacks: opsCallbacks() } : {}) });
  const calls: FakeCall[] = [];
  const ack = (c: FakeCall, typeUrl: string) =>
    c.emit('data', encodeRequest('v3', 'DeltaDiscoveryRequest', { typeUrl, responseNonce: c.nonce }));
  for (let i = 0; i < n; i++) {
    const c = new FakeCall();
    handler(c as unknown as ServerDuplexStream<Buffer, XdsResponse>);
    calls.push(c);
    const sub = (typeUrl: string, subscribe: string[], node?: object) =>
      c.emit(
        'data',
        encodeRequest('v3', 'DeltaDiscoveryRequest', { node, typeUrl, resourceNamesSubscribe: subscribe }),
      );
    sub(TypeUrl.Cluster, ['*'], { id: `envoy-${i}`, cluster: 'bench' });
    await c.after('');
    let nonce = c.nonce;
    ack(c, TypeUrl.Cluster);
    sub(TypeUrl.ClusterLoadAssignment, names);
    await c.after(nonce);
    nonce = c.nonce;
    ack(c, TypeUrl.ClusterLoadAssignment);
    frames = [];
  }
  await new Promise((r) => setTimeout(r, 1100)); // the warming of EDS (X-WARM-1) and any deferred push settle
  for (const c of calls) ack(c, TypeUrl.ClusterLoadAssignment);
  frames = [];
  const push: number[] = [];
  const acks: number[] = [];
  const gcs: number[] = [];
  let port = 9000;
  globalThis.gc?.();
  await new Promise((r) => setTimeout(r, 100));
  const session = values.profile || values['heap-profile'] ? new Session() : undefined;
  for (let r = 0; r < warmup + rounds; r++) {
    if (session && r === warmup) {
      session.connect();
      if (values.profile) {
        await session.post('Profiler.enable');
        await session.post('Profiler.start');
      } else
        await session.post('HeapProfiler.startSampling', {
          samplingInterval: 4096,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        } as object);
    }
    const name = names[(r * 7919) % s]!;
    const g0 = gcMs.total;
    const c0 = cpuUs();
    provider.set(cla(name, [++port]));
    xds.flushChanges();
    const c1 = cpuUs();
    // Off the clock: what N clients do (read the nonce, encode an ACK).
    const requests = calls.map((c) =>
      encodeRequest('v3', 'DeltaDiscoveryRequest', { typeUrl: TypeUrl.ClusterLoadAssignment, responseNonce: c.nonce }),
    );
    frames = [];
    const c2 = cpuUs();
    for (let i = 0; i < n; i++) calls[i]!.emit('data', requests[i]);
    const c3 = cpuUs();
    // Let GC that the round caused run (and be counted) before the next round's clock starts: idle time is not CPU.
    await new Promise((res) => setTimeout(res, 20));
    const c4 = cpuUs();
    if (r < warmup) continue;
    push.push((c1 - c0) / n);
    acks.push((c3 - c2 + (c4 - c3)) / n);
    gcs.push(gcMs.total - g0);
  }
  if (session) {
    if (values.profile) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(`${values.profile}-${n}.cpuprofile`, JSON.stringify(profile));
    } else {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      writeFileSync(`${values['heap-profile']}-${n}.heapprofile`, JSON.stringify(profile));
    }
    session.disconnect();
  }
  const totals = push.map((p, i) => p + acks[i]!);
  console.log(
    `round-cost N=${n} S=${s}${values.ops ? ' (ops recorder on)' : ''}: ${f1(median(totals))} µs/client/change (push ${f1(median(push))}, ACK ${f1(median(acks))}; ` +
      `min ${f1(Math.min(...totals))}, max ${f1(Math.max(...totals))}); GC pause ${f1(median(gcs))} ms/round (${f1((median(gcs) * 1000) / n)} µs/client); ` +
      `heap ${f1(process.memoryUsage().heapUsed / 1048576)} MiB; load ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
  );
  const st = xds.stepStats();
  console.log(`  rule steps from the class: ${st.hits}, computed: ${st.misses}`);
  xds.close();
}

async function main() {
  const s = Number(values.services);
  for (const n of values.clients.split(',').map(Number)) {
    await run(n, s, Number(values.rounds), Number(values.warmup));
    globalThis.gc?.();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
