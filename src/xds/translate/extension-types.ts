// Message names of the Envoy extensions the translation puts inside an Any
// (`typed_config`, `typed_extension_protocol_options`, transport sockets): one
// spelling for every translator. `typeUrlOf` gives the Any's `@type`.

export const Extension = {
  HttpConnectionManager: 'envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
  Router: 'envoy.extensions.filters.http.router.v3.Router',
  TcpProxy: 'envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy',
  NetworkRbac: 'envoy.extensions.filters.network.rbac.v3.RBAC',
  HttpRbac: 'envoy.extensions.filters.http.rbac.v3.RBAC',
  HttpProtocolOptions: 'envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
  DownstreamTlsContext: 'envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext',
  UpstreamTlsContext: 'envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext',
  TlsInspector: 'envoy.extensions.filters.listener.tls_inspector.v3.TlsInspector',
} as const;

/** The Any type URL of a message name. */
const typeUrlOf = (message: string): string => `type.googleapis.com/${message}`;

/** Type URLs of the extensions, as the Any's `@type`. */
export const ExtensionType = {
  HttpConnectionManager: typeUrlOf(Extension.HttpConnectionManager),
  Router: typeUrlOf(Extension.Router),
  TcpProxy: typeUrlOf(Extension.TcpProxy),
  NetworkRbac: typeUrlOf(Extension.NetworkRbac),
  HttpRbac: typeUrlOf(Extension.HttpRbac),
  HttpProtocolOptions: typeUrlOf(Extension.HttpProtocolOptions),
  DownstreamTlsContext: typeUrlOf(Extension.DownstreamTlsContext),
  UpstreamTlsContext: typeUrlOf(Extension.UpstreamTlsContext),
  TlsInspector: typeUrlOf(Extension.TlsInspector),
} as const;
