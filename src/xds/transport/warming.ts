// X-WARM-2 needs to know which clusters a RouteConfiguration points at. Decoded
// once per resource content (the cache is keyed by the shared resource object).
import type { XdsResource } from './provider';
import { lookupType } from './envoy-proto';

const cache = new WeakMap<XdsResource, readonly string[]>();

type Plain = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Cluster names a route configuration's routes send traffic to (cluster and weighted_clusters). */
export function routeClusters(res: XdsResource): readonly string[] {
  let names = cache.get(res);
  if (names) return names;
  const t = lookupType('envoy.config.route.v3.RouteConfiguration');
  const rc = t.toObject(t.decode(res.encoded), { arrays: true }) as Plain;
  const out = new Set<string>();
  for (const vh of rc.virtualHosts ?? []) {
    for (const r of vh.routes ?? []) {
      const action = r.route as Plain | undefined;
      if (!action) continue;
      if (action.cluster) out.add(action.cluster);
      for (const wc of action.weightedClusters?.clusters ?? []) if (wc.name) out.add(wc.name);
    }
  }
  names = [...out];
  cache.set(res, names);
  return names;
}
