// Part of the catalog provider: what each sidecar Envoy gets (docs/mesh.md
// "What a sidecar gets"). An Envoy whose node id is a connect-proxy's service
// ID gets that proxy's own sets: Clusters (`local_app` and its upstreams' mesh
// clusters), Listeners (public and upstream), Secrets (its service's leaf and
// the trust bundle, nobody else's), and the shared mesh assignments and
// upstream routes. Changes are reported per name: a listener or cluster change
// only to that sidecar's node, a shared assignment, route or secret to whoever
// asked for it by name — so an intention change reaches only the sidecars of
// the destinations it affects, and a leaf renewal only that service's sidecars.
import type { Logger } from 'pino';
import type { CheckServiceNode, ConfigEntry, NodeService } from '../../../catalog/types';
import { mergeCentralConfig } from '../../../connect/central-config';
import {
  allIntentions,
  type DestinationPolicy,
  defaultIntention,
  destinationPolicy,
  type Intention,
  type IntentionAction,
} from '../../../connect/intentions';
import type { ConnectState } from '../../../connect/types';
import type { ResourceChange, ResourceSet, XdsResource } from '../../transport/provider';
import { TypeUrl } from '../../transport/type-urls';
import { type ChainEntries, resolverSubsets, subsetClusterName } from '../chain';
import { byNodeThenId } from '../endpoints';
import { buildIngressProxy } from '../ingress';
import { entryUint, globalProxyDefaults, protocolOf, record, str } from '../inputs';
import { type ServiceRef, serviceResourceName } from '../names';
import type { CatalogInputs, InputChanges } from '../view-inputs';
import { type ContentCache, createContentCache } from './cache';
import { LOCAL_APP, leafSecretName, meshClusterName, rootsSecretName } from './names';
import { createProxyIndex, isGateway, isTerminating, type Proxy as MeshProxy, type ProxyIndex } from './proxies';
import { localAppCluster, proxyConfig, publicListener } from './public';
import { leafSecret, rootsSecret } from './secrets';
import { buildTerminating, type LinkedService, linkedServices } from './terminating';
import {
  buildUpstream,
  type MeshContext,
  meshAssignment,
  meshCluster,
  upstreamProtocol,
  upstreamsOf,
} from './upstream';

type Sets = Map<string, ResourceSet>;
const EMPTY: ResourceSet = Object.freeze({ byName: new Map(), wildcard: new Set<string>() });
/** Types whose sidecar sets are per proxy; assignments and routes are shared by name. */
const OWN_TYPES = [TypeUrl.Cluster, TypeUrl.Listener, TypeUrl.Secret] as const;

export interface SidecarOptions {
  datacenter: string;
  defaultIntention: IntentionAction;
  logger: Logger;
}

export interface SidecarInputs {
  inputs: CatalogInputs;
  changes: InputChanges;
  chain: ChainEntries;
  universe: ReadonlyMap<string, ServiceRef>;
  ca: ConnectState;
  caChanges: CaChanges;
}

/** What the CA changed since the last update: roots, whose leaves, or everything (first update, restore). */
export type CaChanges = { roots: boolean; leaves: ReadonlySet<string> } | 'all';

export interface SidecarUpdate {
  changes: ResourceChange[];
  /** Node ids that became sidecars or stopped being one: their whole view moved. */
  switched: Set<string>;
}

export interface Sidecars {
  /** A sidecar's set of a type; undefined when the node is no registered proxy. */
  get(typeUrl: string, nodeId: string): ResourceSet | undefined;
  update(input: SidecarInputs): SidecarUpdate;
  readonly count: number;
}

interface Built {
  own: Map<string, Map<string, XdsResource>>;
  /** Chain clusters (plain names) its upstreams use, and the routes it names. */
  clusters: Set<string>;
  routes: Map<string, XdsResource>;
}

function setOf(byName: ReadonlyMap<string, XdsResource>, wildcard = true): ResourceSet {
  return Object.freeze({ byName, wildcard: wildcard ? new Set(byName.keys()) : new Set<string>() });
}

