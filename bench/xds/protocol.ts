// Shared by the bench processes: IPC message shapes, a clock every process on
// this machine agrees on, and the Delta ADS method with byte-counting codecs.
import { performance } from 'node:perf_hooks';
import { lookupType } from '../../src/xds/transport/envoy-proto';

/** Wall-clock ms with sub-ms resolution, comparable across processes on one machine. */
export const now = (): number => performance.timeOrigin + performance.now();

export const DELTA_ADS = '/envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources';
export const CDS = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';
export const EDS = 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment';

export const deltaRequest = () => lookupType('envoy.service.discovery.v3.DeltaDiscoveryRequest');
export const deltaResponse = () => lookupType('envoy.service.discovery.v3.DeltaDiscoveryResponse');

/** hub-notrim: the hub with --memory-trim=false (no malloc_trim after the initial syncs).
 * bare-sync: the bare server that also sends every client a pre-encoded initial CDS and EDS set (S each), as the hub must. */
export type Mode = 'hub' | 'hub-notrim' | 'bare' | 'bare-sync';

/** Parent → server. */
export type ServerCommand =
  | { cmd: 'setup'; services: number }
  | { cmd: 'stats' }
  | { cmd: 'change'; service: number; round: number }
  | { cmd: 'exit' };
/** Server → parent. */
export type ServerReply =
  | { kind: 'listening'; port: number }
  | { kind: 'setup-done'; ms: number }
  | { kind: 'stats'; rss: number; heapUsed: number; external: number; arrayBuffers: number; cpuUserUs: number; cpuSystemUs: number; streams: number; trim?: { trims: number; lastDurationMs: number; releasedBytes: number } }
  | { kind: 'changed'; t0: number; round: number; name: string };

/** Parent → client process. */
export type ClientCommand =
  | { cmd: 'connect'; mode: Mode; port: number; count: number; offset: number; services: number }
  | { cmd: 'arm'; name: string; round: number }
  | { cmd: 'exit' };
/** Client process → parent. */
export type ClientReply =
  | { kind: 'ready'; count: number }
  | { kind: 'armed'; round: number }
  | { kind: 'arrived'; round: number; times: number[]; bytes: number[]; missing: number }
  | { kind: 'error'; message: string };

export const pct = (sorted: readonly number[], p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
