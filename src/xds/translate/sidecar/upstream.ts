// A sidecar's outbound side (docs/mesh.md "What a sidecar gets"): one
// listener per upstream on its LocalBindAddress:LocalBindPort. HTTP upstreams
// (http, http2, grpc) route through the destination's discovery chain —
// router, splitter, resolver, compiled by chain.ts exactly as for gateways —
// into mesh clusters; TCP upstreams go to the cluster the resolver picks. A
// mesh cluster is the chain's cluster (`S` or `<subset>.S`) whose endpoints are
// S's sidecars (and Connect-native instances), not its apps, reached over
// mutual TLS: the source's leaf as client certificate, the trust bundle and
// S's SPIFFE ID (SAN match) to check the other end.

import type { CheckServiceNode, ConfigEntry } from '../../../catalog/types';
import type { CentralConfig } from '../../../connect/central-config';
import { serviceSpiffeId } from '../../../connect/spiffe';
import { type ChainEntries, chainRoutes, resolverSubsets, resolveTarget } from '../chain';
import { buildCluster } from '../cluster';
import { buildLoadAssignment, failoverTargets } from '../endpoints';
import { ExtensionType } from '../extension-types';
import { durationOfMs, entryUint, protocolOf, record, str } from '../inputs';
import type { ServiceRef } from '../names';
import { meshClusterName, sdsRef, upstreamListenerName } from './names';
import { alpnOf, CONSUL_HCM_DEFAULTS, http2Options, isHttp, isHttp2 } from './public';
import type { Identity } from './rbac';

type Plain = Record<string, unknown>;

/** One upstream of a proxy, as registered (Consul's Upstream). */
export interface Upstream {
  destination: string;
  address: string;
  port: number;
  config: Record<string, unknown>;
}

/** What the mesh translation reads besides the proxy itself. */
export interface MeshContext {
  id: Identity;
  chain: ChainEntries;
  defaults: ReadonlyMap<string, ConfigEntry>;
  /** proxy-defaults `global` and the service-defaults, as central config merges them into proxies. */
  central: CentralConfig;
  /** Chain cluster name (`S`, `<subset>.S`) → its service and subset. */
  targets: ReadonlyMap<string, { ref: ServiceRef; subset?: string }>;
  /** A service's sidecars and Connect-native instances: the endpoints of its mesh clusters. */
  endpointsOf(service: string): readonly CheckServiceNode[];
  /** Ingress-gateway entries and the plain services a `*` listener exposes (read once, when asked), for gateways. */
  ingress: { entries: readonly ConfigEntry[]; services(): readonly ServiceRef[] };
}

export function upstreamsOf(proxy: CheckServiceNode): Upstream[] {
  const list = record(proxy.Service.Proxy)?.['Upstreams'];
  return (Array.isArray(list) ? list : []).flatMap((raw): Upstream[] => {
    const u = record(raw);
    const destination = str(u?.['DestinationName']);
    const port = entryUint(u?.['LocalBindPort']);
    if (!u || destination === undefined || !port) return [];
    return [
      { destination, address: str(u['LocalBindAddress']) ?? '127.0.0.1', port, config: record(u['Config']) ?? {} },
    ];
  });
}

/**
 * An upstream's protocol: its Config.protocol (central config merged in), else the destination's
 * service-defaults, else proxy-defaults, else tcp.
 */
export function upstreamProtocol(u: Upstream, ctx: MeshContext): string {
  const resolved = protocolOf(ctx.defaults.get(u.destination), ctx.central.proxyDefaults);
  return (str(u.config['protocol']) ?? resolved).toLowerCase();
}

/** Rewrites a chain route's cluster names into mesh cluster names; collects the chain clusters used. */
export function meshRoutes(routes: readonly Plain[], ctx: MeshContext, used: Set<string>): Plain[] {
  const mesh = (plain: string) => {
    used.add(plain);
    return meshClusterName(plain, ctx.id.datacenter, ctx.id.trustDomain);
  };
  return routes.map((raw) => {
    // The catch-all as Consul writes it: prefix "/" (the same match as "" for every HTTP path).
    const match = record(raw['match']);
    const r = match?.['prefix'] === '' ? { ...raw, match: { ...match, prefix: '/' } } : raw;
    const action = record(r['route']);
    if (!action) return r;
    const out: Plain = { ...action };
    if (typeof action['cluster'] === 'string') out['cluster'] = mesh(action['cluster']);
    const weighted = record(action['weighted_clusters']);
    if (weighted) {
      out['weighted_clusters'] = {
        ...weighted,
        clusters: (weighted['clusters'] as Plain[]).map((c) => ({ ...c, name: mesh(String(c['name'])) })),
      };
    }
    return { ...r, route: out };
  });
}

export interface UpstreamOutput {
  listener: Plain;
  /** The upstream's RouteConfiguration (HTTP upstreams), named after its destination. */
  route?: Plain;
  /** Chain clusters (plain names) the upstream sends to. */
  clusters: string[];
}