/** What the sidecars keep between updates. */
interface State {
  readonly options: SidecarOptions;
  readonly datacenter: string;
  readonly logger: Logger;
  readonly index: ProxyIndex;
  readonly cache: ContentCache;
  built: Map<string, Built>;
  sets: Map<string, Sets>;
  shared: { eds: Map<string, XdsResource>; rds: Map<string, XdsResource>; secrets: Map<string, XdsResource> };
  sharedSets: { eds: ResourceSet; rds: ResourceSet };
  memo: { entries: readonly ConfigEntry[]; intentions: Intention[] } | undefined;
  trustDomain: string;
}

/** What one update works from, read once. */
interface Pass {
  readonly input: SidecarInputs;
  readonly changes: ResourceChange[];
  readonly switched: Set<string>;
  readonly touched: { proxies: Set<string>; destinations: Set<string> };
  readonly td: string;
  readonly ca: CaChanges;
  readonly all: boolean;
  readonly ctx: MeshContext;
  readonly policyOf: (d: string) => DestinationPolicy;
  readonly fallback: IntentionAction;
  /** Terminating gateway name → the services its entry links. */
  readonly links: ReadonlyMap<string, readonly LinkedService[]>;
}

export function createSidecars(options: SidecarOptions): Sidecars {
  const s: State = {
    options,
    datacenter: options.datacenter,
    logger: options.logger,
    index: createProxyIndex(),
    cache: createContentCache(),
    built: new Map(),
    sets: new Map(),
    shared: { eds: new Map(), rds: new Map(), secrets: new Map() },
    sharedSets: { eds: EMPTY, rds: EMPTY },
    memo: undefined,
    trustDomain: '',
  };
  return {
    get count() {
      return s.built.size;
    },
    get(typeUrl, nodeId) {
      const own = s.sets.get(nodeId);
      if (!own) return undefined;
      if (typeUrl === TypeUrl.ClusterLoadAssignment) return s.sharedSets.eds;
      if (typeUrl === TypeUrl.RouteConfiguration) return s.sharedSets.rds;
      return own.get(typeUrl) ?? EMPTY;
    },
    update: (input) => update(s, input),
  };
}

function intentionsOf(s: State, entries: readonly ConfigEntry[]): Intention[] {
  if (s.memo?.entries !== entries) s.memo = { entries, intentions: allIntentions(entries) };
  return s.memo.intentions;
}

/** The proxy as its Envoy sees it: its registration with central config merged in (Consul's agent does the same). */
function withCentralConfig(csn: CheckServiceNode, ctx: MeshContext): CheckServiceNode {
  const proxy = record(csn.Service.Proxy);
  const merged = mergeCentralConfig(proxy, ctx.central);
  return merged === proxy ? csn : { ...csn, Service: { ...csn.Service, Proxy: merged as NodeService['Proxy'] } };
}

/** The services whose leaves a proxy's Envoy holds: its own, or a terminating gateway's linked services. */
function leafServicesOf(p: MeshProxy, links: Pass['links']): string[] {
  return isTerminating(p.csn) ? (links.get(p.destination) ?? []).map((l) => l.name) : [p.destination];
}

