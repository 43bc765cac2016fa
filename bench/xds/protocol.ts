// Shared by the bench processes: IPC message shapes, a clock every process on
// this machine agrees on, and the Delta ADS method with byte-counting codecs.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants, PerformanceObserver, performance } from 'node:perf_hooks';
import { lookupType } from '../../src/xds/transport/envoy-proto';

/** Wall-clock ms with sub-ms resolution, comparable across processes on one machine. */
export const now = (): number => performance.timeOrigin + performance.now();

export const DELTA_ADS = '/envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources';
export const CDS = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';
export const EDS = 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment';

export const deltaRequest = () => lookupType('envoy.service.discovery.v3.DeltaDiscoveryRequest');
export const deltaResponse = () => lookupType('envoy.service.discovery.v3.DeltaDiscoveryResponse');

/** hub-notrim: the hub with --memory-trim=false (no malloc_trim after the initial syncs).
 * bare-sync: the bare server that also sends every client a pre-encoded initial CDS and EDS set (S each), as the hub must.
 * gcp: go-control-plane v0.14 (server.NewServer over LinearCaches; bench/xds/gcp), serving the same resources. */
export type Mode = 'hub' | 'hub-notrim' | 'bare' | 'bare-sync' | 'gcp';

/** Parent → server. */
export type ServerCommand =
  | { cmd: 'setup'; services: number }
  /** settle: the memory readings (after setup, after connect + sync) wait for freed memory first (settleMemory). */
  | { cmd: 'stats'; settle?: true }
  /** The measured rounds begin: a stats reply (no forced GC) is their baseline; a profile starts. */
  | { cmd: 'rounds-start' }
  /** Bare servers only: the hub's changes go through its HTTP API. */
  | { cmd: 'change'; service: number; round: number }
  /** Bare servers only, churn: service `service` now has `port`; changes are folded for `windowMs` and sent to every stream in one response. */
  | { cmd: 'churn-change'; service: number; port: number; windowMs: number }
  /** Reply with this process's CPU time now (a round's window: before its write, after its last arrival). */
  | { cmd: 'cpu-mark'; id: number }
  | { cmd: 'exit' };

export interface ServerStats {
  rss: number;
  heapUsed: number;
  /** V8's heap as committed (live objects and room), of which heapUsed is live. */
  heapTotal?: number;
  external: number;
  arrayBuffers: number;
  cpuUserUs: number;
  cpuSystemUs: number;
  streams: number;
  trim?: { trims: number; lastDurationMs: number; releasedBytes: number };
  /** Hub only: rule steps taken from a stream of the same class, and computed (step-memo.ts), since start. */
  steps?: { hits: number; misses: number };
  /** Hub only: streams refused since start, and the most streams open at once. */
  refused?: number;
  /** Node servers: GC pauses since the first reading, ms (perf_hooks; entries reach the observer a little late). */
  gcPauseMs?: number;
  /** Node servers: full (mark-compact) collections since the first reading. */
  majorGcs?: number;
  /** The full GC this reading forced after its CPU reading (`collect`): CPU µs and pause ms, which the next reading's figures include. */
  forcedGc?: { cpuUs: number; ms: number; mainUs?: number };
  /** Node servers on Linux: CPU µs of the main thread since start (schedstat, ns exact), read beside `cpuUserUs`. */
  mainThreadUs?: number;
}

/** CPU µs between two readings, without the forced GC of the first. */
export function cpuBetween(a: ServerStats, b: ServerStats): number {
  return b.cpuUserUs + b.cpuSystemUs - (a.cpuUserUs + a.cpuSystemUs) - (a.forcedGc?.cpuUs ?? 0);
}

/** Main-thread CPU µs between two readings (the rest of `cpuBetween` is V8's and libuv's helper threads), without the forced GC's. */
export function mainThreadBetween(a: ServerStats, b: ServerStats): number | undefined {
  if (a.mainThreadUs === undefined || b.mainThreadUs === undefined) return undefined;
  return b.mainThreadUs - a.mainThreadUs - (a.forcedGc?.mainUs ?? 0);
}

/** This process's main thread's CPU µs, from its schedstat (nanoseconds on CPU); undefined where there is none. */
function mainThreadUs(): number | undefined {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1000;
  } catch {
    return undefined;
  }
}

/** GC pause ms between two readings (Node servers), without the forced GC of the first. */
export function gcPauseBetween(a: ServerStats, b: ServerStats): number | undefined {
  if (a.gcPauseMs === undefined || b.gcPauseMs === undefined) return undefined;
  return b.gcPauseMs - a.gcPauseMs - (a.forcedGc?.ms ?? 0);
}

