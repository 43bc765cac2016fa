// The subscriptions a change makes a node take or drop. xDS clients follow
// references: a proxyless gRPC client names its Listener, then the
// RouteConfiguration the Listener names, then the Clusters the routes name
// (and an aggregate cluster's children), then each EDS cluster's
// ClusterLoadAssignment; an Envoy takes Clusters and Listeners by wildcard and
// follows the same references to RDS and EDS. Walking those references in the
// state before and after a change, from what the node holds by wildcard and
// the Listeners it names, gives the names it will newly subscribe to (with
// what they would contain) and the ones it will drop. docs/operator-tools.md,
// "Subscriptions a change triggers".
import type { XdsResource } from '../xds/transport/provider';
import { coveredNames } from '../xds/transport/rules/subscription';
import { type Coverage, type NodeSets, resourceJson, SHOWN_TYPES, type TypeRest } from './diff';

type Json = Record<string, unknown>;

export interface NameRef {
  type: TypeRest;
  name: string;
}

/** A resource a node will newly subscribe to: what it would receive, or null (the hub has no such resource). */
export interface SubscribedResource extends NameRef {
  version: string | null;
  resource: Json | null;
}

export interface SubscriptionChange {
  subscribes: SubscribedResource[];
  unsubscribes: NameRef[];
}

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every object inside `v` (itself included). */
function* objects(v: unknown): Generator<Json> {
  if (Array.isArray(v)) for (const x of v) yield* objects(x);
  else if (isObj(v)) {
    yield v;
    for (const x of Object.values(v)) yield* objects(x);
  }
}

/** The names a resource makes a client subscribe to (proto3 JSON as resourceJson gives it). */
function referencesIn(type: TypeRest, r: Json): NameRef[] {
  const out: NameRef[] = [];
  if (type === 'listeners') {
    // HttpConnectionManager.rds, in an API listener or in any filter chain.
    for (const o of objects(r))
      if (isObj(o['rds']) && typeof o['rds']['routeConfigName'] === 'string')
        out.push({ type: 'routes', name: o['rds']['routeConfigName'] });
  } else if (type === 'routes') {
    for (const o of objects(r)) {
      const action = o['route'];
      if (!isObj(action)) continue;
      if (typeof action['cluster'] === 'string') out.push({ type: 'clusters', name: action['cluster'] });
      const weighted = isObj(action['weightedClusters']) ? action['weightedClusters']['clusters'] : undefined;
      if (Array.isArray(weighted))
        for (const w of weighted)
          if (isObj(w) && typeof w['name'] === 'string') out.push({ type: 'clusters', name: w['name'] });
    }
  } else if (type === 'clusters') {
    if (r['type'] === 'EDS') {
      const service = isObj(r['edsClusterConfig']) ? r['edsClusterConfig']['serviceName'] : undefined;
      out.push({ type: 'endpoints', name: typeof service === 'string' && service ? service : String(r['name']) });
    }
    // An aggregate cluster (envoy.clusters.aggregate) names its children.
    const config = isObj(r['clusterType']) ? r['clusterType']['typedConfig'] : undefined;
    if (isObj(config) && Array.isArray(config['clusters']))
      for (const c of config['clusters']) if (typeof c === 'string') out.push({ type: 'clusters', name: c });
  }
  return out;
}

const refsMemo = new WeakMap<XdsResource, NameRef[]>();
function references(type: TypeRest, res: XdsResource): NameRef[] {
  let refs = refsMemo.get(res);
  if (!refs) refsMemo.set(res, (refs = referencesIn(type, resourceJson(res))));
  return refs;
}

type Names = Record<TypeRest, Set<string>>;
const emptyNames = (): Names => ({
  clusters: new Set(),
  endpoints: new Set(),
  listeners: new Set(),
  routes: new Set(),
});

/** Per type: does the node take it by wildcard, and which names does it subscribe to. */
function subscribed(coverage: NonNullable<Coverage>): { wildcard: Set<TypeRest>; names: Names } {
  const wildcard = new Set<TypeRest>();
  const names = emptyNames();
  for (const t of SHOWN_TYPES) {
    for (const sub of coverage[t.rest] ?? []) {
      if (sub.wildcard) wildcard.add(t.rest);
      for (const n of sub.names) if (n !== '*') names[t.rest].add(n);
    }
  }
  return { wildcard, names };
}

/**
 * What a client following references asks for by name in `sets`: from what its
 * wildcard subscriptions cover (a wildcard never covers API listeners or
 * departed services) and the Listeners it names.
 */
function reachable(sets: NodeSets, coverage: NonNullable<Coverage>, wildcard: ReadonlySet<TypeRest>, names: Names) {
  const out = emptyNames();
  const queue: NameRef[] = [];
  const visit = (ref: NameRef) => {
    if (out[ref.type].has(ref.name)) return;
    out[ref.type].add(ref.name);
    queue.push(ref);
  };
  for (const t of wildcard)
    for (const sub of coverage[t] ?? []) for (const name of coveredNames(sub, sets[t])) visit({ type: t, name });
  for (const name of names.listeners) visit({ type: 'listeners', name });
  for (let ref = queue.shift(); ref; ref = queue.shift()) {
    const res = sets[ref.type].byName.get(ref.name);
    if (res) for (const r of references(ref.type, res)) visit(r);
  }
  return out;
}

/**
 * The names a connected node will subscribe to and drop when its sets move
 * from `before` to `after`: per type it does not take by wildcard, the names
 * reachable after that were neither reachable before nor subscribed now, and
 * the names subscribed now, reachable before and no longer after. Offline nodes (no coverage) get
 * everything: nothing to predict.
 */
export function subscriptionChange(before: NodeSets, after: NodeSets, coverage: Coverage): SubscriptionChange {
  const change: SubscriptionChange = { subscribes: [], unsubscribes: [] };
  if (coverage === undefined) return change;
  const { wildcard, names } = subscribed(coverage);
  const then = reachable(before, coverage, wildcard, names);
  const next = reachable(after, coverage, wildcard, names);
  for (const t of SHOWN_TYPES) {
    if (wildcard.has(t.rest) || t.rest === 'listeners') continue;
    for (const name of [...next[t.rest]].sort()) {
      // Named already, or reachable before (the client asks for it anyway): not the change's doing.
      if (names[t.rest].has(name) || then[t.rest].has(name)) continue;
      const res = after[t.rest].byName.get(name);
      change.subscribes.push({
        type: t.rest,
        name,
        version: res?.version ?? null,
        resource: res ? resourceJson(res) : null,
      });
    }
    for (const name of [...names[t.rest]].sort())
      if (then[t.rest].has(name) && !next[t.rest].has(name)) change.unsubscribes.push({ type: t.rest, name });
  }
  return change;
}

export function isEmptyChange(c: SubscriptionChange): boolean {
  return c.subscribes.length === 0 && c.unsubscribes.length === 0;
}
