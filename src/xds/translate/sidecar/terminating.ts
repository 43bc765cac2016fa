// A terminating gateway's own resources (docs/gateways.md "Terminating gateways"):
// the gateway answers mesh traffic for the services a `terminating-gateway`
// entry links, which run outside the mesh. One listener on the gateway's
// registered address and port; a TLS inspector reads the SNI the caller's
// sidecar sends (the linked service's mesh cluster name) and picks that
// service's filter chain, which terminates mutual TLS with the linked
// service's leaf (the caller checks it for the service's SPIFFE ID, as it
// would a sidecar's), applies the service's intentions and forwards in
// plaintext (or over TLS, with the entry's CAFile and optional client
// certificate) to a cluster of the service's own healthy instances. Sidecars
// reach a linked service through the gateway: its instances are endpoints of
// the service's mesh clusters (sidecars.ts).
import type { CheckServiceNode, ConfigEntry } from '../../../catalog/types';
import type { DestinationPolicy, IntentionAction } from '../../../connect/intentions';
import { buildLoadAssignment } from '../endpoints';
import { ExtensionType } from '../extension-types';
import { durationOfMs, isIpLiteral, list, protocolOf, record, str } from '../inputs';
import { leafSecretName, meshClusterName, rootsSecretName } from './names';
import { CONSUL_HCM_DEFAULTS, downstreamTls, http2Options, isHttp, isHttp2 } from './public';
import { httpRbacFilter, networkRbacFilter } from './rbac';
import type { MeshContext } from './upstream';

type Plain = Record<string, unknown>;

const CONNECT_TIMEOUT_MS = 5_000;

/** One service a terminating-gateway entry links. */
export interface LinkedService {
  name: string;
  /** Consul's DisableAutoHostRewrite: keep the caller's Host header for services reached by DNS name. */
  disableAutoHostRewrite: boolean;
  /** TLS origination: the CA file (on the gateway's machine) the service's certificate must chain to. */
  caFile?: string;
  /** A client certificate and key (files) the gateway presents to the service. */
  certFile?: string;
  keyFile?: string;
  /** The SNI the gateway sends to the service. */
  sni?: string;
}

const TLS_FIELDS = [
  ['caFile', 'CAFile'],
  ['certFile', 'CertFile'],
  ['keyFile', 'KeyFile'],
  ['sni', 'SNI'],
] as const;

function linkedOf(raw: Record<string, unknown> | undefined, name: string): LinkedService {
  const out: LinkedService = { name, disableAutoHostRewrite: raw?.['DisableAutoHostRewrite'] === true };
  for (const [key, field] of TLS_FIELDS) {
    const v = str(raw?.[field]);
    if (v) out[key] = v;
  }
  return out;
}

/**
 * Gateway name → the services its entry links, from every terminating-gateway entry. A `*` entry
 * links what `outside(gateway)` lists (services outside the mesh), with its own TLS settings;
 * a service named on its own keeps its own.
 */
