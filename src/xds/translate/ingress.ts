// Ingress-gateway listeners and their RouteConfigurations (docs/xds.md
// "Ingress gateways"). Per node: only an Envoy whose node.cluster
// (else node.id) names the gateway receives them, on its wildcard LDS.
import type { CheckServiceNode, ConfigEntry } from '../../catalog/types';
import { chainRoutes, resolveTarget } from './chain';
import { ExtensionType } from './extension-types';
import { list, record, refOf, str } from './inputs';
import { httpConnectionManager, statPrefixOf } from './listener';
import { gatewayListenerName, type ServiceRef, serviceResourceName } from './names';
import { meshClusterName } from './sidecar/names';
import { type MeshContext, meshRoutes } from './sidecar/upstream';

export interface GatewayResources {
  /** Listener name → plain Listener. */
  listeners: Map<string, Record<string, unknown>>;
  /** RouteConfiguration name → plain RouteConfiguration (http listeners only). */
  routes: Map<string, Record<string, unknown>>;
  /** Listeners left out, with why (for logs and the admin page). */
  skipped: string[];
}

export interface IngressContext {
  /** Every known service, for a `*` service entry. */
  services: readonly ServiceRef[];
  /** The route list of a service (route.ts routesForService). */
  routesFor(service: ServiceRef): Record<string, unknown>[];
  /** The cluster a tcp listener sends to; the service's own resource name when absent. */
  tcpCluster?(service: ServiceRef): string;
  /** The address listeners bind: the gateway's registered address (Consul's), else 0.0.0.0. */
  address?: string;
}

/** The services a gateway listener lists, `*` expanded to every service but the gateway itself. */
function listenerServices(gateway: string, listener: Record<string, unknown>, ctx: IngressContext) {
  const out: { ref: ServiceRef; hosts: string[] }[] = [];
  for (const s of list(listener['Services']).map(record)) {
    if (!s) continue;
    const hosts = list(s['Hosts']).filter((h): h is string => typeof h === 'string' && h !== '');
    if (str(s['Name']) === '*') {
      for (const ref of ctx.services) if (ref.name !== gateway) out.push({ ref, hosts: [] });
      continue;
    }
    const ref = refOf(s);
    if (ref) out.push({ ref, hosts });
  }
  return out;
}

/** Listeners and routes of one ingress-gateway entry. */
export function buildGateway(entry: ConfigEntry, ctx: IngressContext): GatewayResources {
  const result: GatewayResources = { listeners: new Map(), routes: new Map(), skipped: [] };
  const gateway = entry.Name;
  for (const l of list(entry['Listeners']).map(record)) {
    const port = l?.['Port'];
    if (!l || typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
      result.skipped.push(`${gateway}: listener without a valid Port`);
      continue;
    }
    const name = gatewayListenerName(gateway, port);
    const protocol = (str(l['Protocol']) ?? 'tcp').toLowerCase();
    const services = listenerServices(gateway, l, ctx);
    const address = { socket_address: { address: ctx.address || '0.0.0.0', port_value: port } };
    if (protocol === 'tcp') {
      // tcp_proxy has one upstream: a tcp listener must list exactly one service.
      if (services.length !== 1) {
        result.skipped.push(`${name}: a tcp listener needs exactly one service, has ${services.length}`);
        continue;
      }
      const ref = services[0]!.ref;
      const cluster = ctx.tcpCluster ? ctx.tcpCluster(ref) : serviceResourceName(ref);
      result.listeners.set(name, {
        name,
        address,
        filter_chains: [
          {
            filters: [
              {
                name: 'envoy.filters.network.tcp_proxy',
                typed_config: {
                  '@type': ExtensionType.TcpProxy,
                  stat_prefix: statPrefixOf(`ingress_${name}`),
                  cluster,
                },
              },
            ],
          },
        ],
      });
      continue;
    }
    // http, http2 and grpc all terminate in an HCM (codec AUTO speaks h2c too).
    result.listeners.set(name, {
      name,
      address,
      filter_chains: [
        {
          filters: [
            {
              name: 'envoy.filters.network.http_connection_manager',
              // Hosts are matched without the port (a "*:port" domain would put a wildcard mid-pattern).
              typed_config: {
                ...httpConnectionManager(name, statPrefixOf(`ingress_${name}`)),
                strip_any_host_port: true,
              },
            },
          ],
        },
      ],
    });
    const used = new Set<string>();
    const virtualHosts: Record<string, unknown>[] = [];
    for (const { ref, hosts } of services) {
      const vhName = serviceResourceName(ref);
      if (virtualHosts.some((v) => v['name'] === vhName)) continue;
      const wanted = hosts.length > 0 ? hosts : [`${ref.name}.ingress.*`];
      // Envoy rejects a domain listed twice in one RouteConfiguration: first service wins.
      const domains = wanted.filter((d) => !used.has(d));
      if (domains.length === 0) continue;
      domains.forEach((d) => used.add(d));
      virtualHosts.push({ name: vhName, domains, routes: ctx.routesFor(ref) });
    }
    result.routes.set(name, { name, virtual_hosts: virtualHosts });
  }
  return result;
}

/** What a registered ingress gateway's own Envoy gets (docs/gateways.md "Ingress gateways"). */
export interface IngressProxyOutput extends GatewayResources {
  /** Chain clusters (plain names) its listeners send to: their mesh clusters use the gateway's leaf. */
  clusters: Set<string>;
}

/**
 * The listeners and routes of the ingress-gateway entry named after a registered
 * gateway, as Consul's: bound on the gateway's registered address, each route and
 * tcp listener sending to the mesh cluster of its target (mutual TLS to the
 * target's sidecars, as a sidecar's upstream), so the target's intentions apply
 * with the gateway as the source.
 */
export function buildIngressProxy(
  gateway: CheckServiceNode,
  entry: ConfigEntry | undefined,
  services: () => readonly ServiceRef[],
  mesh: MeshContext,
): IngressProxyOutput {
  const clusters = new Set<string>();
  if (!entry) {
    return { listeners: new Map(), routes: new Map(), skipped: [`${gateway.Service.Service}: no entry`], clusters };
  }
  const address = gateway.Service.Address || gateway.Node.Address || '0.0.0.0';
  const out = buildGateway(entry, {
    get services() {
      return services();
    },
    address,
    routesFor: (ref) => meshRoutes(chainRoutes(ref, mesh.chain, 'envoy'), mesh, clusters),
    tcpCluster: (ref) => {
      const target = resolveTarget(ref, undefined, mesh.chain).cluster;
      clusters.add(target);
      return meshClusterName(target, mesh.id.datacenter, mesh.id.trustDomain);
    },
  });
  return { ...out, clusters };
}
