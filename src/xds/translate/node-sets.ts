// Part of the catalog provider: what each node sees. Most nodes share one
// prebuilt, frozen set per type (Envoy and gRPC clients differ only in CDS, by
// lb policy flavour); an Envoy whose node.cluster (else node.id) names an
// ingress gateway also gets that gateway's listeners (its wildcard LDS set)
// and routes. Gateway changes are reported scoped to that node.
import type { Logger } from 'pino';
import type { ConfigEntry } from '../../catalog/types';
import type { ResourceChange, ResourceSet, XdsNode, XdsResource } from '../transport/provider';
import { TypeUrl } from '../transport/type-urls';
import type { EncodeCache } from './encode';
import { buildGateway, type IngressContext } from './ingress';
import { gatewayNameOf } from './names';
import type { ChangedNames, ServiceOutput, SubsetOutput } from './service-resources';

const EMPTY_SET: ResourceSet = Object.freeze({ byName: new Map(), wildcard: new Set<string>() });

interface GatewayOutput {
  listeners: Map<string, XdsResource>;
  routes: Map<string, XdsResource>;
  /** Merged with the shared sets, built on first get() for that gateway. */
  lds?: ResourceSet;
  rds?: ResourceSet;
}

export interface NodeSets {
  /** The resources of a type this node may see. Cheap: prebuilt, shared sets. */
  get(typeUrl: string, node: XdsNode): ResourceSet;
  /** Rebuilds the shared sets of the types that changed. */
  rebuild(services: ReadonlyMap<string, ServiceOutput>, changed: ChangedNames): void;
  /** Rebuilds every gateway's listeners and routes; returns the changes, each scoped to its gateway's nodes. */
  updateGateways(entries: readonly ConfigEntry[], ctx: IngressContext): ResourceChange[];
  readonly gateways: number;
}

function setOf(byName: Map<string, XdsResource>, wildcard?: Set<string>): ResourceSet {
  return Object.freeze({ byName, wildcard: wildcard ?? new Set(byName.keys()) });
}

/** The shared sets, rebuilt when their type changed, and the gateways' own resources. */
interface State {
  readonly cache: EncodeCache;
  readonly logger: Logger;
  gateways: Map<string, GatewayOutput>;
  cds: ResourceSet;
  cdsGrpc: ResourceSet;
  eds: ResourceSet;
  rds: ResourceSet;
  lds: ResourceSet;
}

export function createNodeSets(cache: EncodeCache, logger: Logger): NodeSets {
  const s: State = {
    cache,
    logger,
    gateways: new Map(),
    cds: EMPTY_SET,
    cdsGrpc: EMPTY_SET,
    eds: EMPTY_SET,
    rds: EMPTY_SET,
    lds: EMPTY_SET,
  };
  return {
    get gateways() {
      return s.gateways.size;
    },
    get(typeUrl, node) {
      switch (typeUrl) {
        case TypeUrl.Cluster:
          // Envoy takes every lb policy; gRPC clients get their nearest valid one.
          return node.userAgent === 'envoy' ? s.cds : s.cdsGrpc;
        case TypeUrl.ClusterLoadAssignment:
          return s.eds;
        case TypeUrl.Listener: {
          const gw = s.gateways.size > 0 ? s.gateways.get(gatewayNameOf(node)) : undefined;
          return gw ? gatewaySets(s, gw).lds : s.lds;
        }
        case TypeUrl.RouteConfiguration: {
          const gw = s.gateways.size > 0 ? s.gateways.get(gatewayNameOf(node)) : undefined;
          return gw ? gatewaySets(s, gw).rds : s.rds;
        }
        default:
          return EMPTY_SET;
      }
    },
    rebuild: (services, changed) => rebuild(s, services, changed),
    updateGateways: (entries, ctx) => updateGateways(s, entries, ctx),
  };
}

