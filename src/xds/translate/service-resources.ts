// Part of the catalog provider: retranslating changed services. Each service
// in the universe (registered, or named by a config entry) has a Cluster (two
// flavours when Envoy and gRPC need different ones), a ClusterLoadAssignment, a
// RouteConfiguration, an API Listener and its resolver subsets. A service is
// retranslated only when the inputs it was built from changed (compared by
// identity), and the encode cache turns equal content into the same resource
// object, so only what really changed is reported.
import type { Logger } from 'pino';
import type { CheckServiceNode, ConfigEntry, ConfigEntryKind } from '../../catalog/types';
import type { XdsResource } from '../transport/provider';
import { TypeUrl } from '../transport/type-urls';
import { createLiveAssignment, type LiveAssignment } from './assignment';
import { type ChainEntries, resolverSubsets, subsetClusterName } from './chain';
import { buildCluster, clusterDiffersByFlavor } from './cluster';
import type { EncodeCache } from './encode';
import { buildLoadAssignment, type FailoverTarget, failoverTargets } from './endpoints';
import { globalProxyDefaults, record } from './inputs';
import { type Instances, NO_INSTANCES } from './instance-diff';
import { buildApiListener } from './listener';
import { type ServiceRef, serviceResourceName } from './names';
import { buildRouteConfiguration, routeNamesParent } from './route';
import { serviceUniverse } from './universe';
import type { CatalogInputs, InputChanges } from './view-inputs';

/** What one service's resources were built from; compared by identity to skip unchanged services. */
interface ServiceInputs {
  ref: ServiceRef;
  instances: Instances;
  defaults: ConfigEntry | undefined;
  proxyDefaults: ConfigEntry | undefined;
  resolver: ConfigEntry | undefined;
  routes: readonly ConfigEntry[];
  /** Routers, splitters and resolvers (the discovery chains; one object until one of them changes). */
  chain: ChainEntries;
  failover: readonly FailoverGroup[];
  /** Per resolver subset: its failover groups (Failover[subset], else Failover["*"]). */
  subsetFailover: ReadonlyMap<string, readonly FailoverGroup[]>;
}

/** A failover target with every instance of its service; a target subset is applied when the assignment is built. */
interface FailoverGroup {
  target: FailoverTarget;
  instances: Instances;
  /** The target service's resolver (whose subsets a target subset names). */
  resolver: ConfigEntry | undefined;
}

export interface SubsetOutput {
  cluster: XdsResource;
  grpcCluster: XdsResource;
  endpoints: XdsResource;
}

export interface ServiceOutput {
  inputs: ServiceInputs;
  cluster: XdsResource;
  /** Only when gRPC clients need a different Cluster (lb policy). */
  grpcCluster: XdsResource;
  endpoints: XdsResource;
  route: XdsResource;
  listener: XdsResource;
  /** Resolver subsets: cluster `<subset>.S` → its Cluster (both flavours) and filtered assignment. */
  subsets: ReadonlyMap<string, SubsetOutput>;
  /**
   * The service left the universe: kept, with no endpoints, for clients that name it
   * (never part of a wildcard set), so it can come back (docs/xds.md, "A service that leaves").
   */
  departed: boolean;
}

/** The most departed services kept (oldest forgotten first): a bound on what churning names can pin. */
export const MAX_DEPARTED = 4096;

/** Resource names that changed, per type URL (Cluster, ClusterLoadAssignment, RouteConfiguration, Listener). */
export type ChangedNames = Map<string, Set<string>>;

export interface Retranslated {
  changed: ChangedNames;
  /** The services that get resources, by resource name. */
  universe: Map<string, ServiceRef>;
  chain: ChainEntries;
}

export interface ServiceResources {
  readonly services: ReadonlyMap<string, ServiceOutput>;
  /**
   * Retranslates what `changes` touched; services that left the universe become departed
   * (all of them forgotten with `forgetDeparted`).
   */
  update(inputs: CatalogInputs, changes: InputChanges, forgetDeparted?: boolean): Retranslated;
}