function buildProxy(s: State, p: MeshProxy, pass: Pass): Built {
  const { ctx, policyOf, fallback } = pass;
  const { cache } = s;
  const { destination } = p;
  const csn = withCentralConfig(p.csn, ctx);
  const td = ctx.id.trustDomain;
  const leaf = leafSecretName(td, s.datacenter, destination);
  const roots = rootsSecretName(td);
  if (isTerminating(csn)) return buildTerminatingProxy(s, csn, pass);
  if (isGateway(csn)) return buildIngress(s, p, ctx, leaf, roots);
  const resolved = protocolOf(ctx.defaults.get(destination), ctx.central.proxyDefaults);
  const protocol = (str(proxyConfig(csn)['protocol']) ?? resolved).toLowerCase();
  const cds = new Map<string, XdsResource>();
  const lds = new Map<string, XdsResource>();
  const routes = new Map<string, XdsResource>();
  const clusters = new Set<string>();
  const proxy = record(csn.Service.Proxy) ?? {};
  const local = {
    address: str(proxy['LocalServiceAddress']) ?? '127.0.0.1',
    port: entryUint(proxy['LocalServicePort']) ?? 0,
  };
  if (local.port > 0) {
    cds.set(LOCAL_APP, cache.encode(TypeUrl.Cluster, LOCAL_APP, localAppCluster({ proxy: csn, protocol, local })));
    const pub = publicListener({
      proxy: csn,
      destination,
      protocol,
      policy: policyOf(destination),
      fallback,
      id: ctx.id,
      leafSecret: leaf,
      rootsSecret: roots,
      local,
    });
    lds.set(String(pub['name']), cache.encode(TypeUrl.Listener, String(pub['name']), pub));
  } else {
    s.logger.warn({ proxy: p.id }, 'proxy has no LocalServicePort: no public listener');
  }
  for (const u of upstreamsOf(csn)) {
    const uProtocol = upstreamProtocol(u, ctx);
    const out = buildUpstream(u, uProtocol, ctx);
    lds.set(String(out.listener['name']), cache.encode(TypeUrl.Listener, String(out.listener['name']), out.listener));
    if (out.route) routes.set(u.destination, cache.encode(TypeUrl.RouteConfiguration, u.destination, out.route));
    for (const plain of out.clusters) {
      clusters.add(plain);
      const c = meshCluster(plain, uProtocol, u.config, leaf, roots, ctx);
      cds.set(String(c['name']), cache.encode(TypeUrl.Cluster, String(c['name']), c));
    }
  }
  return {
    own: new Map<string, Map<string, XdsResource>>([
      [TypeUrl.Cluster, cds],
      [TypeUrl.Listener, lds],
      [TypeUrl.Secret, new Map()],
    ]),
    clusters,
    routes,
  };
}

/** A registered ingress gateway's own sets (ingress.ts buildIngressProxy). */
function buildIngress(s: State, p: MeshProxy, ctx: MeshContext, leaf: string, roots: string): Built {
  const { cache } = s;
  const entry = ctx.ingress.entries.find((e) => e.Name === p.destination);
  const out = buildIngressProxy(p.csn, entry, ctx.ingress.services, ctx);
  for (const why of out.skipped) s.logger.warn({ gateway: p.id }, why);
  const cds = new Map<string, XdsResource>();
  const lds = new Map<string, XdsResource>();
  const routes = new Map<string, XdsResource>();
  for (const [n, l] of out.listeners) lds.set(n, cache.encode(TypeUrl.Listener, n, l));
  for (const [n, r] of out.routes) routes.set(n, cache.encode(TypeUrl.RouteConfiguration, n, r));
  for (const plain of out.clusters) {
    const protocol = protocolOf(ctx.defaults.get(plain), ctx.central.proxyDefaults).toLowerCase();
    const c = meshCluster(plain, protocol, {}, leaf, roots, ctx);
    cds.set(String(c['name']), cache.encode(TypeUrl.Cluster, String(c['name']), c));
  }
  const own = new Map<string, Map<string, XdsResource>>([
    [TypeUrl.Cluster, cds],
    [TypeUrl.Listener, lds],
    [TypeUrl.Secret, new Map()],
  ]);
  return { own, clusters: out.clusters, routes };
}

/** A registered terminating gateway's own sets (terminating.ts). */
function buildTerminatingProxy(s: State, gateway: CheckServiceNode, pass: Pass): Built {
  const out = buildTerminating({
    gateway,
    linked: pass.links.get(gateway.Service.Service) ?? [],
    instancesOf: (service) => pass.input.inputs.instances(service).value.filter((c) => c.Service.Kind === ''),
    ctx: pass.ctx,
    policyOf: pass.policyOf,
    fallback: pass.fallback,
  });
  const encoded = (typeUrl: string, from: Map<string, Record<string, unknown>>) =>
    new Map([...from].map(([n, r]) => [n, s.cache.encode(typeUrl, n, r)] as const));
  const own = new Map<string, Map<string, XdsResource>>([
    [TypeUrl.Cluster, encoded(TypeUrl.Cluster, out.clusters)],
    [TypeUrl.Listener, encoded(TypeUrl.Listener, out.listeners)],
    [TypeUrl.Secret, new Map()],
  ]);
  return { own, clusters: new Set(), routes: new Map() };
}

