// Listener `S` for proxyless gRPC (docs/xds.md): an API listener whose
// HttpConnectionManager fetches RouteConfiguration `S` over ADS. SotW: full
// state. Never part of a wildcard subscription: gRPC always names it
// (`xds:///S`), and an Envoy must not be handed API listeners.
import { ExtensionType } from './extension-types';

/**
 * An HttpConnectionManager that takes its routes over ADS. Exactly one http
 * filter, the router, last: grpc-js-xds NACKs anything else, C-core NACKs an
 * empty filter list, and Envoy requires a non-empty stat_prefix.
 */
export function httpConnectionManager(routeConfigName: string, statPrefix: string): Record<string, unknown> {
  return {
    '@type': ExtensionType.HttpConnectionManager,
    stat_prefix: statPrefix,
    rds: { route_config_name: routeConfigName, config_source: { ads: {}, resource_api_version: 'V3' } },
    http_filters: [{ name: 'envoy.filters.http.router', typed_config: { '@type': ExtensionType.Router } }],
  };
}

/** Envoy stat prefixes allow only a safe charset; anything else becomes '_'. */
export function statPrefixOf(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]/g, '_') || 'xdshub';
}

/** The API listener `name` (routes from RouteConfiguration `name`) as a plain object. */
export function buildApiListener(name: string): Record<string, unknown> {
  return {
    name,
    api_listener: { api_listener: httpConnectionManager(name, statPrefixOf(name)) },
  };
}
