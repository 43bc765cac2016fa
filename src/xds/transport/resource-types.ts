// One small strategy per xDS resource type: what the transport must know about
// a type without looking inside its resources.
import { PUSH_ORDER, TypeUrl, TypeUrlV2, type V3TypeUrl } from './type-urls';

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
}

function make(t: Omit<ResourceType, 'order'>): ResourceType {
  return { ...t, order: PUSH_ORDER.indexOf(t.typeUrl) };
}

export const Listeners = make({
  typeUrl: TypeUrl.Listener, v2TypeUrl: TypeUrlV2.Listener, short: 'LDS',
  sotwFullState: true, wildcardAllowed: true, waitsForClusters: true, rest: 'listeners',
});
export const Routes = make({
  typeUrl: TypeUrl.RouteConfiguration, v2TypeUrl: TypeUrlV2.RouteConfiguration, short: 'RDS',
  sotwFullState: false, wildcardAllowed: false, waitsForClusters: true, rest: 'routes',
});
export const Clusters = make({
  typeUrl: TypeUrl.Cluster, v2TypeUrl: TypeUrlV2.Cluster, short: 'CDS',
  sotwFullState: true, wildcardAllowed: true, waitsForClusters: false, rest: 'clusters',
});
export const Endpoints = make({
  typeUrl: TypeUrl.ClusterLoadAssignment, v2TypeUrl: TypeUrlV2.ClusterLoadAssignment, short: 'EDS',
  sotwFullState: false, wildcardAllowed: false, waitsForClusters: false, rest: 'endpoints',
});

export const Secrets = make({
  typeUrl: TypeUrl.Secret, v2TypeUrl: TypeUrlV2.Secret, short: 'SDS',
  sotwFullState: false, wildcardAllowed: false, waitsForClusters: false, rest: 'secrets',
});

/** Every type, in push order (CDS, EDS, LDS, RDS, SDS). */
export const RESOURCE_TYPES: readonly ResourceType[] = [Clusters, Endpoints, Listeners, Routes, Secrets].sort(
  (a, b) => a.order - b.order,
);

const byUrl = new Map<string, ResourceType>();
for (const t of RESOURCE_TYPES) {
  byUrl.set(t.typeUrl, t);
  byUrl.set(t.v2TypeUrl, t);
}

/** The strategy for a v3 or v2 type URL, or undefined for a type the hub does not serve. */
export function resourceTypeOf(typeUrl: string): ResourceType | undefined {
  return byUrl.get(typeUrl);
}