/**
 * What terminating gateways add to a change: a gateway that moved moves the mesh endpoints of the
 * services it links; a linked service's instances that moved change the gateway's clusters.
 */
function touchTerminating(
  s: State,
  links: Pass['links'],
  changes: InputChanges,
  touched: { proxies: Set<string>; destinations: Set<string> },
): void {
  for (const [gateway, linked] of links) {
    if (touched.destinations.has(gateway)) for (const l of linked) touched.destinations.add(l.name);
    if (linked.some((l) => changes.services.has(l.name)))
      for (const csn of s.index.terminatingGateways(gateway)) touched.proxies.add(csn.Service.ID);
  }
}

/** Names whose resource differs between two maps (same version counts as the same). */
function changedNames(
  a: ReadonlyMap<string, XdsResource> | undefined,
  b: ReadonlyMap<string, XdsResource> | undefined,
  keep: Map<string, XdsResource>,
): Set<string> {
  const names = new Set<string>();
  for (const [n, r] of b ?? []) {
    const old = a?.get(n);
    if (old && old.version === r.version) keep.set(n, old);
    else names.add(n);
  }
  for (const n of a?.keys() ?? []) if (!b?.has(n)) names.add(n);
  return names;
}

function update(s: State, input: SidecarInputs): SidecarUpdate {
  const changes: ResourceChange[] = [];
  const switched = new Set<string>();
  const touched = s.index.update(input.inputs, input.changes);
  const links = linkedServices(input.inputs.entries('terminating-gateway'), outsideTheMesh(s, input));
  touchTerminating(s, links, input.changes, touched);
  const td = input.ca.trustDomain;
  // A new trust domain (the CA's first root) renames every secret and SAN: everything is rebuilt.
  const tdChanged = td !== s.trustDomain;
  s.trustDomain = td;
  const ca = input.caChanges === 'all' || tdChanged ? ('all' as const) : input.caChanges;
  const all = input.changes.all || tdChanged;
  const caTouched = ca === 'all' || ca.roots || ca.leaves.size > 0;
  if (!all && !caTouched && touched.proxies.size === 0 && touched.destinations.size === 0) return { changes, switched };

  const ctx = meshContext(s, input, td, links);
  const fallback = defaultIntention(
    input.inputs.entries('mesh').find((e) => e.Name === 'mesh'),
    s.options.defaultIntention,
  );
  const intentions = intentionsOf(s, input.inputs.entries('service-intentions'));
  const policies = new Map<string, DestinationPolicy>();
  const policyOf = (d: string) => {
    let p = policies.get(d);
    if (!p) policies.set(d, (p = destinationPolicy(intentions, d, fallback)));
    return p;
  };
  const pass: Pass = { input, changes, switched, touched, td, ca, all, ctx, policyOf, fallback, links };

  const { secrets, secretChanges } = updateSecrets(s, pass);
  const next = updateProxies(s, pass, secrets, secretChanges);
  if (!all && touched.proxies.size === 0 && touched.destinations.size === 0) {
    s.cache.sweep();
    return { changes, switched };
  }
  updateShared(s, pass, next, secrets);
  s.cache.sweep();
  return { changes, switched };
}

/** Services with an instance that is no proxy or gateway: what a `*` ingress listener exposes, as in Consul. */
function plainServices(input: SidecarInputs): ServiceRef[] {
  return [...input.universe.values()].filter((ref) =>
    input.inputs.instances(ref.name).value.some((c) => c.Service.Kind === ''),
  );
}

/** What a terminating gateway's `*` links: services with a plain instance and no sidecar or Connect-native one, but itself. */
function outsideTheMesh(s: State, input: SidecarInputs): (gateway: string) => string[] {
  let outside: string[] | undefined;
  return (gateway) => {
    outside ??= plainServices(input)
      .map((ref) => ref.name)
      .filter((name) => s.index.endpointsOf(name).length === 0);
    return outside.filter((name) => name !== gateway);
  };
}

