// The ResourceProvider built from catalog views, in four parts: tracking the
// inputs (view-inputs.ts), retranslating the services a change touched
// (service-resources.ts), the sets each node sees, ingress gateways
// included (node-sets.ts), and the sidecars' own sets (sidecar/sidecars.ts,
// which also read the built-in CA). Changes are folded per event-loop turn; the
// transport gets shared, already-encoded resources (invariant 5, docs/architecture.md)
// and the names that changed.
import type { Logger } from 'pino';
import type { IntentionAction } from '../../connect/intentions';
import type { ConnectSource } from '../../connect/source';
import { emptyConnectState } from '../../connect/state';
import type { ConnectChange } from '../../connect/types';
import { moduleLogger } from '../../logger';
import type { ViewStore } from '../../materializer/types';
import type { ResourceChange, ResourceProvider, XdsNode } from '../transport/provider';
import { RESOURCE_TYPES } from '../transport/resource-types';
import type { ChainEntries } from './chain';
import { createEncodeCache, type EncodeCache } from './encode';
import type { ServiceRef } from './names';
import { createNodeSets, type NodeSets } from './node-sets';
import { routesForService } from './route';
import { createServiceResources, type ServiceResources } from './service-resources';
import { type CaChanges, createSidecars, type Sidecars } from './sidecar/sidecars';
import { type CatalogInputs, type InputChanges, watchCatalogInputs } from './view-inputs';

export interface CatalogXdsProviderOptions {
  views: ViewStore;
  logger: Logger;
  /** ACL token the hub reads its own views with. */
  token?: string;
  /** Keep critical instances as UNHEALTHY endpoints (default, as Consul) instead of leaving them out. */
  keepUnhealthy?: boolean;
  /** The built-in CA (sidecars get their certificates from it); without it no sidecar gets resources. */
  connect?: ConnectSource;
  /** The hub's datacenter (it is in every SPIFFE ID). */
  datacenter?: string;
  /** What sidecars do with traffic no intention matches (a mesh entry's DefaultIntentionPolicy wins). */
  defaultIntention?: IntentionAction;
}

export interface CatalogXdsProvider extends ResourceProvider {
  /** Resolves once the service list, every watched config kind and every listed service's health have arrived. */
  ready(): Promise<void>;
  /**
   * Forgets every departed service (docs/xds.md, "The provider") at the next translation: for
   * the ops shadow, whose resources must follow the state it was synced to, not the states before.
   */
  forgetDeparted(): void;
  /** Counts for the admin page and tests. */
  stats(): {
    services: number;
    gateways: number;
    sidecars: number;
    encodes: number;
    cacheHits: number;
    flushes: number;
  };
  close(): void;
}

/** What the provider keeps between flushes. */
interface State {
  readonly options: CatalogXdsProviderOptions;
  readonly logger: Logger;
  readonly cache: EncodeCache;
  readonly services: ServiceResources;
  readonly sets: NodeSets;
  readonly sidecars: Sidecars;
  /** What the CA changed since the last flush: roots, whose leaves, or everything (start, restore). */
  caChanges: CaChanges;
  readonly listeners: Set<(changes: readonly ResourceChange[]) => void>;
  readonly readyWaiters: (() => void)[];
  scheduled: boolean;
  closed: boolean;
  flushes: number;
  forgetDeparted: boolean;
}

export function createCatalogXdsProvider(options: CatalogXdsProviderOptions): CatalogXdsProvider {
  const logger = moduleLogger(options.logger, 'xds-provider');
  const cache = createEncodeCache();
  const datacenter = options.datacenter ?? 'dc1';
  const s: State = {
    options,
    logger,
    cache,
    services: createServiceResources(cache, logger, options.keepUnhealthy ?? true),
    sets: createNodeSets(cache, logger),
    sidecars: createSidecars({ datacenter, defaultIntention: options.defaultIntention ?? 'allow', logger }),
    caChanges: 'all',
    listeners: new Set(),
    readyWaiters: [],
    scheduled: false,
    closed: false,
    flushes: 0,
    forgetDeparted: false,
  };
  const flushNow = () => flush(s, inputs);
  const schedule = () => {
    if (s.scheduled || s.closed) return;
    s.scheduled = true;
    setImmediate(flushNow);
  };
  const inputs = watchCatalogInputs(options.views, options.token ?? '', logger, schedule);
  const offConnect = options.connect?.onChange((change) => {
    foldCaChange(s, change);
    schedule();
  });

  schedule();

  return {
    get: (typeUrl, node) => s.sidecars.get(typeUrl, node.id) ?? s.sets.get(typeUrl, node),
    onChange(listener) {
      s.listeners.add(listener);
      return () => s.listeners.delete(listener);
    },
    forgetDeparted() {
      s.forgetDeparted = true;
      schedule();
    },
    ready() {
      if (inputs.ready() && !s.scheduled) return Promise.resolve();
      return new Promise((resolve) => s.readyWaiters.push(resolve));
    },
    stats() {
      const c = cache.stats();
      return {
        services: [...s.services.services.values()].filter((x) => !x.departed).length,
        gateways: s.sets.gateways,
        sidecars: s.sidecars.count,
        encodes: c.encodes,
        cacheHits: c.hits,
        flushes: s.flushes,
      };
    },
    close() {
      if (s.closed) return;
      s.closed = true;
      inputs.close();
      offConnect?.();
      s.listeners.clear();
    },
  };
}