const sameList = <T>(a: readonly T[], b: readonly T[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

function sameGroups(a: readonly FailoverGroup[], b: readonly FailoverGroup[]): boolean {
  return (
    a.length === b.length &&
    a.every((f, i) => {
      const g = b[i]!;
      return (
        f.instances === g.instances &&
        f.resolver === g.resolver &&
        f.target.ref.name === g.target.ref.name &&
        f.target.subset === g.target.subset &&
        f.target.datacenter === g.target.datacenter
      );
    })
  );
}

function sameInputs(a: ServiceInputs, b: ServiceInputs): boolean {
  return (
    a.instances === b.instances &&
    a.defaults === b.defaults &&
    a.proxyDefaults === b.proxyDefaults &&
    a.resolver === b.resolver &&
    sameList(a.routes, b.routes) &&
    a.chain === b.chain &&
    sameGroups(a.failover, b.failover) &&
    a.subsetFailover.size === b.subsetFailover.size &&
    [...a.subsetFailover].every(([k, g]) => sameGroups(g, b.subsetFailover.get(k) ?? []))
  );
}

/** The groups as buildLoadAssignment takes them: a target subset keeps only the instances its filter selects. */
function failoverInstances(
  groups: readonly FailoverGroup[],
): { target: FailoverTarget; instances: readonly CheckServiceNode[] }[] {
  return groups.map(({ target, instances, resolver }) => {
    if (target.subset === undefined) return { target, instances: instances.value };
    const selects = resolverSubsets(resolver).get(target.subset);
    return { target, instances: selects ? instances.value.filter(selects) : [] };
  });
}

function byName(entries: readonly ConfigEntry[]): Map<string, ConfigEntry> {
  return new Map(
    entries.map((e) => [serviceResourceName({ name: e.Name, namespace: e.Namespace, partition: e.Partition }), e]),
  );
}

/** What the service resources keep between updates. */
interface State {
  readonly cache: EncodeCache;
  readonly logger: Logger;
  readonly keepUnhealthy: boolean;
  readonly services: Map<string, ServiceOutput>;
  /** Assignments with one priority, kept per changed instance (assignment.ts), by resource name, with the resolver a subset's filter came from. */
  readonly live: Map<string, { state: LiveAssignment; resolver: ConfigEntry | undefined }>;
  /** Departed services in the order they left (a Set keeps insertion order). */
  readonly departedOrder: Set<string>;
  // The chain entries as one object, rebuilt only when one of the three kinds changed.
  chainMemo: { from: readonly unknown[]; chain: ChainEntries } | undefined;
  // The universe, built again only when the service list or an entry kind it reads is a new array.
  universeMemo: { from: readonly unknown[]; universe: Map<string, ServiceRef> } | undefined;
}

/** The kinds serviceUniverse reads besides the service list. */
const UNIVERSE_KINDS: readonly ConfigEntryKind[] = [
  'service-defaults',
  'service-resolver',
  'http-route',
  'service-router',
  'service-splitter',
  'ingress-gateway',
];

function universeOf(s: State, inputs: CatalogInputs): Map<string, ServiceRef> {
  const from = [inputs.serviceList(), ...UNIVERSE_KINDS.map((k) => inputs.entries(k))];
  if (!s.universeMemo || !sameList(s.universeMemo.from, from))
    s.universeMemo = { from, universe: serviceUniverse(inputs.serviceList(), inputs.entries) };
  return s.universeMemo.universe;
}

/** What one update reads once and hands to each service it retranslates. */
interface Pass {
  readonly inputs: CatalogInputs;
  readonly changes: InputChanges;
  readonly changed: ChangedNames;
  readonly defaults: Map<string, ConfigEntry>;
  readonly proxyDefaults: ConfigEntry | undefined;
  readonly resolvers: Map<string, ConfigEntry>;
  readonly httpRoutes: readonly ConfigEntry[];
  readonly chain: ChainEntries;
  /** Per failover target service: the services whose failover reads it. */
  readonly dependents: Map<string, Set<string>>;
}

export function createServiceResources(cache: EncodeCache, logger: Logger, keepUnhealthy = false): ServiceResources {
  const state: State = {
    cache,
    logger,
    keepUnhealthy,
    services: new Map(),
    live: new Map(),
    departedOrder: new Set(),
    chainMemo: undefined,
    universeMemo: undefined,
  };
  return {
    services: state.services,
    update: (inputs, changes, forgetDeparted = false) => update(state, inputs, changes, forgetDeparted),
  };
}

function chainOf(
  s: State,
  entries: (kind: ConfigEntryKind) => readonly ConfigEntry[],
  resolvers: Map<string, ConfigEntry>,
): ChainEntries {
  const from = [entries('service-router'), entries('service-splitter'), entries('service-resolver')];
  if (!s.chainMemo || !sameList(s.chainMemo.from, from)) {
    s.chainMemo = {
      from,
      chain: { routers: byName(entries('service-router')), splitters: byName(entries('service-splitter')), resolvers },
    };
  }
  return s.chainMemo.chain;
}

/**
 * The assignment `name` of a service's instances, or of those a subset `selects`: kept per
 * changed instance when it has no failover groups, else built whole (failover is rare and
 * reads other services).
 */
function assignment(
  s: State,
  name: string,
  service: string,
  instances: Instances,
  failover: readonly FailoverGroup[],
  subset?: { selects: (csn: CheckServiceNode) => boolean; resolver: ConfigEntry | undefined },
): XdsResource {
  const { cache, live, keepUnhealthy } = s;
  if (failover.length === 0) {
    let kept = live.get(name);
    // Another resolver entry may define the subset differently: start over from its filter.
    if (!kept || kept.resolver !== subset?.resolver) {
      kept = {
        state: createLiveAssignment(name, { keepUnhealthy, ...(subset ? { selects: subset.selects } : {}) }),
        resolver: subset?.resolver,
      };
      live.set(name, kept);
    }
    const before = kept.state.encodes;
    // All the service's instances (the view's own array, whose changes it can tell): the subset filter runs on changed ones only.
    const out = kept.state.update(instances);
    cache.tally(kept.state.encodes > before);
    // The whole-build path's cache entry is stale from now on; dropping it keeps a return to it from reusing it.
    cache.delete(TypeUrl.ClusterLoadAssignment, name);
    return out;
  }
  live.delete(name);
  const selected = subset ? instances.value.filter(subset.selects) : instances.value;
  return cache.encode(
    TypeUrl.ClusterLoadAssignment,
    name,
    buildLoadAssignment({ name, service, instances: selected, failover: failoverInstances(failover), keepUnhealthy }),
  );
}

/**
 * A service whose only changed input is its instances (the common case: a
 * registration) keeps its Clusters, route and listener as they are and
 * rebuilds its assignments. Those resources are built from the name, the
 * defaults, the resolver, the routes and the chain alone, so rebuilding them
 * would give the same content, which the encode cache would map back to the
 * same objects after writing each one's JSON text; each reuse is counted as
 * the cache hit it would have been.
 */
function reassign(s: State, name: string, previous: ServiceOutput, inputs: ServiceInputs): ServiceOutput | undefined {
  const was = previous.inputs;
  if (
    previous.departed ||
    was.defaults !== inputs.defaults ||
    was.proxyDefaults !== inputs.proxyDefaults ||
    was.resolver !== inputs.resolver ||
    was.chain !== inputs.chain ||
    !sameList(was.routes, inputs.routes)
  )
    return undefined;
  const selectors = resolverSubsets(inputs.resolver);
  for (const subset of selectors.keys()) if (!previous.subsets.has(subsetClusterName(name, subset))) return undefined;
  // In translate's order: the service's own assignment, then each subset's.
  const endpoints = assignment(s, name, name, inputs.instances, inputs.failover);
  let reused = previous.grpcCluster !== previous.cluster ? 4 : 3;
  const subsets = new Map<string, SubsetOutput>();
  for (const [subset, selects] of selectors) {
    const sub = subsetClusterName(name, subset);
    const kept = previous.subsets.get(sub)!;
    reused += kept.grpcCluster !== kept.cluster ? 2 : 1;
    subsets.set(sub, {
      cluster: kept.cluster,
      grpcCluster: kept.grpcCluster,
      endpoints: assignment(s, sub, name, inputs.instances, inputs.subsetFailover.get(subset) ?? [], {
        selects,
        resolver: inputs.resolver,
      }),
    });
  }
  for (let i = 0; i < reused; i++) s.cache.tally(false);
  return {
    inputs,
    cluster: previous.cluster,
    grpcCluster: previous.grpcCluster,
    endpoints,
    route: previous.route,
    listener: previous.listener,
    subsets,
    departed: false,
  };
}

function translate(s: State, name: string, inputs: ServiceInputs, departed = false): ServiceOutput {
  const { cache } = s;
  const clusterInput = {
    name,
    defaults: inputs.defaults,
    resolver: inputs.resolver,
    proxyDefaults: inputs.proxyDefaults,
  };
  const cluster = cache.encode(TypeUrl.Cluster, name, buildCluster(clusterInput, 'envoy'));
  const grpcCluster = clusterDiffersByFlavor(clusterInput)
    ? cache.encode(TypeUrl.Cluster, `grpc\n${name}`, buildCluster(clusterInput, 'grpc'))
    : cluster;
  const endpoints = assignment(s, name, name, inputs.instances, inputs.failover);
  const route = cache.encode(
    TypeUrl.RouteConfiguration,
    name,
    buildRouteConfiguration(inputs.ref, inputs.routes, inputs.chain),
  );
  const listener = cache.encode(TypeUrl.Listener, name, buildApiListener(name));
  const subsets = new Map<string, SubsetOutput>();
  for (const [subset, selects] of resolverSubsets(inputs.resolver)) {
    const sub = subsetClusterName(name, subset);
    const input = { ...clusterInput, name: sub };
    const c = cache.encode(TypeUrl.Cluster, sub, buildCluster(input, 'envoy'));
    subsets.set(sub, {
      cluster: c,
      grpcCluster: clusterDiffersByFlavor(input)
        ? cache.encode(TypeUrl.Cluster, `grpc\n${sub}`, buildCluster(input, 'grpc'))
        : c,
      endpoints: assignment(s, sub, name, inputs.instances, inputs.subsetFailover.get(subset) ?? [], {
        selects,
        resolver: inputs.resolver,
      }),
    });
  }
  return { inputs, cluster, grpcCluster, endpoints, route, listener, subsets, departed };
}

function forgetSubset(s: State, sub: string, out: SubsetOutput): void {
  s.cache.delete(TypeUrl.Cluster, sub);
  if (out.grpcCluster !== out.cluster) s.cache.delete(TypeUrl.Cluster, `grpc\n${sub}`);
  s.cache.delete(TypeUrl.ClusterLoadAssignment, sub);
  s.live.delete(sub);
}

const mark = (changed: ChangedNames, typeUrl: string, name: string) => changed.get(typeUrl)!.add(name);

function update(s: State, inputs: CatalogInputs, changes: InputChanges, forgetDeparted: boolean): Retranslated {
  const changed: ChangedNames = new Map(
    [TypeUrl.Cluster, TypeUrl.ClusterLoadAssignment, TypeUrl.RouteConfiguration, TypeUrl.Listener].map((t) => [
      t,
      new Set<string>(),
    ]),
  );
  const defaults = byName(inputs.entries('service-defaults'));
  const resolvers = byName(inputs.entries('service-resolver'));
  const httpRoutes = inputs.entries('http-route');
  const chain = chainOf(s, inputs.entries, resolvers);
  const universe = universeOf(s, inputs);
  const proxyDefaults = globalProxyDefaults(inputs.entries('proxy-defaults'));
  const pass: Pass = {
    inputs,
    changes,
    changed,
    defaults,
    proxyDefaults,
    resolvers,
    httpRoutes,
    chain,
    dependents: new Map(),
  };
  for (const [name, ref] of universe) retranslate(s, pass, name, ref);
  for (const [name, gone] of s.services) {
    if (universe.has(name) || gone.departed) continue;
    depart(s, changed, name, gone);
  }
  for (const name of s.departedOrder) {
    if (!forgetDeparted && s.departedOrder.size <= MAX_DEPARTED) break;
    s.departedOrder.delete(name);
    forget(s, changed, name, s.services.get(name)!);
  }
  inputs.setDependents(pass.dependents);
  return { changed, universe, chain };
}

/** A failover target's groups for `ref` (or its `subset`), noting each target's dependent. */
function failoverGroups(
  pass: Pass,
  ref: ServiceRef,
  resolver: ConfigEntry | undefined,
  subset?: string,
): FailoverGroup[] {
  return failoverTargets(ref, resolver, subset).map((target) => {
    let set = pass.dependents.get(target.ref.name);
    if (!set) pass.dependents.set(target.ref.name, (set = new Set()));
    set.add(ref.name);
    return {
      target,
      instances: pass.inputs.instances(target.ref.name),
      resolver: pass.resolvers.get(serviceResourceName(target.ref)),
    };
  });
}

/** One service of the universe: retranslated when the changes touched it and its inputs differ. */
function retranslate(s: State, pass: Pass, name: string, ref: ServiceRef): void {
  const { inputs, changes } = pass;
  const resolver = pass.resolvers.get(name);
  const touched = changes.all || changes.services.has(ref.name);
  // Untouched, it only has dependents to note, and only a resolver's failover makes any.
  if (!touched && !resolver) return;
  const failover = failoverGroups(pass, ref, resolver);
  const subsetFailover = new Map(
    Object.keys(record(resolver?.['Subsets']) ?? {}).map(
      (subset) => [subset, failoverGroups(pass, ref, resolver, subset)] as const,
    ),
  );
  if (!touched) return;
  const next: ServiceInputs = {
    ref,
    instances: inputs.instances(ref.name),
    defaults: pass.defaults.get(name),
    proxyDefaults: pass.proxyDefaults,
    resolver,
    routes: pass.httpRoutes.filter((e) => routeNamesParent(e, ref)),
    chain: pass.chain,
    failover,
    subsetFailover,
  };
  const previous = s.services.get(name);
  if (previous && !previous.departed && sameInputs(previous.inputs, next)) return;
  let out: ServiceOutput;
  try {
    out = (previous && reassign(s, name, previous, next)) || translate(s, name, next);
  } catch (err) {
    // A config entry the HTTP layer let through but the protos refuse must not
    // take the hub down: keep serving what the service had (or nothing).
    s.logger.error({ err, service: name }, 'translation failed; keeping the previous resources');
    return;
  }
  // A departed service that comes back is in the wildcard sets again: every name of it moved.
  const returned = previous?.departed === true;
  if (returned) s.departedOrder.delete(name);
  replace(s, pass.changed, name, previous, out, returned);
}

/** A service that left the universe. */
function depart(s: State, changed: ChangedNames, name: string, gone: ServiceOutput): void {
  // Kept with no endpoints for the clients that name it: telling a by-name client it does not
  // exist leaves @grpc/grpc-js-xds unable to take the same resource back (docs/xds.md).
  try {
    const emptied = { ...gone.inputs, instances: NO_INSTANCES, failover: [], subsetFailover: new Map() };
    replace(s, changed, name, gone, translate(s, name, emptied, true), true);
    s.departedOrder.add(name);
  } catch (err) {
    s.logger.error({ err, service: name }, 'translation of a departed service failed; forgetting it');
    forget(s, changed, name, gone);
  }
}

/** Stores a service's new output and marks what differs; `all`: every name (its wildcard membership moved). */
function replace(
  s: State,
  changed: ChangedNames,
  name: string,
  previous: ServiceOutput | undefined,
  out: ServiceOutput,
  all: boolean,
): void {
  // An assignment that moved between the kept-per-instance and the whole-build path is a new object with the same bytes.
  if (previous && previous.endpoints.version === out.endpoints.version) out.endpoints = previous.endpoints;
  for (const [sub, o] of out.subsets) {
    const before = previous?.subsets.get(sub)?.endpoints;
    if (before && before.version === o.endpoints.version) o.endpoints = before;
  }
  s.services.set(name, out);
  if (all || previous?.cluster !== out.cluster || previous?.grpcCluster !== out.grpcCluster)
    mark(changed, TypeUrl.Cluster, name);
  if (all || previous?.endpoints !== out.endpoints) mark(changed, TypeUrl.ClusterLoadAssignment, name);
  if (all || previous?.route !== out.route) mark(changed, TypeUrl.RouteConfiguration, name);
  if (all || previous?.listener !== out.listener) mark(changed, TypeUrl.Listener, name);
  for (const sub of new Set([...(previous?.subsets.keys() ?? []), ...out.subsets.keys()])) {
    const a = previous?.subsets.get(sub);
    const b = out.subsets.get(sub);
    if (all || a?.cluster !== b?.cluster || a?.grpcCluster !== b?.grpcCluster) mark(changed, TypeUrl.Cluster, sub);
    if (all || a?.endpoints !== b?.endpoints) mark(changed, TypeUrl.ClusterLoadAssignment, sub);
    if (a && !b) forgetSubset(s, sub, a);
  }
}

function forget(s: State, changed: ChangedNames, name: string, gone: ServiceOutput): void {
  s.services.delete(name);
  for (const r of [gone.cluster, gone.grpcCluster, gone.endpoints, gone.route, gone.listener]) {
    s.cache.delete(r.typeUrl, r === gone.grpcCluster && r !== gone.cluster ? `grpc\n${name}` : name);
    mark(changed, r.typeUrl, name);
  }
  s.live.delete(name);
  for (const [sub, out] of gone.subsets) {
    forgetSubset(s, sub, out);
    mark(changed, TypeUrl.Cluster, sub);
    mark(changed, TypeUrl.ClusterLoadAssignment, sub);
  }
}