let gcPauseMs = 0;
let majorGcs = 0;
let observingGc = false;
/** `gc()` when the server runs with --expose-gc (every bench server does). */
const exposedGc = (globalThis as { gc?: () => void }).gc;

/**
 * Before a memory reading: a full GC, then SETTLE_MS for what it freed to be
 * given back (the array-buffer backing stores swept after it, HTTP/2 sessions'
 * buffers released), so the reading (itself after a second GC) is what stays
 * and not what is about to go. Without it the hub's external memory at the
 * reading ranged 1–41 KiB per client between runs of the same code, and 1.2
 * in every run with it (bench/NOTES.md, session 17). Both servers do the same.
 */
export const SETTLE_MS = 400;
export async function settleMemory(): Promise<void> {
  exposedGc?.();
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
}

/**
 * This process's memory and CPU with `streams` open (the stats every bench
 * server reports). `collect`: run a full GC before the memory is read (for an
 * RSS that holds only what is live), but after CPU and GC time are: the
 * forced collection of a large heap would otherwise be billed to the rounds.
 */
export function processStats(streams: number, collect = false): ServerStats {
  if (!observingGc) {
    observingGc = true;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        gcPauseMs += e.duration;
        if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorGcs++;
      }
    }).observe({ entryTypes: ['gc'] });
  }
  const cpu = process.cpuUsage();
  const main = mainThreadUs();
  const gcMs = gcPauseMs;
  let forcedGc: ServerStats['forcedGc'];
  if (collect && exposedGc) {
    const t = performance.now();
    exposedGc();
    const after = process.cpuUsage(cpu);
    const mainAfter = mainThreadUs();
    forcedGc = { cpuUs: after.user + after.system, ms: performance.now() - t };
    if (main !== undefined && mainAfter !== undefined) forcedGc.mainUs = mainAfter - main;
  }
  const mem = process.memoryUsage();
  return {
    gcPauseMs: gcMs,
    majorGcs,
    ...(forcedGc ? { forcedGc } : {}),
    rss: mem.rss,
    heapUsed: mem.heapUsed,
    heapTotal: mem.heapTotal,
    external: mem.external,
    arrayBuffers: mem.arrayBuffers,
    cpuUserUs: cpu.user,
    cpuSystemUs: cpu.system,
    ...(main === undefined ? {} : { mainThreadUs: main }),
    streams,
  };
}

/** This process's CPU time, user and system, µs. */
export function cpuNowUs(): number {
  const c = process.cpuUsage();
  return c.user + c.system;
}

/**
 * XDS_BENCH_PIN_CPUS (a taskset list, e.g. "0" or "1-3"): binds every thread of
 * this process to those cores, so that a server has its own core and the
 * clients theirs (bench/xds.ts --pin).
 */
export function pinSelf(env: NodeJS.ProcessEnv = process.env): void {
  const cpus = env['XDS_BENCH_PIN_CPUS'];
  if (cpus) execFileSync('taskset', ['-a', '-cp', cpus, String(process.pid)], { stdio: 'ignore' });
}

/** Server → parent. */
export type ServerReply =
  | { kind: 'listening'; port: number; httpUrl?: string }
  | { kind: 'setup-done'; ms: number }
  | ({ kind: 'stats' } & ServerStats)
  | { kind: 'changed'; t0: number; round: number; name: string }
  | { kind: 'cpu-mark'; id: number; cpuUs: number };

/** One acknowledged change in a churn run: service `name` now has `port`, acknowledged at `at`. */
export interface ChurnChange {
  name: string;
  port: number;
  at: number;
}

/** Parent → client process. */
export type ClientCommand =
  /** `storm`: open every connection at once (no spreading). `sample`: clients that decode assignments in churn runs. */
  | {
      cmd: 'connect';
      mode: Mode;
      port: number;
      count: number;
      offset: number;
      services: number;
      storm: boolean;
      sample: number;
    }
  | { cmd: 'arm'; name: string; round: number }
  | { cmd: 'churn-start' }
  /** The parent stopped writing: stop counting responses (keep recording what arrives). */
  | { cmd: 'churn-writes-done' }
  | { cmd: 'churn-stop'; changes: ChurnChange[] }
  | { cmd: 'exit' };

/** Client process → parent. */
export type ClientReply =
  | { kind: 'loaded' }
  | { kind: 'ready'; count: number; at: number; refused: number; failed: number }
  | { kind: 'armed'; round: number }
  | { kind: 'arrived'; round: number; times: number[]; bytes: number[]; missing: number }
  /** Per stream, responses during the churn window; staleness (ms) of every change for the sampled clients; changes a sampled client never got. */
  | { kind: 'churned'; pushes: number[]; staleness: number[]; undelivered: number }
  | { kind: 'error'; message: string };

export const pct = (sorted: readonly number[], p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
