// The ResourceProvider built from catalog views: watches the service list,
// each listed service's health and the config-entry kinds the mapping reads,
// retranslates only what an input change touched, and hands the transport
// shared, already-encoded resources (ARCHITECTURE invariant 5).
import type { Logger } from 'pino';
import type { ServiceName } from '../../catalog/catalog';
import type { CheckServiceNode, ConfigEntry, ConfigEntryKind } from '../../catalog/types';
import type { Config } from '../../config';
import type { ViewStore } from '../../materializer/types';
import type { ResourceChange, ResourceProvider, ResourceSet, XdsNode, XdsResource } from '../transport/provider';
import { TypeUrl } from '../transport/type-urls';
import { NO_CHAIN, resolverSubsets, subsetClusterName, type ChainEntries } from './chain';
import { buildCluster, clusterDiffersByFlavor } from './cluster';
import { createEncodeCache } from './encode';
import { buildLoadAssignment, failoverTargets, type FailoverTarget } from './endpoints';
import { buildGateway } from './ingress';
import { buildApiListener } from './listener';
import { gatewayNameOf, serviceResourceName, type ServiceRef } from './names';
import { buildRouteConfiguration, routeNamesParent, routesForService } from './route';
import { serviceUniverse } from './universe';

export interface CatalogXdsProviderOptions {
  views: ViewStore;
  config: Config;
  logger: Logger;
  /** ACL token the hub reads its own views with. */
  token?: string;
  /** Keep critical instances as UNHEALTHY endpoints instead of leaving them out. */
  keepUnhealthy?: boolean;
}

export interface CatalogXdsProvider extends ResourceProvider {
  /** Resolves once the service list, every watched config kind and every listed service's health have arrived. */
  ready(): Promise<void>;
  /** Counts for the admin page and tests. */
  stats(): { services: number; gateways: number; encodes: number; cacheHits: number; flushes: number };
  close(): void;
}

const WATCHED_KINDS: readonly ConfigEntryKind[] = ['service-defaults', 'service-resolver', 'ingress-gateway', 'http-route', 'mesh', 'service-router', 'service-splitter'];
const NO_INSTANCES: readonly CheckServiceNode[] = Object.freeze([]);
const EMPTY_SET: ResourceSet = Object.freeze({ byName: new Map(), wildcard: new Set<string>() });

/** What one service's resources were built from; compared by identity to skip unchanged services. */
interface ServiceInputs {
  ref: ServiceRef;
  instances: readonly CheckServiceNode[];
  defaults: ConfigEntry | undefined;
  resolver: ConfigEntry | undefined;
  routes: readonly ConfigEntry[];
  /** Routers, splitters and resolvers (the discovery chains; one object until one of them changes). */
  chain: ChainEntries;
  failover: readonly { target: FailoverTarget; instances: readonly CheckServiceNode[] }[];
}

interface ServiceOutput {
  inputs: ServiceInputs;
  cluster: XdsResource;
  /** Only when gRPC clients need a different Cluster (lb policy). */
  grpcCluster: XdsResource;
  endpoints: XdsResource;
  route: XdsResource;
  listener: XdsResource;
  /** Resolver subsets: cluster `<subset>.S` → its Cluster (both flavours) and filtered assignment. */
  subsets: ReadonlyMap<string, SubsetOutput>;
}

interface SubsetOutput {
  cluster: XdsResource;
  grpcCluster: XdsResource;
  endpoints: XdsResource;
}

interface GatewayOutput {
  listeners: Map<string, XdsResource>;
  routes: Map<string, XdsResource>;
  /** Merged with the shared sets, built on first get() for that gateway. */
  lds?: ResourceSet;
  rds?: ResourceSet;
}