export function buildUpstream(u: Upstream, protocol: string, ctx: MeshContext): UpstreamOutput {
  const ref: ServiceRef = { name: u.destination };
  const name = upstreamListenerName(u.destination, u.address, u.port);
  const used = new Set<string>();
  // Consul's upstream stat prefix: upstream.<service>.<namespace>.<partition>.<datacenter> (src/cli/stats-tags.ts).
  const statPrefix = `upstream.${u.destination}.default.default.${ctx.id.datacenter}`;
  let filter: Plain;
  let route: Plain | undefined;
  if (isHttp(protocol)) {
    route = {
      name: u.destination,
      virtual_hosts: [
        {
          // Consul's name: <service>.<namespace>.<partition>.<datacenter>.
          name: `${u.destination}.default.default.${ctx.id.datacenter}`,
          domains: ['*'],
          routes: meshRoutes(chainRoutes(ref, ctx.chain, 'envoy'), ctx, used),
        },
      ],
    };
    filter = {
      name: 'envoy.filters.network.http_connection_manager',
      typed_config: {
        '@type': ExtensionType.HttpConnectionManager,
        stat_prefix: statPrefix,
        codec_type: 'AUTO',
        rds: { route_config_name: u.destination, config_source: { ads: {}, resource_api_version: 'V3' } },
        http_filters: [{ name: 'envoy.filters.http.router', typed_config: { '@type': ExtensionType.Router } }],
        ...CONSUL_HCM_DEFAULTS,
      },
    };
  } else {
    const target = resolveTarget(ref, undefined, ctx.chain).cluster;
    used.add(target);
    filter = {
      name: 'envoy.filters.network.tcp_proxy',
      typed_config: {
        '@type': ExtensionType.TcpProxy,
        stat_prefix: statPrefix,
        cluster: meshClusterName(target, ctx.id.datacenter, ctx.id.trustDomain),
      },
    };
  }
  const listener = {
    name,
    address: { socket_address: { address: u.address, port_value: u.port } },
    traffic_direction: 'OUTBOUND',
    filter_chains: [{ filters: [filter] }],
  };
  return { listener, ...(route ? { route } : {}), clusters: [...used] };
}

function targetOf(plain: string, ctx: MeshContext): { ref: ServiceRef; subset?: string } {
  return ctx.targets.get(plain) ?? { ref: { name: plain } };
}

/** The services whose sidecars a mesh cluster reaches: its own and, without a subset, its resolver's failover targets. */
function servicesOf(
  plain: string,
  ctx: MeshContext,
): { ref: ServiceRef; subset?: string; failover: ReturnType<typeof failoverTargets> } {
  const t = targetOf(plain, ctx);
  const resolver = ctx.chain.resolvers.get(t.ref.name);
  return { ...t, failover: t.subset === undefined ? failoverTargets(t.ref, resolver) : [] };
}

/** A mesh cluster for a source service (its leaf is the client certificate). */
export function meshCluster(
  plain: string,
  protocol: string,
  upstreamConfig: Record<string, unknown>,
  leafSecret: string,
  rootsSecret: string,
  ctx: MeshContext,
): Plain {
  const { ref, failover } = servicesOf(plain, ctx);
  const name = meshClusterName(plain, ctx.id.datacenter, ctx.id.trustDomain);
  const base = buildCluster(
    { name: plain, defaults: ctx.defaults.get(ref.name), resolver: ctx.chain.resolvers.get(ref.name) },
    'envoy',
  );
  const sans = [...new Set([ref.name, ...failover.map((f) => f.ref.name)])].map((s) => ({
    san_type: 'URI',
    matcher: { exact: serviceSpiffeId(ctx.id.trustDomain, ctx.id.datacenter, s) },
  }));
  const alpn = alpnOf(protocol);
  const connectMs = entryUint(upstreamConfig['connect_timeout_ms']);
  const { typed_extension_protocol_options: _h2, ...rest } = base as Plain;
  return {
    ...rest,
    name,
    // As Consul's upstream clusters: Envoy's default outlier detection (5 consecutive
    // 5xx or connect failures eject a host) and circuit breakers, unless service-defaults set them.
    outlier_detection: rest['outlier_detection'] ?? {},
    circuit_breakers: rest['circuit_breakers'] ?? {},
    // Consul's: panic mode off (a 0% threshold), so traffic never goes to UNHEALTHY sidecars; stats under the full name.
    common_lb_config: { ...record(rest['common_lb_config']), healthy_panic_threshold: {} },
    alt_stat_name: name,
    ...(connectMs !== undefined ? { connect_timeout: durationOfMs(connectMs) } : {}),
    ...(isHttp2(protocol) ? { typed_extension_protocol_options: http2Options() } : {}),
    transport_socket: {
      name: 'tls', // Consul's name for it (the typed_config decides)
      typed_config: {
        '@type': ExtensionType.UpstreamTlsContext,
        sni: name,
        common_tls_context: {
          tls_params: { tls_minimum_protocol_version: 'TLSv1_2' },
          tls_certificate_sds_secret_configs: [sdsRef(leafSecret)],
          combined_validation_context: {
            default_validation_context: { match_typed_subject_alt_names: sans },
            validation_context_sds_secret_config: sdsRef(rootsSecret),
          },
          ...(alpn.length > 0 ? { alpn_protocols: alpn } : {}),
        },
      },
    },
  };
}

/** A mesh cluster's endpoints: the sidecars of its service (a subset: of the instances the subset selects), then its failover targets'. */
export function meshAssignment(plain: string, ctx: MeshContext): Plain {
  const { ref, subset, failover } = servicesOf(plain, ctx);
  const all = ctx.endpointsOf(ref.name);
  const selects = subset === undefined ? undefined : resolverSubsets(ctx.chain.resolvers.get(ref.name)).get(subset);
  return buildLoadAssignment({
    name: meshClusterName(plain, ctx.id.datacenter, ctx.id.trustDomain),
    instances: selects ? all.filter(selects) : all,
    failover: failover.map((target) => ({ target, instances: ctx.endpointsOf(target.ref.name) })),
    // Critical sidecars as UNHEALTHY endpoints, as Consul sends them (Envoy's panic mode, docs/xds.md).
    keepUnhealthy: true,
  });
}