function foldCaChange(s: State, change: ConnectChange | 'all'): void {
  if (s.caChanges === 'all') return;
  if (change === 'all') s.caChanges = 'all';
  else
    s.caChanges = {
      roots: s.caChanges.roots || change.roots,
      leaves: new Set([...s.caChanges.leaves, ...change.leaves]),
    };
}

function flush(s: State, inputs: CatalogInputs): void {
  s.scheduled = false;
  if (s.closed) return;
  s.flushes++;
  const started = process.hrtime.bigint();
  const changes = inputs.takeChanges();
  const { changed, universe, chain } = s.services.update(inputs, changes, s.forgetDeparted);
  s.forgetDeparted = false;
  const out: ResourceChange[] = [];
  for (const [typeUrl, names] of changed) if (names.size > 0) out.push({ typeUrl, names });
  if (out.length > 0) s.sets.rebuild(s.services.services, changed);
  // Gateway resources depend on entries, routes and the service universe, never on health.
  if (changes.all) {
    const httpRoutes = inputs.entries('http-route');
    const ctx = {
      services: [...universe.values()],
      routesFor: (ref: ServiceRef) => routesForService(ref, httpRoutes, chain),
    };
    out.push(...s.sets.updateGateways(inputs.entries('ingress-gateway'), ctx));
  }
  sidecarChanges(s, inputs, changes, chain, universe, out);
  if (out.length > 0) tell(s, out, started);
  if (inputs.ready()) s.readyWaiters.splice(0).forEach((w) => w());
}

/** Adds the sidecars' changes to `out`. */
function sidecarChanges(
  s: State,
  inputs: CatalogInputs,
  changes: InputChanges,
  chain: ChainEntries,
  universe: ReadonlyMap<string, ServiceRef>,
  out: ResourceChange[],
): void {
  const { sets, sidecars } = s;
  try {
    const mesh = sidecars.update({
      inputs,
      changes,
      chain,
      universe,
      ca: s.options.connect?.state() ?? emptyConnectState(),
      caChanges: s.caChanges,
    });
    s.caChanges = { roots: false, leaves: new Set() };
    out.push(...mesh.changes);
    // A node that became a sidecar (or stopped being one) sees another set of every type: all those names changed for it.
    for (const id of mesh.switched) {
      const node: XdsNode = { id, cluster: '', clientFeatures: [], userAgent: 'envoy' };
      for (const t of RESOURCE_TYPES) {
        const names = new Set([
          ...sets.get(t.typeUrl, node).byName.keys(),
          ...(sidecars.get(t.typeUrl, id)?.byName.keys() ?? []),
        ]);
        if (names.size > 0) out.push({ typeUrl: t.typeUrl, names, nodeIds: new Set([id]) });
      }
    }
  } catch (err) {
    s.logger.error({ err }, 'sidecar translation failed; keeping the previous sidecar resources');
  }
}

/** Hands the flush's changes to every listener. */
function tell(s: State, out: readonly ResourceChange[], started: bigint): void {
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  s.logger.debug(
    { changes: out.map((c) => ({ type: c.typeUrl, n: c.names.size, node: c.nodeScope })), ms },
    'resources changed',
  );
  for (const l of s.listeners) {
    try {
      l(out);
    } catch (err) {
      s.logger.error({ err }, 'onChange listener threw');
    }
  }
}