const sameList = <T>(a: readonly T[], b: readonly T[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

function sameInputs(a: ServiceInputs, b: ServiceInputs): boolean {
  return (
    a.instances === b.instances &&
    a.defaults === b.defaults &&
    a.resolver === b.resolver &&
    sameList(a.routes, b.routes) &&
    a.chain === b.chain &&
    a.failover.length === b.failover.length &&
    a.failover.every((f, i) => f.instances === b.failover[i]!.instances && f.target.ref.name === b.failover[i]!.target.ref.name && f.target.datacenter === b.failover[i]!.target.datacenter)
  );
}

function setOf(byName: Map<string, XdsResource>, wildcard?: Set<string>): ResourceSet {
  return Object.freeze({ byName, wildcard: wildcard ?? new Set(byName.keys()) });
}

export function createCatalogXdsProvider(options: CatalogXdsProviderOptions): CatalogXdsProvider {
  const { views, logger: parent } = options;
  const logger = parent.child({ module: 'xds-provider' });
  const token = options.token ?? '';
  const cache = createEncodeCache();
  const listeners = new Set<(changes: readonly ResourceChange[]) => void>();

  // Inputs, as the views last delivered them.
  let serviceList: readonly ServiceName[] | undefined;
  const health = new Map<string, { stop: () => void; instances?: readonly CheckServiceNode[] }>();
  const entries = new Map<ConfigEntryKind, readonly ConfigEntry[]>();
  const stops: (() => void)[] = [];
  let closed = false;

  // Outputs.
  const services = new Map<string, ServiceOutput>();
  let gateways = new Map<string, GatewayOutput>();
  let cds: ResourceSet = EMPTY_SET;
  let cdsGrpc: ResourceSet = EMPTY_SET;
  let eds: ResourceSet = EMPTY_SET;
  let rds: ResourceSet = EMPTY_SET;
  let lds: ResourceSet = EMPTY_SET;
  let flushes = 0;

  // Change tracking: which services need retranslation on the next flush.
  const dirty = new Set<string>();
  let allDirty = true;
  /** Service name → resource names whose CLA fails over to it. */
  let dependents = new Map<string, Set<string>>();
  let scheduled = false;
  const readyWaiters: (() => void)[] = [];

  function schedule(): void {
    if (scheduled || closed) return;
    scheduled = true;
    setImmediate(flush);
  }

  function isReady(): boolean {
    if (serviceList === undefined || WATCHED_KINDS.some((k) => !entries.has(k))) return false;
    for (const h of health.values()) if (h.instances === undefined) return false;
    return true;
  }

  const onError = (what: string) => (err: Error) => logger.warn({ err, view: what }, 'view failed; keeping the last resources');

  function watchHealth(name: string): void {
    const slot: { stop: () => void; instances?: readonly CheckServiceNode[] } = { stop: () => {} };
    health.set(name, slot);
    slot.stop = views.notify(
      { kind: 'service-health', service: name },
      token,
      (result) => {
        if (health.get(name) !== slot) return;
        slot.instances = result.value;
        dirty.add(name);
        for (const d of dependents.get(name) ?? []) dirty.add(d);
        schedule();
      },
      onError(`service-health/${name}`),
    );
  }

  stops.push(
    views.notify(
      { kind: 'service-list' },
      token,
      (result) => {
        serviceList = result.value;
        const wanted = new Set(result.value.map((s) => s.Name));
        for (const name of wanted) if (!health.has(name)) watchHealth(name);
        for (const [name, slot] of health) {
          if (wanted.has(name)) continue;
          slot.stop();
          health.delete(name);
          dirty.add(name);
          for (const d of dependents.get(name) ?? []) dirty.add(d);
        }
        // The universe of services changed: '*' ingress entries and references must be re-read.
        allDirty = true;
        schedule();
      },
      onError('service-list'),
    ),
  );
  for (const kind of WATCHED_KINDS) {
    stops.push(
      views.notify(
        { kind: 'config-entries', configKind: kind },
        token,
        (result) => {
          entries.set(kind, result.value);
          // Config changes are rare and may touch any service; the per-service
          // input comparison and the encode cache keep the rework small.
          allDirty = true;
          schedule();
        },
        onError(`config-entries/${kind}`),
      ),
    );
  }

  function entryByName(kind: ConfigEntryKind): Map<string, ConfigEntry> {
    const out = new Map<string, ConfigEntry>();
    for (const e of entries.get(kind) ?? []) out.set(serviceResourceName({ name: e.Name, namespace: e.Namespace, partition: e.Partition }), e);
    return out;
  }

  function translateService(name: string, inputs: ServiceInputs): ServiceOutput {
    const clusterInput = { name, defaults: inputs.defaults, resolver: inputs.resolver };
    const cluster = cache.encode(TypeUrl.Cluster, name, buildCluster(clusterInput, 'envoy'));
    const grpcCluster = clusterDiffersByFlavor(clusterInput)
      ? cache.encode(TypeUrl.Cluster, `grpc\n${name}`, buildCluster(clusterInput, 'grpc'))
      : cluster;
    const endpoints = cache.encode(
      TypeUrl.ClusterLoadAssignment,
      name,
      buildLoadAssignment({ name, instances: inputs.instances, failover: inputs.failover, keepUnhealthy: options.keepUnhealthy }),
    );
    const route = cache.encode(TypeUrl.RouteConfiguration, name, buildRouteConfiguration(inputs.ref, inputs.routes, inputs.chain));
    const listener = cache.encode(TypeUrl.Listener, name, buildApiListener(name));
    const subsets = new Map<string, SubsetOutput>();
    for (const [subset, selects] of resolverSubsets(inputs.resolver)) {
      const sub = subsetClusterName(name, subset);
      const input = { ...clusterInput, name: sub };
      const c = cache.encode(TypeUrl.Cluster, sub, buildCluster(input, 'envoy'));
      subsets.set(sub, {
        cluster: c,
        grpcCluster: clusterDiffersByFlavor(input) ? cache.encode(TypeUrl.Cluster, `grpc\n${sub}`, buildCluster(input, 'grpc')) : c,
        endpoints: cache.encode(
          TypeUrl.ClusterLoadAssignment,
          sub,
          buildLoadAssignment({ name: sub, instances: inputs.instances.filter(selects), keepUnhealthy: options.keepUnhealthy }),
        ),
      });
    }
    return { inputs, cluster, grpcCluster, endpoints, route, listener, subsets };
  }

  function flush(): void {
    scheduled = false;
    if (closed) return;
    flushes++;
    const started = process.hrtime.bigint();
    const changed = new Map<string, Set<string>>([TypeUrl.Cluster, TypeUrl.ClusterLoadAssignment, TypeUrl.RouteConfiguration, TypeUrl.Listener].map((t) => [t, new Set<string>()]));
    const mark = (typeUrl: string, name: string) => changed.get(typeUrl)!.add(name);
    const defaults = entryByName('service-defaults');
    const resolvers = entryByName('service-resolver');
    const httpRoutes = entries.get('http-route') ?? [];
    const chain = chainEntries(resolvers);
    const all = serviceUniverse(serviceList ?? [], (kind) => entries.get(kind) ?? []);
    const todo = [...all].filter(([, ref]) => allDirty || dirty.has(ref.name)).map(([name]) => name);
    const nextDependents = allDirty ? new Map<string, Set<string>>() : dependents;

    for (const name of todo) {
      const ref = all.get(name)!;
      const resolver = resolvers.get(name);
      const targets = failoverTargets(ref, resolver);
      const inputs: ServiceInputs = {
        ref,
        instances: health.get(ref.name)?.instances ?? NO_INSTANCES,
        defaults: defaults.get(name),
        resolver,
        routes: httpRoutes.filter((e) => routeNamesParent(e, ref)),
        chain,
        failover: targets.map((target) => ({ target, instances: health.get(target.ref.name)?.instances ?? NO_INSTANCES })),
      };
      for (const t of targets) {
        let set = nextDependents.get(t.ref.name);
        if (!set) nextDependents.set(t.ref.name, (set = new Set()));
        set.add(ref.name);
      }
      const previous = services.get(name);
      if (previous && sameInputs(previous.inputs, inputs)) continue;
      let next: ServiceOutput;
      try {
        next = translateService(name, inputs);
      } catch (err) {
        // A config entry the HTTP layer let through but the protos refuse must not
        // take the hub down: keep serving what the service had (or nothing).
        logger.error({ err, service: name }, 'translation failed; keeping the previous resources');
        continue;
      }
      services.set(name, next);
      if (previous?.cluster !== next.cluster || previous?.grpcCluster !== next.grpcCluster) mark(TypeUrl.Cluster, name);
      if (previous?.endpoints !== next.endpoints) mark(TypeUrl.ClusterLoadAssignment, name);
      if (previous?.route !== next.route) mark(TypeUrl.RouteConfiguration, name);
      if (previous?.listener !== next.listener) mark(TypeUrl.Listener, name);
      for (const sub of new Set([...(previous?.subsets.keys() ?? []), ...next.subsets.keys()])) {
        const a = previous?.subsets.get(sub);
        const b = next.subsets.get(sub);
        if (a?.cluster !== b?.cluster || a?.grpcCluster !== b?.grpcCluster) mark(TypeUrl.Cluster, sub);
        if (a?.endpoints !== b?.endpoints) mark(TypeUrl.ClusterLoadAssignment, sub);
        if (a && !b) forgetSubset(sub, a);
      }
    }
    for (const name of [...services.keys()]) {
      if (all.has(name)) continue;
      const gone = services.get(name)!;
      services.delete(name);
      for (const r of [gone.cluster, gone.grpcCluster, gone.endpoints, gone.route, gone.listener]) {
        cache.delete(r.typeUrl, r === gone.grpcCluster && r !== gone.cluster ? `grpc\n${name}` : name);
        mark(r.typeUrl, name);
      }
      for (const [sub, out] of gone.subsets) {
        forgetSubset(sub, out);
        mark(TypeUrl.Cluster, sub);
        mark(TypeUrl.ClusterLoadAssignment, sub);
      }
    }
    dependents = nextDependents;
    const rebuildGateways = allDirty;
    dirty.clear();
    allDirty = false;

    const out: ResourceChange[] = [];
    for (const [typeUrl, names] of changed) if (names.size > 0) out.push({ typeUrl, names });
    if (out.length > 0) rebuildSharedSets(changed);
    // Gateway resources depend on entries, routes and the service universe, never on health.
    if (rebuildGateways) out.push(...updateGateways(all, httpRoutes));
    if (out.length > 0) {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.debug({ changes: out.map((c) => ({ type: c.typeUrl, n: c.names.size, node: c.nodeScope })), ms }, 'resources changed');
      for (const l of listeners) {
        try {
          l(out);
        } catch (err) {
          logger.error({ err }, 'onChange listener threw');
        }
      }
    }
    if (isReady()) readyWaiters.splice(0).forEach((w) => w());
  }

  function forgetSubset(sub: string, out: SubsetOutput): void {
    cache.delete(TypeUrl.Cluster, sub);
    if (out.grpcCluster !== out.cluster) cache.delete(TypeUrl.Cluster, `grpc\n${sub}`);
    cache.delete(TypeUrl.ClusterLoadAssignment, sub);
  }

  // The chain entries as one object, rebuilt only when one of the three kinds changed.
  let chainMemo: { from: readonly unknown[]; chain: ChainEntries } | undefined;
  function chainEntries(resolvers: Map<string, ConfigEntry>): ChainEntries {
    const from = [entries.get('service-router'), entries.get('service-splitter'), entries.get('service-resolver')];
    if (!chainMemo || !sameList(chainMemo.from, from)) {
      chainMemo = { from, chain: { routers: entryByName('service-router'), splitters: entryByName('service-splitter'), resolvers } };
    }
    return chainMemo.chain;
  }

  function rebuildSharedSets(changed: Map<string, Set<string>>): void {
    const pick = (f: (s: ServiceOutput) => XdsResource, fsub?: (s: SubsetOutput) => XdsResource) =>
      new Map([...services].flatMap(([n, s]): [string, XdsResource][] => [[n, f(s)], ...(fsub ? [...s.subsets].map(([sn, o]): [string, XdsResource] => [sn, fsub(o)]) : [])]));
    if (changed.get(TypeUrl.Cluster)!.size > 0) {
      cds = setOf(pick((s) => s.cluster, (o) => o.cluster));
      const grpcDiffers = [...services.values()].some((s) => s.grpcCluster !== s.cluster || [...s.subsets.values()].some((o) => o.grpcCluster !== o.cluster));
      cdsGrpc = grpcDiffers ? setOf(pick((s) => s.grpcCluster, (o) => o.grpcCluster)) : cds;
    }
    if (changed.get(TypeUrl.ClusterLoadAssignment)!.size > 0) eds = setOf(pick((s) => s.endpoints, (o) => o.endpoints));
    if (changed.get(TypeUrl.RouteConfiguration)!.size > 0) rds = setOf(pick((s) => s.route));
    // API listeners are never part of a wildcard LDS subscription.
    if (changed.get(TypeUrl.Listener)!.size > 0) lds = setOf(pick((s) => s.listener), new Set());
    for (const g of gateways.values()) {
      g.lds = undefined;
      g.rds = undefined;
    }
  }

  /** Rebuilds every gateway's listeners and routes; returns node-scoped changes. */
  function updateGateways(all: Map<string, ServiceRef>, httpRoutes: readonly ConfigEntry[]): ResourceChange[] {
    const changes: ResourceChange[] = [];
    const next = new Map<string, GatewayOutput>();
    const chain = chainMemo?.chain ?? NO_CHAIN;
    const ctx = { services: [...all.values()], routesFor: (ref: ServiceRef) => routesForService(ref, httpRoutes, chain) };
    for (const entry of entries.get('ingress-gateway') ?? []) {
      try {
        const built = buildGateway(entry, ctx);
        if (built.skipped.length > 0) logger.warn({ gateway: entry.Name, skipped: built.skipped }, 'ingress listeners left out');
        const gw: GatewayOutput = { listeners: new Map(), routes: new Map() };
        for (const [n, plain] of built.listeners) gw.listeners.set(n, cache.encode(TypeUrl.Listener, n, plain));
        for (const [n, plain] of built.routes) gw.routes.set(n, cache.encode(TypeUrl.RouteConfiguration, n, plain));
        next.set(entry.Name, gw);
      } catch (err) {
        logger.error({ err, gateway: entry.Name }, 'gateway translation failed; keeping its previous resources');
        const previous = gateways.get(entry.Name);
        if (previous) next.set(entry.Name, { listeners: previous.listeners, routes: previous.routes });
      }
    }
    for (const name of new Set([...gateways.keys(), ...next.keys()])) {
      const before = gateways.get(name);
      const after = next.get(name);
      for (const [typeUrl, pickMap] of [
        [TypeUrl.Listener, (g?: GatewayOutput) => g?.listeners],
        [TypeUrl.RouteConfiguration, (g?: GatewayOutput) => g?.routes],
      ] as const) {
        const a = pickMap(before) ?? new Map<string, XdsResource>();
        const b = pickMap(after) ?? new Map<string, XdsResource>();
        const names = new Set<string>();
        for (const [n, r] of b) if (a.get(n) !== r) names.add(n);
        for (const n of a.keys()) if (!b.has(n)) names.add(n);
        for (const n of names) if (!b.has(n)) cache.delete(typeUrl, n);
        if (names.size > 0) changes.push({ typeUrl, names, nodeScope: name });
      }
    }
    gateways = next;
    return changes;
  }

  function gatewaySets(gw: GatewayOutput): { lds: ResourceSet; rds: ResourceSet } {
    if (!gw.lds) gw.lds = setOf(new Map([...lds.byName, ...gw.listeners]), new Set(gw.listeners.keys()));
    if (!gw.rds) gw.rds = setOf(new Map([...rds.byName, ...gw.routes]));
    return { lds: gw.lds, rds: gw.rds! };
  }

  schedule();

  return {
    get(typeUrl: string, node: XdsNode): ResourceSet {
      switch (typeUrl) {
        case TypeUrl.Cluster:
          // Envoy takes every lb policy; gRPC clients get their nearest valid one.
          return node.userAgent === 'envoy' ? cds : cdsGrpc;
        case TypeUrl.ClusterLoadAssignment:
          return eds;
        case TypeUrl.Listener: {
          const gw = gateways.size > 0 ? gateways.get(gatewayNameOf(node)) : undefined;
          return gw ? gatewaySets(gw).lds : lds;
        }
        case TypeUrl.RouteConfiguration: {
          const gw = gateways.size > 0 ? gateways.get(gatewayNameOf(node)) : undefined;
          return gw ? gatewaySets(gw).rds : rds;
        }
        default:
          return EMPTY_SET;
      }
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    ready() {
      if (isReady() && !scheduled) return Promise.resolve();
      return new Promise((resolve) => readyWaiters.push(resolve));
    },
    stats() {
      const s = cache.stats();
      return { services: services.size, gateways: gateways.size, encodes: s.encodes, cacheHits: s.hits, flushes };
    },
    close() {
      if (closed) return;
      closed = true;
      stops.splice(0).forEach((stop) => stop());
      for (const slot of health.values()) slot.stop();
      health.clear();
      listeners.clear();
    },
  };
}
