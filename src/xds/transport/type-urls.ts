// Every xDS type URL in one place. What the hub knows about each type (its v2
// twin, services, push order) is its strategy object in resource-types.ts.

const V3 = 'type.googleapis.com/envoy.config.';
export const TypeUrl = {
  Listener: `${V3}listener.v3.Listener`,
  RouteConfiguration: `${V3}route.v3.RouteConfiguration`,
  Cluster: `${V3}cluster.v3.Cluster`,
  ClusterLoadAssignment: `${V3}endpoint.v3.ClusterLoadAssignment`,
  /** SDS: certificates and trust bundles (docs/mesh.md). */
  Secret: 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret',
  /** SotW wrapper carrying ttl / heartbeats (X-TTL-3). */
  Resource: 'type.googleapis.com/envoy.service.discovery.v3.Resource',
} as const;

/** Legacy v2 (envoy.api.v2) type URLs: the same messages with the same field numbers (docs/xds-transport.md, "Legacy v2"). */
const V2 = 'type.googleapis.com/envoy.api.v2.';
export const TypeUrlV2 = {
  Listener: `${V2}Listener`,
  RouteConfiguration: `${V2}RouteConfiguration`,
  Cluster: `${V2}Cluster`,
  ClusterLoadAssignment: `${V2}ClusterLoadAssignment`,
  Secret: `${V2}auth.Secret`,
} as const;

export type V3TypeUrl = (typeof TypeUrl)[Exclude<keyof typeof TypeUrl, 'Resource'>];
