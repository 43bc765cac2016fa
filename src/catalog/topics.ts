// Subscribe topics, numbered as Consul's pbsubscribe.Topic. Its own module so
// the config-kind registry (config-kinds.ts) and types.ts both import it without a cycle.

/** Subscribe topics, numbered as Consul's pbsubscribe.Topic. */
export enum Topic {
  Unknown = 0,
  ServiceHealth = 1,
  ServiceHealthConnect = 2,
  MeshConfig = 3,
  ServiceResolver = 4,
  IngressGateway = 5,
  ServiceIntentions = 6,
  ServiceList = 7,
  ServiceDefaults = 8,
  HTTPRoute = 11,
  /** xdshub extension: Consul streams no router or splitter entries (docs/subscribe.md). */
  ServiceRouter = 1001,
  ServiceSplitter = 1002,
  /** xdshub extension: Consul streams no proxy-defaults entry either. */
  ProxyDefaults = 1010,
  /** xdshub extension: Consul streams no terminating-gateway entry either. */
  TerminatingGateway = 1011,
}