function gatewaySets(s: State, gw: GatewayOutput): { lds: ResourceSet; rds: ResourceSet } {
  gw.lds ??= setOf(new Map([...s.lds.byName, ...gw.listeners]), new Set(gw.listeners.keys()));
  gw.rds ??= setOf(new Map([...s.rds.byName, ...gw.routes]), new Set([...s.rds.wildcard, ...gw.routes.keys()]));
  return { lds: gw.lds, rds: gw.rds };
}

/**
 * The shared set `prev` with the changed names' resources replaced, when every
 * one of them is a live service `prev` already holds live: the common change (a
 * registration moves one service's assignment) then costs a copy of the map,
 * not a rebuild of every service's entries. Undefined when the set must be
 * rebuilt: a name came, went, departed or came back, or is a subset's.
 */
function patched(
  prev: ResourceSet,
  services: ReadonlyMap<string, ServiceOutput>,
  names: ReadonlySet<string>,
  f: (s: ServiceOutput) => XdsResource,
  wildcardIsAll: boolean,
): ResourceSet | undefined {
  for (const n of names) {
    const s = services.get(n);
    if (!s || s.departed || !prev.byName.has(n) || (wildcardIsAll && !prev.wildcard.has(n))) return undefined;
  }
  const byName = new Map(prev.byName);
  for (const n of names) byName.set(n, f(services.get(n)!));
  return Object.freeze({ byName, wildcard: prev.wildcard });
}

/** CDS patched (patched()), when gRPC clients' set is CDS itself before and after (no flavour differs). */
function patchedClusters(
  state: State,
  services: ReadonlyMap<string, ServiceOutput>,
  names: ReadonlySet<string>,
): ResourceSet | undefined {
  if (names.size === 0) return state.cds;
  if (state.cdsGrpc !== state.cds) return undefined;
  for (const n of names) {
    const s = services.get(n);
    if (s && s.grpcCluster !== s.cluster) return undefined;
  }
  return patched(state.cds, services, names, (s) => s.cluster, true);
}

function rebuild(state: State, services: ReadonlyMap<string, ServiceOutput>, changed: ChangedNames): void {
  const edsNames = changed.get(TypeUrl.ClusterLoadAssignment)!;
  const rdsNames = changed.get(TypeUrl.RouteConfiguration)!;
  const ldsNames = changed.get(TypeUrl.Listener)!;
  const cds = patchedClusters(state, services, changed.get(TypeUrl.Cluster)!);
  const eds = edsNames.size > 0 ? patched(state.eds, services, edsNames, (s) => s.endpoints, true) : state.eds;
  const rds = rdsNames.size > 0 ? patched(state.rds, services, rdsNames, (s) => s.route, true) : state.rds;
  const lds = ldsNames.size > 0 ? patched(state.lds, services, ldsNames, (s) => s.listener, false) : state.lds;
  if (!cds || !eds || !rds || !lds) return rebuildAll(state, services, changed);
  if (cds !== state.cds) state.cds = state.cdsGrpc = cds;
  state.eds = eds;
  if (rds === state.rds && lds === state.lds) return;
  state.rds = rds;
  state.lds = lds;
  // A gateway's sets are the shared ones merged with its own: built again on its next get().
  for (const g of state.gateways.values()) {
    g.lds = undefined;
    g.rds = undefined;
  }
}