/** A service's mesh endpoints: its sidecars and Connect-native instances, and the terminating gateways linking it. */
function meshEndpoints(s: State, links: Pass['links']): (service: string) => readonly CheckServiceNode[] {
  const linkedBy = new Map<string, string[]>();
  for (const [gateway, linked] of links)
    for (const l of linked) linkedBy.set(l.name, [...(linkedBy.get(l.name) ?? []), gateway]);
  return (service) => {
    const gateways = linkedBy.get(service);
    const own = s.index.endpointsOf(service);
    if (!gateways) return own;
    return [...own, ...gateways.flatMap((g) => s.index.terminatingGateways(g))].sort(byNodeThenId);
  };
}

function meshContext(s: State, input: SidecarInputs, td: string, links: Pass['links']): MeshContext {
  let plain: ServiceRef[] | undefined;
  const defaults = new Map(
    input.inputs
      .entries('service-defaults')
      .map((e) => [serviceResourceName({ name: e.Name, namespace: e.Namespace, partition: e.Partition }), e]),
  );
  const targets = new Map<string, { ref: ServiceRef; subset?: string }>();
  for (const [name, ref] of input.universe) {
    targets.set(name, { ref });
    for (const sub of resolverSubsets(input.chain.resolvers.get(name)).keys())
      targets.set(subsetClusterName(name, sub), { ref, subset: sub });
  }
  const proxyDefaults = globalProxyDefaults(input.inputs.entries('proxy-defaults'));
  return {
    id: { trustDomain: td, datacenter: s.datacenter },
    chain: input.chain,
    defaults,
    central: { proxyDefaults, serviceDefaults: (service) => defaults.get(service) },
    targets,
    endpointsOf: meshEndpoints(s, links),
    ingress: { entries: input.inputs.entries('ingress-gateway'), services: () => (plain ??= plainServices(input)) },
  };
}

function updateSecrets(s: State, pass: Pass): { secrets: Map<string, XdsResource>; secretChanges: Set<string> } {
  const { input, td, ca } = pass;
  // Secrets first (a proxy's SDS set points at them): the bundle, and a leaf for every service that has a
  // proxy. Only what the CA changed, or a new proxy needs, is encoded again.
  const secrets = new Map<string, XdsResource>();
  if (td !== '') {
    const rootsName = rootsSecretName(td);
    const oldRoots = s.shared.secrets.get(rootsName);
    secrets.set(
      rootsName,
      oldRoots && ca !== 'all' && !ca.roots
        ? oldRoots
        : s.cache.encode(TypeUrl.Secret, rootsName, rootsSecret(rootsName, input.ca.roots)),
    );
    for (const p of s.index.byId.values()) {
      for (const service of leafServicesOf(p, pass.links)) {
        const name = leafSecretName(td, s.datacenter, service);
        if (secrets.has(name)) continue;
        const old = s.shared.secrets.get(name);
        const leaf = input.ca.leaves.get(service);
        if (old && ca !== 'all' && !ca.leaves.has(service)) secrets.set(name, old);
        else if (leaf) secrets.set(name, s.cache.encode(TypeUrl.Secret, name, leafSecret(name, leaf)));
      }
    }
  }
  const keepSecrets = new Map<string, XdsResource>();
  const secretChanges = changedNames(s.shared.secrets, secrets, keepSecrets);
  for (const [n, r] of keepSecrets) secrets.set(n, r);
  s.shared = { ...s.shared, secrets };
  if (secretChanges.size > 0) pass.changes.push({ typeUrl: TypeUrl.Secret, names: secretChanges });
  return { secrets, secretChanges };
}

