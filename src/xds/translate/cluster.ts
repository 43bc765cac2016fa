// Cluster `S` (docs/xds.md "Cluster `S`"): an EDS cluster fed over ADS.
// SotW: full state in every response (CDS is a wildcard-capable type).
import type { ConfigEntry } from '../../catalog/types';
import { Extension, ExtensionType } from './extension-types';
import { durationOfMs, entryDurationMs, entryUint, protocolOf, record, str } from './inputs';

const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

export interface ClusterInput {
  /** Resource name (names.ts). */
  name: string;
  defaults?: ConfigEntry;
  resolver?: ConfigEntry;
  /** proxy-defaults `global`: the protocol of a service whose service-defaults name none. */
  proxyDefaults?: ConfigEntry | undefined;
}

/**
 * Who the cluster is for. Envoy gets the resolver's policy as written; gRPC
 * clients accept only ROUND_ROBIN and RING_HASH, so they get the nearest of
 * those (see grpcPolicyOf).
 */
export type ClusterFlavor = 'envoy' | 'grpc';

type LbPolicy = 'ROUND_ROBIN' | 'LEAST_REQUEST' | 'RING_HASH' | 'MAGLEV' | 'RANDOM';

const ENVOY_POLICY: Record<string, LbPolicy> = {
  round_robin: 'ROUND_ROBIN',
  least_request: 'LEAST_REQUEST',
  ring_hash: 'RING_HASH',
  maglev: 'MAGLEV',
  random: 'RANDOM',
};

/** The resolver's LoadBalancer.Policy as an Envoy lb_policy (unknown or unset → ROUND_ROBIN). */
function envoyPolicyOf(resolver: ConfigEntry | undefined): LbPolicy {
  const policy = str(record(resolver?.['LoadBalancer'])?.['Policy'])?.toLowerCase();
  return (policy !== undefined ? ENVOY_POLICY[policy] : undefined) ?? 'ROUND_ROBIN';
}

/**
 * For gRPC clients: hash-based policies (ring_hash, maglev) keep their affinity
 * as RING_HASH; least_request and random become ROUND_ROBIN, the policy they
 * degrade to with equal load, rather than a Cluster the client would NACK.
 */
export function grpcPolicyOf(resolver: ConfigEntry | undefined): 'ROUND_ROBIN' | 'RING_HASH' {
  const p = envoyPolicyOf(resolver);
  return p === 'RING_HASH' || p === 'MAGLEV' ? 'RING_HASH' : 'ROUND_ROBIN';
}

/** True when Envoy and gRPC clients need different Cluster resources for this input. */
export function clusterDiffersByFlavor(input: ClusterInput): boolean {
  return envoyPolicyOf(input.resolver) !== grpcPolicyOf(input.resolver);
}

/** The Cluster as a plain object for encodeResource. */
export function buildCluster(input: ClusterInput, flavor: ClusterFlavor): Record<string, unknown> {
  const lb = record(input.resolver?.['LoadBalancer']);
  const policy = flavor === 'envoy' ? envoyPolicyOf(input.resolver) : grpcPolicyOf(input.resolver);
  const connectMs = entryDurationMs(input.resolver?.['ConnectTimeout']) ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const cluster: Record<string, unknown> = {
    name: input.name,
    type: 'EDS',
    eds_cluster_config: { eds_config: { ads: {}, resource_api_version: 'V3' } },
    connect_timeout: durationOfMs(connectMs),
    lb_policy: policy,
  };
  if (policy === 'RING_HASH') {
    const cfg = record(lb?.['RingHashConfig']);
    const min = entryUint(cfg?.['MinimumRingSize']);
    const max = entryUint(cfg?.['MaximumRingSize']);
    if (min !== undefined || max !== undefined) {
      cluster['ring_hash_lb_config'] = {
        ...(min !== undefined ? { minimum_ring_size: { value: min } } : {}),
        ...(max !== undefined ? { maximum_ring_size: { value: max } } : {}),
      };
    }
  } else if (policy === 'LEAST_REQUEST') {
    const choice = entryUint(record(lb?.['LeastRequestConfig'])?.['ChoiceCount']);
    if (choice !== undefined && choice >= 2) cluster['least_request_lb_config'] = { choice_count: { value: choice } };
  }
  const protocol = protocolOf(input.defaults, input.proxyDefaults);
  if (protocol === 'grpc' || protocol === 'http2') {
    cluster['typed_extension_protocol_options'] = {
      [Extension.HttpProtocolOptions]: {
        '@type': ExtensionType.HttpProtocolOptions,
        explicit_http_config: { http2_protocol_options: {} },
      },
    };
  }
  const upstream = record(record(input.defaults?.['UpstreamConfig'])?.['Defaults']);
  const breakers = circuitBreakersOf(record(upstream?.['Limits']));
  if (breakers) cluster['circuit_breakers'] = breakers;
  const outlier = outlierDetectionOf(record(upstream?.['PassiveHealthCheck']));
  if (outlier) cluster['outlier_detection'] = outlier;
  return cluster;
}

/** UpstreamConfig.Defaults.Limits → one DEFAULT-priority threshold (Consul's mapping). */
function circuitBreakersOf(limits: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!limits) return undefined;
  const threshold: Record<string, unknown> = {};
  const maxConnections = entryUint(limits['MaxConnections']);
  const maxPending = entryUint(limits['MaxPendingRequests']);
  const maxRequests = entryUint(limits['MaxConcurrentRequests']);
  if (maxConnections !== undefined) threshold['max_connections'] = { value: maxConnections };
  if (maxPending !== undefined) threshold['max_pending_requests'] = { value: maxPending };
  if (maxRequests !== undefined) threshold['max_requests'] = { value: maxRequests };
  return Object.keys(threshold).length > 0 ? { thresholds: [threshold] } : undefined;
}

/** UpstreamConfig.Defaults.PassiveHealthCheck → outlier_detection (percentages capped at 100, as clients require). */
function outlierDetectionOf(check: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!check) return undefined;
  const od: Record<string, unknown> = {};
  const percent = (v: unknown) => {
    const n = entryUint(v);
    return n === undefined ? undefined : { value: Math.min(n, 100) };
  };
  const interval = entryDurationMs(check['Interval']);
  const maxFailures = entryUint(check['MaxFailures']);
  const enforcing = percent(check['EnforcingConsecutive5xx']);
  const maxEjection = percent(check['MaxEjectionPercent']);
  const baseEjection = entryDurationMs(check['BaseEjectionTime']);
  if (interval !== undefined) od['interval'] = durationOfMs(interval);
  if (maxFailures !== undefined) od['consecutive_5xx'] = { value: maxFailures };
  // protobufjs spells it enforcingConsecutive_5xx (the underscore before a digit stays); snake_case would not resolve.
  if (enforcing) od['enforcingConsecutive_5xx'] = enforcing;
  if (maxEjection) od['max_ejection_percent'] = maxEjection;
  if (baseEjection !== undefined) od['base_ejection_time'] = durationOfMs(baseEjection);
  return Object.keys(od).length > 0 ? od : undefined;
}
