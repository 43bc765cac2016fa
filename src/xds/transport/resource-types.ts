// One small strategy per xDS resource type: what the transport must know about
// a type without looking inside its resources. This is the registry of types:
// the v2 → v3 type URL map, the push order and the per-type gRPC services
// (services.ts) derive from it, and test/xds/transport/units.test.ts checks
// that every entry is whole (distinct order, services, REST name).
import { TypeUrl, TypeUrlV2, type V3TypeUrl } from './type-urls';

export interface ResourceType {
  readonly typeUrl: V3TypeUrl;
  /** The legacy v2 type URL for the same message. */
  readonly v2TypeUrl: string;
  /** Short name for logs, metrics and the admin page. */
  readonly short: 'LDS' | 'RDS' | 'CDS' | 'EDS' | 'SDS';
  /** SotW responses must carry the whole subscribed set (X-RESP-2). */
  readonly sotwFullState: boolean;
  /** `*` and the legacy empty list mean "everything" (X-SUB-3). */
  readonly wildcardAllowed: boolean;
  /** Position in the make-before-break order (X-ORDER-1), 0 first. */
  readonly order: number;
  /** Pushes of this type wait on ADS while cluster/endpoint pushes are un-ACKed (X-ORDER-2). */
  readonly waitsForClusters: boolean;
  /** REST path segment: POST /v3/discovery:<rest>. */
  readonly rest: 'listeners' | 'routes' | 'clusters' | 'endpoints' | 'secrets';
  /** The per-type gRPC services (Stream/Delta/Fetch<noun>): v3, and legacy v2 where Envoy had one. */
  readonly services: { readonly v3: string; readonly v2?: string; readonly noun: string };
}

const make = (t: ResourceType): ResourceType => t;

export const Listeners = make({
  typeUrl: TypeUrl.Listener,
  v2TypeUrl: TypeUrlV2.Listener,
  short: 'LDS',
  order: 2,
  sotwFullState: true,
  wildcardAllowed: true,
  waitsForClusters: true,
  rest: 'listeners',
  services: {
    v3: 'envoy.service.listener.v3.ListenerDiscoveryService',
    v2: 'envoy.api.v2.ListenerDiscoveryService',
    noun: 'Listeners',
  },
});
export const Routes = make({
  typeUrl: TypeUrl.RouteConfiguration,
  v2TypeUrl: TypeUrlV2.RouteConfiguration,
  short: 'RDS',
  order: 3,
  sotwFullState: false,
  wildcardAllowed: false,
  waitsForClusters: true,
  rest: 'routes',
  services: {
    v3: 'envoy.service.route.v3.RouteDiscoveryService',
    v2: 'envoy.api.v2.RouteDiscoveryService',
    noun: 'Routes',
  },
});
export const Clusters = make({
  typeUrl: TypeUrl.Cluster,
  v2TypeUrl: TypeUrlV2.Cluster,
  short: 'CDS',
  order: 0,
  sotwFullState: true,
  wildcardAllowed: true,
  waitsForClusters: false,
  rest: 'clusters',
  services: {
    v3: 'envoy.service.cluster.v3.ClusterDiscoveryService',
    v2: 'envoy.api.v2.ClusterDiscoveryService',
    noun: 'Clusters',
  },
});
export const Endpoints = make({
  typeUrl: TypeUrl.ClusterLoadAssignment,
  v2TypeUrl: TypeUrlV2.ClusterLoadAssignment,
  short: 'EDS',
  order: 1,
  sotwFullState: false,
  wildcardAllowed: false,
  waitsForClusters: false,
  rest: 'endpoints',
  services: {
    v3: 'envoy.service.endpoint.v3.EndpointDiscoveryService',
    v2: 'envoy.api.v2.EndpointDiscoveryService',
    noun: 'Endpoints',
  },
});

export const Secrets = make({
  typeUrl: TypeUrl.Secret,
  v2TypeUrl: TypeUrlV2.Secret,
  short: 'SDS',
  order: 4,
  sotwFullState: false,
  wildcardAllowed: false,
  waitsForClusters: false,
  rest: 'secrets',
  // No legacy v2 SDS service here: v2 secrets go over v2 ADS.
  services: { v3: 'envoy.service.secret.v3.SecretDiscoveryService', noun: 'Secrets' },
});

/**
 * Every type, in make-before-break push order on ADS (X-ORDER-1): CDS, EDS,
 * LDS, RDS, then SDS (secrets are asked for by name once a cluster or listener
 * names them).
 */
export const RESOURCE_TYPES: readonly ResourceType[] = [Clusters, Endpoints, Listeners, Routes, Secrets].sort(
  (a, b) => a.order - b.order,
);

const byUrl = new Map<string, ResourceType>();
for (const t of RESOURCE_TYPES) {
  byUrl.set(t.typeUrl, t);
  byUrl.set(t.v2TypeUrl, t);
}

/** The v3 type URL a v2 one stands for, or undefined when it is not a v2 resource type URL. */
export function v3TypeUrlOf(v2: string): V3TypeUrl | undefined {
  const type = byUrl.get(v2);
  return type !== undefined && type.v2TypeUrl === v2 ? type.typeUrl : undefined;
}

/** The strategy for a v3 or v2 type URL, or undefined for a type the hub does not serve. */
export function resourceTypeOf(typeUrl: string): ResourceType | undefined {
  return byUrl.get(typeUrl);
}
