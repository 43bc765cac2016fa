// Rule module: warming (X-WARM-1/2; docs/xds-rules.md). Pure: (stream state,
// what was just sent or is about to be) → new stream state, or whether a route
// may go. A Cluster finishes warming only when its ClusterLoadAssignment
// arrives, so a sent or changed Cluster brings its assignment again; a route
// must not point at a cluster the client does not hold yet.
//
// X-WARM-2 needs the clusters a RouteConfiguration points at: the one place
// the transport looks inside a resource. Read straight from the encoded bytes
// (a walk over five field numbers, no schema to load) once per resource
// content: a cache keyed by the shared resource object.
import type { ResourceSet, XdsResource } from '../provider';
import { Clusters, Endpoints, type ResourceType, Routes } from '../resource-types';
import { markChanged, type StreamState, type TypeState, typeWith, withNames, withType } from '../stream-state';
import { eachField } from '../wire';
import { covers } from './subscription';

const cache = new WeakMap<XdsResource, readonly string[]>();

const text = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.length).toString('utf8');

/**
 * Cluster names a route configuration's routes send traffic to:
 * RouteConfiguration.virtual_hosts (2) → VirtualHost.routes (3) → Route.route (2)
 * → RouteAction.cluster (1) and RouteAction.weighted_clusters (3) →
 * WeightedCluster.clusters (1) → ClusterWeight.name (1).
 */
export function routeClusters(res: XdsResource): readonly string[] {
  let names = cache.get(res);
  if (names) return names;
  const out = new Set<string>();
  eachField(res.encoded, 2, (vh) =>
    eachField(vh, 3, (route) =>
      eachField(route, 2, (action) => {
        eachField(action, 1, (c) => out.add(text(c)));
        eachField(action, 3, (wc) => eachField(wc, 1, (cw) => eachField(cw, 1, (n) => out.add(text(n)))));
      }),
    ),
  );
  names = [...out].filter((n) => n !== '');
  cache.set(res, names);
  return names;
}

/**
 * X-WARM-2: for a client with a wildcard CDS subscription on ADS (Envoy), a
 * route may go only when every cluster it names that the client's CDS
 * subscription will bring is one the client holds. By-name CDS clients
 * (proxyless gRPC) learn which clusters to ask for from the route: no check.
 */
export function routeGate(
  s: StreamState,
  type: ResourceType,
  clusters: () => ResourceSet,
): ((res: XdsResource) => boolean) | undefined {
  const cds = s.types.get(Clusters.typeUrl);
  if (s.transport !== 'ads' || type !== Routes || !cds?.sub.wildcard) return undefined;
  const set = clusters();
  return (res) => routeClusters(res).every((c) => !covers(cds.sub, set, c) || cds.acked.has(c));
}

/**
 * X-WARM-1: after a CDS response, each Cluster in it that the client did not
 * already hold at that version gets its ClusterLoadAssignment (same name) again,
 * even if unchanged — when the client subscribes to it on this stream (ADS).
 */
export function warmEndpoints(
  s: StreamState,
  cds: TypeState,
  sent: ReadonlyMap<string, string | null>,
  endpoints: () => ResourceSet,
): StreamState {
  const eds = s.types.get(Endpoints.typeUrl);
  if (!eds) return s;
  const set = endpoints();
  const names: string[] = [];
  for (const [name, version] of sent) {
    if (version === null || cds.acked.get(name) === version || !covers(eds.sub, set, name)) continue;
    names.push(name);
  }
  if (names.length === 0) return s;
  let next = markChanged(eds, names);
  next =
    s.variant === 'sotw' ? typeWith(next, { forceAll: true }) : typeWith(next, { force: withNames(next.force, names) });
  return withType(s, next);
}