function rebuildAll(state: State, services: ReadonlyMap<string, ServiceOutput>, changed: ChangedNames): void {
  const pick = (f: (s: ServiceOutput) => XdsResource, fsub?: (s: SubsetOutput) => XdsResource) =>
    new Map(
      [...services].flatMap(([n, s]): [string, XdsResource][] => [
        [n, f(s)],
        ...(fsub ? [...s.subsets].map(([sn, o]): [string, XdsResource] => [sn, fsub(o)]) : []),
      ]),
    );
  // Departed services are kept for the clients that name them, never for a wildcard subscriber.
  const departed = new Set([...services].filter(([, s]) => s.departed).flatMap(([n, s]) => [n, ...s.subsets.keys()]));
  const setOfLive = (byName: Map<string, XdsResource>) =>
    setOf(byName, departed.size === 0 ? undefined : new Set([...byName.keys()].filter((n) => !departed.has(n))));
  if (changed.get(TypeUrl.Cluster)!.size > 0) {
    state.cds = setOfLive(
      pick(
        (s) => s.cluster,
        (o) => o.cluster,
      ),
    );
    const grpcDiffers = [...services.values()].some(
      (s) => s.grpcCluster !== s.cluster || [...s.subsets.values()].some((o) => o.grpcCluster !== o.cluster),
    );
    state.cdsGrpc = grpcDiffers
      ? setOfLive(
          pick(
            (s) => s.grpcCluster,
            (o) => o.grpcCluster,
          ),
        )
      : state.cds;
  }
  if (changed.get(TypeUrl.ClusterLoadAssignment)!.size > 0)
    state.eds = setOfLive(
      pick(
        (s) => s.endpoints,
        (o) => o.endpoints,
      ),
    );
  if (changed.get(TypeUrl.RouteConfiguration)!.size > 0) state.rds = setOfLive(pick((s) => s.route));
  // API listeners are never part of a wildcard LDS subscription.
  if (changed.get(TypeUrl.Listener)!.size > 0)
    state.lds = setOf(
      pick((s) => s.listener),
      new Set(),
    );
  for (const g of state.gateways.values()) {
    g.lds = undefined;
    g.rds = undefined;
  }
}

function updateGateways(s: State, entries: readonly ConfigEntry[], ctx: IngressContext): ResourceChange[] {
  const { cache, logger } = s;
  const next = new Map<string, GatewayOutput>();
  for (const entry of entries) {
    try {
      const built = buildGateway(entry, ctx);
      if (built.skipped.length > 0)
        logger.warn({ gateway: entry.Name, skipped: built.skipped }, 'ingress listeners left out');
      const gw: GatewayOutput = { listeners: new Map(), routes: new Map() };
      for (const [n, plain] of built.listeners) gw.listeners.set(n, cache.encode(TypeUrl.Listener, n, plain));
      for (const [n, plain] of built.routes) gw.routes.set(n, cache.encode(TypeUrl.RouteConfiguration, n, plain));
      next.set(entry.Name, gw);
    } catch (err) {
      logger.error({ err, gateway: entry.Name }, 'gateway translation failed; keeping its previous resources');
      const previous = s.gateways.get(entry.Name);
      if (previous) next.set(entry.Name, { listeners: previous.listeners, routes: previous.routes });
    }
  }
  const changes = gatewayChanges(cache, s.gateways, next);
  s.gateways = next;
  return changes;
}

/** What differs between the gateways' resources before and after, scoped to each gateway; the gone ones leave the cache. */
function gatewayChanges(
  cache: EncodeCache,
  gateways: Map<string, GatewayOutput>,
  next: Map<string, GatewayOutput>,
): ResourceChange[] {
  const changes: ResourceChange[] = [];
  for (const name of new Set([...gateways.keys(), ...next.keys()])) {
    const before = gateways.get(name);
    const after = next.get(name);
    for (const [typeUrl, a, b] of [
      [TypeUrl.Listener, before?.listeners, after?.listeners],
      [TypeUrl.RouteConfiguration, before?.routes, after?.routes],
    ] as const) {
      const names = new Set<string>();
      for (const [n, r] of b ?? []) if (a?.get(n) !== r) names.add(n);
      for (const n of a?.keys() ?? []) if (!b?.has(n)) names.add(n);
      for (const n of names) if (!b?.has(n)) cache.delete(typeUrl, n);
      if (names.size > 0) changes.push({ typeUrl, names, nodeScope: name });
    }
  }
  return changes;
}
