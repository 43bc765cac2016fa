// Every xDS type URL in one place.

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

const v2ToV3 = new Map<string, V3TypeUrl>([
  [TypeUrlV2.Listener, TypeUrl.Listener],
  [TypeUrlV2.RouteConfiguration, TypeUrl.RouteConfiguration],
  [TypeUrlV2.Cluster, TypeUrl.Cluster],
  [TypeUrlV2.ClusterLoadAssignment, TypeUrl.ClusterLoadAssignment],
  [TypeUrlV2.Secret, TypeUrl.Secret],
]);

/** The v3 type URL a v2 one stands for, or undefined when it is not a v2 resource type URL. */
export function v3TypeUrlOf(v2: string): V3TypeUrl | undefined {
  return v2ToV3.get(v2);
}

/** Make-before-break push order on ADS (X-ORDER-1): CDS, EDS, LDS, RDS, then SDS (secrets are asked for by name once a cluster or listener names them). */
export const PUSH_ORDER: readonly V3TypeUrl[] = [
  TypeUrl.Cluster,
  TypeUrl.ClusterLoadAssignment,
  TypeUrl.Listener,
  TypeUrl.RouteConfiguration,
  TypeUrl.Secret,
];