export function linkedServices(
  entries: readonly ConfigEntry[],
  outside: (gateway: string) => readonly string[],
): Map<string, LinkedService[]> {
  const out = new Map<string, LinkedService[]>();
  for (const e of entries) {
    const raws = list(e['Services']).map(record);
    const named = new Map<string, LinkedService>();
    for (const raw of raws) {
      const name = str(raw?.['Name']);
      if (name && name !== '*') named.set(name, linkedOf(raw, name));
    }
    const wildcard = raws.find((raw) => str(raw?.['Name']) === '*');
    if (wildcard) for (const name of outside(e.Name)) if (!named.has(name)) named.set(name, linkedOf(wildcard, name));
    out.set(
      e.Name,
      [...named.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    );
  }
  return out;
}

export interface TerminatingInput {
  gateway: CheckServiceNode;
  linked: readonly LinkedService[];
  /** A linked service's own instances (no proxies, no gateways). */
  instancesOf(service: string): readonly CheckServiceNode[];
  ctx: MeshContext;
  policyOf(destination: string): DestinationPolicy;
  fallback: IntentionAction;
}

export interface TerminatingOutput {
  listeners: Map<string, Plain>;
  clusters: Map<string, Plain>;
}

/** The listener's name, as Consul names a gateway's: `default:<address>:<port>`. */
export function terminatingListenerName(address: string, port: number): string {
  return `default:${address}:${port}`;
}

const addressOf = (c: CheckServiceNode): string => c.Service.Address || c.Node.Address;

function appFilter(service: LinkedService, protocol: string, cluster: string, dns: boolean, input: TerminatingInput) {
  const { ctx } = input;
  const statPrefix = `terminating_gateway.${service.name}.default.default.${ctx.id.datacenter}`;
  if (!isHttp(protocol)) {
    return {
      name: 'envoy.filters.network.tcp_proxy',
      typed_config: { '@type': ExtensionType.TcpProxy, stat_prefix: statPrefix, cluster },
    };
  }
  const rewrite = dns && !service.disableAutoHostRewrite;
  return {
    name: 'envoy.filters.network.http_connection_manager',
    typed_config: {
      '@type': ExtensionType.HttpConnectionManager,
      stat_prefix: statPrefix,
      codec_type: 'AUTO',
      route_config: {
        name: cluster,
        virtual_hosts: [
          {
            name: cluster,
            domains: ['*'],
            routes: [{ match: { prefix: '/' }, route: { cluster, ...(rewrite ? { auto_host_rewrite: true } : {}) } }],
          },
        ],
      },
      http_filters: [
        httpRbacFilter(input.policyOf(service.name), ctx.id, input.fallback),
        { name: 'envoy.filters.http.router', typed_config: { '@type': ExtensionType.Router } },
      ],
      ...CONSUL_HCM_DEFAULTS,
    },
  };
}

/** TLS from the gateway to the linked service (Consul's CAFile, CertFile/KeyFile, SNI), Envoy reading the files. */
function originateTls(service: LinkedService): Plain | undefined {
  if (!service.caFile) return undefined;
  const certificate =
    service.certFile && service.keyFile
      ? {
          tls_certificates: [
            { certificate_chain: { filename: service.certFile }, private_key: { filename: service.keyFile } },
          ],
        }
      : {};
  return {
    name: 'tls',
    typed_config: {
      '@type': ExtensionType.UpstreamTlsContext,
      ...(service.sni ? { sni: service.sni } : {}),
      common_tls_context: { validation_context: { trusted_ca: { filename: service.caFile } }, ...certificate },
    },
  };
}

/** The cluster of a linked service's instances: static addresses, or DNS names Envoy resolves (STRICT_DNS). */
function serviceCluster(
  name: string,
  protocol: string,
  service: LinkedService,
  instances: readonly CheckServiceNode[],
): { cluster: Plain; dns: boolean } {
  const dns = instances.some((c) => !isIpLiteral(addressOf(c)));
  const tls = originateTls(service);
  const cluster = {
    name,
    type: dns ? 'STRICT_DNS' : 'STATIC',
    connect_timeout: durationOfMs(CONNECT_TIMEOUT_MS),
    load_assignment: buildLoadAssignment({ name, instances }),
    alt_stat_name: name,
    ...(isHttp2(protocol) ? { typed_extension_protocol_options: http2Options() } : {}),
    ...(tls ? { transport_socket: tls } : {}),
  };
  return { cluster, dns };
}

export function buildTerminating(input: TerminatingInput): TerminatingOutput {
  const { gateway, ctx } = input;
  const td = ctx.id.trustDomain;
  const dc = ctx.id.datacenter;
  const listeners = new Map<string, Plain>();
  const clusters = new Map<string, Plain>();
  const chains: Plain[] = [];
  for (const service of input.linked) {
    const protocol = protocolOf(ctx.defaults.get(service.name), ctx.central.proxyDefaults).toLowerCase();
    // The gateway's cluster is named as the callers' mesh cluster and its SNI, as in Consul.
    const name = meshClusterName(service.name, dc, td);
    const { cluster, dns } = serviceCluster(name, protocol, service, input.instancesOf(service.name));
    clusters.set(name, cluster);
    chains.push({
      filter_chain_match: { server_names: [name] },
      filters: [
        networkRbacFilter(input.policyOf(service.name), ctx.id, isHttp(protocol), input.fallback),
        appFilter(service, protocol, name, dns, input),
      ],
      transport_socket: downstreamTls({
        protocol,
        leafSecret: leafSecretName(td, dc, service.name),
        rootsSecret: rootsSecretName(td),
      }),
    });
  }
  // Envoy refuses a listener without filter chains: a gateway that links nothing listens on nothing.
  if (chains.length > 0) {
    const address = gateway.Service.Address || '0.0.0.0';
    const port = gateway.Service.Port;
    const name = terminatingListenerName(address, port);
    listeners.set(name, {
      name,
      address: { socket_address: { address, port_value: port } },
      listener_filters: [
        { name: 'envoy.filters.listener.tls_inspector', typed_config: { '@type': ExtensionType.TlsInspector } },
      ],
      filter_chains: chains,
    });
  }
  return { listeners, clusters };
}
