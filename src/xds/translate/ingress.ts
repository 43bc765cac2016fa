// Ingress-gateway listeners and their RouteConfigurations (docs/xds.md
// "Ingress gateways"). Per node: only an Envoy whose node.cluster
// (else node.id) names the gateway receives them, on its wildcard LDS.
import type { ConfigEntry } from '../../catalog/types';
import { ExtensionType } from './extension-types';
import { list, record, refOf, str } from './inputs';
import { httpConnectionManager, statPrefixOf } from './listener';
import { gatewayListenerName, type ServiceRef, serviceResourceName } from './names';

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
    const address = { socket_address: { address: '0.0.0.0', port_value: port } };
    if (protocol === 'tcp') {
      // tcp_proxy has one upstream: a tcp listener must list exactly one service.
      if (services.length !== 1) {
        result.skipped.push(`${name}: a tcp listener needs exactly one service, has ${services.length}`);
        continue;
      }
      const cluster = serviceResourceName(services[0]!.ref);
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
