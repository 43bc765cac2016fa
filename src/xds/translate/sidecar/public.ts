// A sidecar's inbound side (docs/mesh.md "What a sidecar gets"): the public
// listener on the proxy's address and port terminates mutual TLS (the
// service's leaf, client certificates required and checked against the trust
// bundle, both by SDS), applies the intentions (rbac.ts) and hands the traffic
// to the local app: through an HTTP connection manager for http, http2 and
// grpc (so L7 intentions apply and the app sees the caller in
// X-Forwarded-Client-Cert), else through tcp_proxy. `local_app` is the app's
// address as a static cluster.
import type { CheckServiceNode } from '../../../catalog/types';
import type { DestinationPolicy, IntentionAction } from '../../../connect/intentions';
import { Extension, ExtensionType } from '../extension-types';
import { durationOfMs, entryUint, record, str } from '../inputs';
import { LOCAL_APP, publicListenerName, sdsRef } from './names';
import { httpRbacFilter, type Identity, networkRbacFilter } from './rbac';

const DEFAULT_LOCAL_CONNECT_MS = 5_000;

export const isHttp = (protocol: string): boolean => protocol === 'http' || protocol === 'http2' || protocol === 'grpc';
export const isHttp2 = (protocol: string): boolean => protocol === 'http2' || protocol === 'grpc';

/** ALPN a mesh hop offers: h2 for http2/grpc services (Envoy picks the codec from it). */
export function alpnOf(protocol: string): string[] {
  return isHttp2(protocol) ? ['h2', 'http/1.1'] : protocol === 'http' ? ['http/1.1'] : [];
}

export function http2Options(): Record<string, unknown> {
  return {
    [Extension.HttpProtocolOptions]: {
      '@type': ExtensionType.HttpProtocolOptions,
      explicit_http_config: { http2_protocol_options: {} },
    },
  };
}

/** What Consul's HTTP connection managers carry besides routes and filters: websocket upgrades, tracing at 0% sampling. */
export const CONSUL_HCM_DEFAULTS = {
  tracing: { random_sampling: {} },
  upgrade_configs: [{ upgrade_type: 'websocket' }],
} as const;

export interface PublicInput {
  proxy: CheckServiceNode;
  /** The service the proxy fronts (its identity). */
  destination: string;
  protocol: string;
  policy: DestinationPolicy;
  fallback: IntentionAction;
  id: Identity;
  leafSecret: string;
  rootsSecret: string;
  /** Where the app listens: the proxy's LocalServiceAddress:LocalServicePort. */
  local: { address: string; port: number };
}

/** Proxy.Config, as registered. */
export function proxyConfig(proxy: CheckServiceNode): Record<string, unknown> {
  return record(record(proxy.Service.Proxy)?.['Config']) ?? {};
}

/** The proxy's public address and port: Config.bind_address/bind_port, else its service address (or 0.0.0.0, as Consul) and port. */
function publicAddress(proxy: CheckServiceNode): { address: string; port: number } {
  const cfg = proxyConfig(proxy);
  return {
    address: str(cfg['bind_address']) ?? (proxy.Service.Address || '0.0.0.0'),
    port: entryUint(cfg['bind_port']) || proxy.Service.Port,
  };
}

export function localAppCluster(input: Pick<PublicInput, 'proxy' | 'protocol' | 'local'>): Record<string, unknown> {
  const connectMs = entryUint(proxyConfig(input.proxy)['local_connect_timeout_ms']) ?? DEFAULT_LOCAL_CONNECT_MS;
  return {
    name: LOCAL_APP,
    type: 'STATIC',
    connect_timeout: durationOfMs(connectMs),
    load_assignment: {
      cluster_name: LOCAL_APP,
      endpoints: [
        {
          lb_endpoints: [
            {
              endpoint: { address: { socket_address: { address: input.local.address, port_value: input.local.port } } },
            },
          ],
        },
      ],
    },
    ...(isHttp2(input.protocol) ? { typed_extension_protocol_options: http2Options() } : {}),
  };
}

/** Mutual TLS as the answering end of a mesh hop: the service's leaf, a client certificate the trust bundle signed. */
export function downstreamTls(
  input: Pick<PublicInput, 'protocol' | 'leafSecret' | 'rootsSecret'>,
): Record<string, unknown> {
  const alpn = alpnOf(input.protocol);
  return {
    name: 'tls', // Consul's name for it (the typed_config decides)
    typed_config: {
      '@type': ExtensionType.DownstreamTlsContext,
      common_tls_context: {
        tls_params: { tls_minimum_protocol_version: 'TLSv1_2' },
        tls_certificate_sds_secret_configs: [sdsRef(input.leafSecret)],
        validation_context_sds_secret_config: sdsRef(input.rootsSecret),
        ...(alpn.length > 0 ? { alpn_protocols: alpn } : {}),
      },
      require_client_certificate: { value: true },
    },
  };
}

function appFilter(input: PublicInput): Record<string, unknown> {
  if (!isHttp(input.protocol)) {
    return {
      name: 'envoy.filters.network.tcp_proxy',
      typed_config: { '@type': ExtensionType.TcpProxy, stat_prefix: 'public_listener', cluster: LOCAL_APP },
    };
  }
  const timeoutMs = entryUint(proxyConfig(input.proxy)['local_request_timeout_ms']);
  return {
    name: 'envoy.filters.network.http_connection_manager',
    typed_config: {
      '@type': ExtensionType.HttpConnectionManager,
      stat_prefix: 'public_listener',
      codec_type: 'AUTO',
      route_config: {
        name: 'public_listener',
        virtual_hosts: [
          {
            name: 'public_listener',
            domains: ['*'],
            routes: [
              {
                match: { prefix: '/' },
                route: { cluster: LOCAL_APP, ...(timeoutMs !== undefined ? { timeout: durationOfMs(timeoutMs) } : {}) },
              },
            ],
          },
        ],
      },
      http_filters: [
        httpRbacFilter(input.policy, input.id, input.fallback),
        { name: 'envoy.filters.http.router', typed_config: { '@type': ExtensionType.Router } },
      ],
      ...CONSUL_HCM_DEFAULTS,
      // The app learns who called: the caller's SPIFFE ID (and certificate) in X-Forwarded-Client-Cert.
      forward_client_cert_details: 'APPEND_FORWARD',
      set_current_client_cert_details: { subject: { value: true }, cert: true, chain: true, dns: true, uri: true },
    },
  };
}

export function publicListener(input: PublicInput): Record<string, unknown> {
  const { address, port } = publicAddress(input.proxy);
  return {
    name: publicListenerName(address, port),
    address: { socket_address: { address, port_value: port } },
    traffic_direction: 'INBOUND',
    filter_chains: [
      {
        filters: [networkRbacFilter(input.policy, input.id, isHttp(input.protocol), input.fallback), appFilter(input)],
        transport_socket: downstreamTls(input),
      },
    ],
  };
}
