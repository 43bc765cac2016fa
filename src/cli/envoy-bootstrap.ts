// Envoy bootstraps that point an Envoy at the hub, the way
// `consul connect envoy -bootstrap` prints one for Consul: node identity, the
// admin listener, where Listeners and Clusters come from (ADS over Delta or
// SotW, per-type gRPC streams, or REST polling) and one static cluster that
// reaches the hub. A pure function, so the CLI, the examples and the tests
// share one source of truth.
import { isIP } from 'node:net';
import { invalid } from '../errors';
// The static clusters' names: the hub over gRPC (HTTP/2) and over HTTP/1.1 (REST); per-type and REST
// clients get config sources that name them.
import { HUB_GRPC_CLUSTER, HUB_HTTP_CLUSTER, HUB_RECONNECT_BACKOFF_MS } from '../xds/translate/config-sources';
import { CONSUL_STATS_TAGS } from './stats-tags';

/** How Envoy fetches its configuration from the hub. */
export type EnvoyTransport = 'delta' | 'sotw' | 'rest';

export interface EnvoyBootstrapOptions {
  /** node.id: names this Envoy in the hub's admin views. */
  nodeId: string;
  /** node.cluster (Envoy requires one): an ingress-gateway config entry of this name gives the Envoy its listeners. */
  cluster: string;
  transport: EnvoyTransport;
  /**
   * gRPC transports: one aggregated stream (ADS, the default) or one stream
   * per resource type (CDS, LDS, and the EDS/RDS streams the hub's
   * resources then point at). REST has no ADS.
   */
  ads: boolean;
  /** Envoy's admin listener, host:port. */
  adminBind: string;
  /** The hub's gRPC address (host:port) for the gRPC transports. */
  grpcAddr: string;
  /** The hub's HTTP address (host:port) for REST polling. */
  httpAddr: string;
  /** REST: how often Envoy polls. */
  refreshDelayMs: number;
  /** node.locality.region (the datacenter). */
  datacenter: string;
}

export const BOOTSTRAP_DEFAULTS = {
  transport: 'delta',
  ads: true,
  adminBind: '127.0.0.1:19000',
  grpcAddr: '127.0.0.1:8502',
  httpAddr: '127.0.0.1:8500',
  refreshDelayMs: 1_000,
  datacenter: 'dc1',
} as const satisfies Partial<EnvoyBootstrapOptions>;

/** Splits host:port (IPv6 in brackets); throws a usage error naming the flag. */
export function parseHostPort(text: string, flag: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d+)$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  if (!m || !Number.isInteger(port) || port < 0 || port > 65535)
    throw invalid(flag, `expected host:port, got "${text}"`);
  return { host: (m[1] ?? m[2])!, port };
}

function socketAddress(hostPort: string, flag: string) {
  const { host, port } = parseHostPort(hostPort, flag);
  return { socket_address: { address: host, port_value: port } };
}

/** A static cluster with one endpoint: STATIC for an IP, STRICT_DNS for a name (e.g. a compose service). */
function hubCluster(name: string, hostPort: string, flag: string, http2: boolean): Record<string, unknown> {
  const address = socketAddress(hostPort, flag);
  const byName = isIP(address.socket_address.address) === 0;
  return {
    name,
    type: byName ? 'STRICT_DNS' : 'STATIC',
    connect_timeout: '1s',
    ...(http2
      ? {
          // xDS over gRPC needs HTTP/2 to the hub.
          typed_extension_protocol_options: {
            'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': {
              '@type': 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
              explicit_http_config: { http2_protocol_options: {} },
            },
          },
        }
      : {}),
    load_assignment: { cluster_name: name, endpoints: [{ lb_endpoints: [{ endpoint: { address } }] }] },
    ...(byName ? { dns_lookup_family: 'V4_ONLY' } : {}),
  };
}

/**
 * How fast Envoy tries the hub again after losing it. Envoy's default
 * (500 ms doubling up to 30 s, each wait drawn at random below the current
 * step) left Envoys 12–57 s behind a hub restart; capped at 1 s, an Envoy is
 * back within about a second of the hub listening again. An attempt at a hub
 * that is away is one refused connection, so even many Envoys cost it little.
 * `GrpcService.EnvoyGrpc.retry_policy` is the field Envoy reads for the xDS
 * stream's back-off (ADS and per-type alike); docs/envoy-lifecycle.md "Reconnecting".
 * The bound is HUB_RECONNECT_BACKOFF_MS, here as the bootstrap's JSON spells it ("0.25s", "1s").
 */
export const HUB_RECONNECT_BACKOFF = {
  base_interval: `${HUB_RECONNECT_BACKOFF_MS.base / 1000}s`,
  max_interval: `${HUB_RECONNECT_BACKOFF_MS.max / 1000}s`,
} as const;

function durationText(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(3)}s`;
}

/** The bootstrap as JSON-ready data (snake_case, as Envoy's docs spell it). */
export function envoyBootstrap(o: EnvoyBootstrapOptions): Record<string, unknown> {
  if (o.nodeId === '') throw invalid('node-id', 'required');
  if (o.cluster === '') throw invalid('cluster', 'required (Envoy needs node.cluster)');
  if (o.transport === 'rest' && o.ads)
    throw invalid('transport', 'REST polling has no aggregated stream: use --ads=false with --transport rest');
  const retryPolicy = { retry_back_off: HUB_RECONNECT_BACKOFF };
  const grpcServices = [{ envoy_grpc: { cluster_name: HUB_GRPC_CLUSTER, retry_policy: retryPolicy } }];
  const apiType = o.transport === 'delta' ? 'DELTA_GRPC' : o.transport === 'sotw' ? 'GRPC' : 'REST';
  const apiSource =
    o.transport === 'rest'
      ? {
          api_type: 'REST',
          transport_api_version: 'V3',
          cluster_names: [HUB_HTTP_CLUSTER],
          refresh_delay: durationText(o.refreshDelayMs),
          request_timeout: '5s',
        }
      : {
          api_type: apiType,
          transport_api_version: 'V3',
          grpc_services: grpcServices,
          set_node_on_first_message_only: true,
        };
  // With ADS both sources say "ads"; otherwise each type has its own stream (or poll).
  const source = o.ads
    ? { ads: {}, resource_api_version: 'V3' }
    : { api_config_source: apiSource, resource_api_version: 'V3' };
  return {
    node: { id: o.nodeId, cluster: o.cluster, locality: { region: o.datacenter, zone: '' } },
    admin: { address: socketAddress(o.adminBind, 'admin-bind') },
    // Consul's tag names, so dashboards keyed on them work (docs/envoy.md "Stats tags").
    stats_config: { stats_tags: CONSUL_STATS_TAGS, use_all_default_tags: true },
    dynamic_resources: {
      ...(o.ads ? { ads_config: apiSource } : {}),
      cds_config: source,
      lds_config: source,
    },
    static_resources: {
      clusters: [
        o.transport === 'rest'
          ? hubCluster(HUB_HTTP_CLUSTER, o.httpAddr, 'http-addr', false)
          : hubCluster(HUB_GRPC_CLUSTER, o.grpcAddr, 'grpc-addr', true),
      ],
    },
  };
}