/** Each proxy's own sets, rebuilt when it or everything changed, its secrets re-pointed when they changed. */
function updateProxies(
  s: State,
  pass: Pass,
  secrets: Map<string, XdsResource>,
  secretChanges: Set<string>,
): Map<string, Built> {
  const { td, all, touched, switched } = pass;
  const next = new Map<string, Built>();
  const nextSets = new Map<string, Sets>();
  for (const [id, p] of s.index.byId) {
    const before = s.built.get(id);
    if (!before) switched.add(id);
    if (td === '') continue; // no CA yet: nothing a sidecar could use
    const secretNames = [
      ...leafServicesOf(p, pass.links).map((service) => leafSecretName(td, s.datacenter, service)),
      rootsSecretName(td),
    ];
    const rebuild = !before || all || touched.proxies.has(id);
    if (!rebuild && !secretNames.some((n) => secretChanges.has(n))) {
      next.set(id, before);
      nextSets.set(id, s.sets.get(id)!);
      continue;
    }
    let out: Built;
    try {
      out = rebuild ? buildProxy(s, p, pass) : before!;
    } catch (err) {
      s.logger.error({ err, proxy: id }, 'sidecar translation failed; keeping its previous resources');
      if (!before) continue;
      out = before;
    }
    // Its service's leaf (a terminating gateway: its linked services') and the trust bundle, nobody else's.
    const sds = new Map<string, XdsResource>();
    for (const n of secretNames) if (secrets.has(n)) sds.set(n, secrets.get(n)!);
    out = { ...out, own: new Map([...out.own, [TypeUrl.Secret, sds]]) };
    next.set(id, out);
    nextSets.set(id, ownSets(s, pass.changes, id, before, out));
  }
  for (const id of s.built.keys()) if (!next.has(id)) switched.add(id);
  s.built = next;
  s.sets = nextSets;
  return next;
}

/** A proxy's sets of its own types, the old set kept where nothing in it changed. */
function ownSets(s: State, changes: ResourceChange[], id: string, before: Built | undefined, out: Built): Sets {
  const own = new Map<string, ResourceSet>();
  for (const typeUrl of OWN_TYPES) {
    const keep = new Map<string, XdsResource>();
    const names = changedNames(before?.own.get(typeUrl), out.own.get(typeUrl), keep);
    for (const [n, r] of keep) out.own.get(typeUrl)!.set(n, r);
    if (names.size > 0 && before) changes.push({ typeUrl, names, nodeIds: new Set([id]) });
    const old = s.sets.get(id)?.get(typeUrl);
    own.set(typeUrl, names.size === 0 && old ? old : setOf(out.own.get(typeUrl)!, typeUrl !== TypeUrl.Secret));
  }
  return own;
}

function updateShared(s: State, pass: Pass, next: Map<string, Built>, secrets: Map<string, XdsResource>): void {
  const { input, td, all, touched, ctx } = pass;
  // Shared: every mesh assignment and upstream route some sidecar names.
  const eds = new Map<string, XdsResource>();
  const rds = new Map<string, XdsResource>();
  for (const b of next.values()) {
    for (const [n, r] of b.routes) rds.set(n, r);
    for (const plain of b.clusters) {
      const t = ctx.targets.get(plain)?.ref.name ?? plain;
      const meshName = meshClusterName(plain, s.datacenter, td);
      if (eds.has(meshName)) continue;
      const old = s.shared.eds.get(meshName);
      const failover =
        (input.chain.resolvers.get(t) && record(input.chain.resolvers.get(t)!['Failover'])) !== undefined;
      const fresh = all || !old || touched.destinations.has(t) || failover;
      eds.set(
        meshName,
        fresh ? s.cache.encode(TypeUrl.ClusterLoadAssignment, meshName, meshAssignment(plain, ctx)) : old,
      );
    }
  }
  for (const [typeUrl, before, after] of [
    [TypeUrl.ClusterLoadAssignment, s.shared.eds, eds],
    [TypeUrl.RouteConfiguration, s.shared.rds, rds],
  ] as const) {
    const keep = new Map<string, XdsResource>();
    const names = changedNames(before, after, keep);
    for (const [n, r] of keep) after.set(n, r);
    if (names.size > 0) pass.changes.push({ typeUrl, names });
  }
  s.shared = { eds, rds, secrets };
  s.sharedSets = { eds: setOf(eds, false), rds: setOf(rds, false) };
}
