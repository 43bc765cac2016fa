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
import type { ConfigEntry } from '../../../catalog/types';
import { allIntentions, defaultIntention, destinationPolicy, type DestinationPolicy, type Intention, type IntentionAction } from '../../../connect/intentions';
import type { ConnectState } from '../../../connect/types';
import type { ResourceChange, ResourceSet, XdsResource } from '../../transport/provider';
import { TypeUrl } from '../../transport/type-urls';
import { resolverSubsets, subsetClusterName, type ChainEntries } from '../chain';
import { protocolOf, record, str, entryUint } from '../inputs';
import { serviceResourceName, type ServiceRef } from '../names';
import type { CatalogInputs, InputChanges } from '../view-inputs';
import { createContentCache } from './cache';
import { LOCAL_APP, leafSecretName, meshClusterName, rootsSecretName } from './names';
import { createProxyIndex, type Proxy } from './proxies';
import { localAppCluster, proxyConfig, publicListener } from './public';
import { buildUpstream, meshAssignment, meshCluster, upstreamProtocol, upstreamsOf, type MeshContext } from './upstream';
import { leafSecret, rootsSecret } from './secrets';

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

export function createSidecars(options: SidecarOptions): Sidecars {
  const { datacenter, logger } = options;
  const index = createProxyIndex();
  const cache = createContentCache();
  let built = new Map<string, Built>();
  let sets = new Map<string, Sets>();
  let shared = { eds: new Map<string, XdsResource>(), rds: new Map<string, XdsResource>(), secrets: new Map<string, XdsResource>() };
  let sharedSets = { eds: EMPTY, rds: EMPTY };
  let memo: { entries: readonly ConfigEntry[]; intentions: Intention[] } | undefined;
  let trustDomain = '';

  function intentionsOf(entries: readonly ConfigEntry[]): Intention[] {
    if (memo?.entries !== entries) memo = { entries, intentions: allIntentions(entries) };
    return memo.intentions;
  }

  function buildProxy(p: Proxy, ctx: MeshContext, policyOf: (d: string) => DestinationPolicy, fallback: IntentionAction): Built {
    const { csn, destination } = p;
    const td = ctx.id.trustDomain;
    const leaf = leafSecretName(td, datacenter, destination);
    const roots = rootsSecretName(td);
    const protocol = (str(proxyConfig(csn)['protocol']) ?? protocolOf(ctx.defaults.get(destination))).toLowerCase();
    const cds = new Map<string, XdsResource>();
    const lds = new Map<string, XdsResource>();
    const routes = new Map<string, XdsResource>();
    const clusters = new Set<string>();
    const proxy = record(csn.Service.Proxy) ?? {};
    const local = { address: str(proxy['LocalServiceAddress']) ?? '127.0.0.1', port: entryUint(proxy['LocalServicePort']) ?? 0 };
    if (local.port > 0) {
      cds.set(LOCAL_APP, cache.encode(TypeUrl.Cluster, LOCAL_APP, localAppCluster({ proxy: csn, protocol, local })));
      const pub = publicListener({ proxy: csn, destination, protocol, policy: policyOf(destination), fallback, id: ctx.id, leafSecret: leaf, rootsSecret: roots, local });
      lds.set(String(pub['name']), cache.encode(TypeUrl.Listener, String(pub['name']), pub));
    } else {
      logger.warn({ proxy: p.id }, 'proxy has no LocalServicePort: no public listener');
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
    return { own: new Map<string, Map<string, XdsResource>>([[TypeUrl.Cluster, cds], [TypeUrl.Listener, lds], [TypeUrl.Secret, new Map()]]), clusters, routes };
  }

  /** Names whose resource differs between two maps (same version counts as the same). */
  function changedNames(a: ReadonlyMap<string, XdsResource> | undefined, b: ReadonlyMap<string, XdsResource> | undefined, keep: Map<string, XdsResource>): Set<string> {
    const names = new Set<string>();
    for (const [n, r] of b ?? []) {
      const old = a?.get(n);
      if (old && old.version === r.version) keep.set(n, old);
      else names.add(n);
    }
    for (const n of a?.keys() ?? []) if (!b?.has(n)) names.add(n);
    return names;
  }

  return {
    get count() {
      return built.size;
    },
    get(typeUrl, nodeId) {
      const own = sets.get(nodeId);
      if (!own) return undefined;
      if (typeUrl === TypeUrl.ClusterLoadAssignment) return sharedSets.eds;
      if (typeUrl === TypeUrl.RouteConfiguration) return sharedSets.rds;
      return own.get(typeUrl) ?? EMPTY;
    },
    update(input) {
      const changes: ResourceChange[] = [];
      const switched = new Set<string>();
      const touched = index.update(input.inputs, input.changes);
      const td = input.ca.trustDomain;
      // A new trust domain (the CA's first root) renames every secret and SAN: everything is rebuilt.
      const tdChanged = td !== trustDomain;
      trustDomain = td;
      const ca = input.caChanges === 'all' || tdChanged ? ('all' as const) : input.caChanges;
      const all = input.changes.all || tdChanged;
      const caTouched = ca === 'all' || ca.roots || ca.leaves.size > 0;
      if (!all && !caTouched && touched.proxies.size === 0 && touched.destinations.size === 0) return { changes, switched };

      const defaults = new Map(input.inputs.entries('service-defaults').map((e) => [serviceResourceName({ name: e.Name, namespace: e.Namespace, partition: e.Partition }), e]));
      const targets = new Map<string, { ref: ServiceRef; subset?: string }>();
      for (const [name, ref] of input.universe) {
        targets.set(name, { ref });
        for (const sub of resolverSubsets(input.chain.resolvers.get(name)).keys()) targets.set(subsetClusterName(name, sub), { ref, subset: sub });
      }
      const ctx: MeshContext = { id: { trustDomain: td, datacenter }, chain: input.chain, defaults, targets, endpointsOf: index.endpointsOf };
      const fallback = defaultIntention(input.inputs.entries('mesh').find((e) => e.Name === 'mesh'), options.defaultIntention);
      const intentions = intentionsOf(input.inputs.entries('service-intentions'));
      const policies = new Map<string, DestinationPolicy>();
      const policyOf = (d: string) => {
        let p = policies.get(d);
        if (!p) policies.set(d, (p = destinationPolicy(intentions, d, fallback)));
        return p;
      };

      // Secrets first (a proxy's SDS set points at them): the bundle, and a leaf for every service that has a
      // proxy. Only what the CA changed, or a new proxy needs, is encoded again.
      const secrets = new Map<string, XdsResource>();
      if (td !== '') {
        const rootsName = rootsSecretName(td);
        const oldRoots = shared.secrets.get(rootsName);
        secrets.set(rootsName, oldRoots && ca !== 'all' && !ca.roots ? oldRoots : cache.encode(TypeUrl.Secret, rootsName, rootsSecret(rootsName, input.ca.roots)));
        for (const p of index.byId.values()) {
          const name = leafSecretName(td, datacenter, p.destination);
          if (secrets.has(name)) continue;
          const old = shared.secrets.get(name);
          const leaf = input.ca.leaves.get(p.destination);
          if (old && ca !== 'all' && !ca.leaves.has(p.destination)) secrets.set(name, old);
          else if (leaf) secrets.set(name, cache.encode(TypeUrl.Secret, name, leafSecret(name, leaf)));
        }
      }
      const keepSecrets = new Map<string, XdsResource>();
      const secretChanges = changedNames(shared.secrets, secrets, keepSecrets);
      for (const [n, r] of keepSecrets) secrets.set(n, r);
      shared = { ...shared, secrets };
      if (secretChanges.size > 0) changes.push({ typeUrl: TypeUrl.Secret, names: secretChanges });

      const next = new Map<string, Built>();
      const nextSets = new Map<string, Sets>();
      for (const [id, p] of index.byId) {
        const before = built.get(id);
        if (!before) switched.add(id);
        if (td === '') continue; // no CA yet: nothing a sidecar could use
        const leafName = leafSecretName(td, datacenter, p.destination);
        const rebuild = !before || all || touched.proxies.has(id);
        if (!rebuild && !secretChanges.has(leafName) && !secretChanges.has(rootsSecretName(td))) {
          next.set(id, before);
          nextSets.set(id, sets.get(id)!);
          continue;
        }
        let out: Built;
        try {
          out = rebuild ? buildProxy(p, ctx, policyOf, fallback) : before!;
        } catch (err) {
          logger.error({ err, proxy: id }, 'sidecar translation failed; keeping its previous resources');
          if (!before) continue;
          out = before;
        }
        // Its service's leaf and the trust bundle, nobody else's.
        const sds = new Map<string, XdsResource>();
        for (const n of [leafName, rootsSecretName(td)]) if (secrets.has(n)) sds.set(n, secrets.get(n)!);
        out = { ...out, own: new Map([...out.own, [TypeUrl.Secret, sds]]) };
        const own = new Map<string, ResourceSet>();
        for (const typeUrl of OWN_TYPES) {
          const keep = new Map<string, XdsResource>();
          const names = changedNames(before?.own.get(typeUrl), out.own.get(typeUrl), keep);
          for (const [n, r] of keep) out.own.get(typeUrl)!.set(n, r);
          if (names.size > 0 && before) changes.push({ typeUrl, names, nodeIds: new Set([id]) });
          const old = sets.get(id)?.get(typeUrl);
          own.set(typeUrl, names.size === 0 && old ? old : setOf(out.own.get(typeUrl)!, typeUrl !== TypeUrl.Secret));
        }
        next.set(id, out);
        nextSets.set(id, own);
      }
      for (const id of built.keys()) if (!next.has(id)) switched.add(id);
      built = next;
      sets = nextSets;
      if (!all && touched.proxies.size === 0 && touched.destinations.size === 0) {
        cache.sweep();
        return { changes, switched };
      }

      // Shared: every mesh assignment and upstream route some sidecar names.
      const eds = new Map<string, XdsResource>();
      const rds = new Map<string, XdsResource>();
      for (const b of next.values()) {
        for (const [n, r] of b.routes) rds.set(n, r);
        for (const plain of b.clusters) {
          const t = targets.get(plain)?.ref.name ?? plain;
          const meshName = meshClusterName(plain, datacenter, td);
          if (eds.has(meshName)) continue;
          const old = shared.eds.get(meshName);
          const failover = (input.chain.resolvers.get(t) && record(input.chain.resolvers.get(t)!['Failover'])) !== undefined;
          const fresh = all || !old || touched.destinations.has(t) || failover;
          eds.set(meshName, fresh ? cache.encode(TypeUrl.ClusterLoadAssignment, meshName, meshAssignment(plain, ctx)) : old);
        }
      }
      for (const [typeUrl, before, after] of [[TypeUrl.ClusterLoadAssignment, shared.eds, eds], [TypeUrl.RouteConfiguration, shared.rds, rds]] as const) {
        const keep = new Map<string, XdsResource>();
        const names = changedNames(before, after, keep);
        for (const [n, r] of keep) after.set(n, r);
        if (names.size > 0) changes.push({ typeUrl, names });
      }
      shared = { eds, rds, secrets };
      sharedSets = { eds: setOf(eds, false), rds: setOf(rds, false) };
      cache.sweep();
      return { changes, switched };
    },
  };
}
