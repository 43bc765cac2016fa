// The ResourceProvider built from catalog views, in four parts: tracking the
// inputs (view-inputs.ts), retranslating the services a change touched
// (service-resources.ts), the sets each node sees, ingress gateways
// included (node-sets.ts), and the sidecars' own sets (sidecar/sidecars.ts,
// which also read the built-in CA). Changes are folded per event-loop turn; the
// transport gets shared, already-encoded resources (invariant 5, docs/architecture.md)
// and the names that changed.
import type { Logger } from 'pino';
import { moduleLogger } from '../../logger';
import type { ViewStore } from '../../materializer/types';
import type { ConnectSource } from '../../connect/source';
import type { IntentionAction } from '../../connect/intentions';
import { emptyConnectState } from '../../connect/state';
import type { ResourceChange, ResourceProvider, XdsNode } from '../transport/provider';
import { RESOURCE_TYPES } from '../transport/resource-types';
import { createSidecars, type CaChanges } from './sidecar/sidecars';
import { createEncodeCache } from './encode';
import { createNodeSets } from './node-sets';
import { routesForService } from './route';
import { createServiceResources } from './service-resources';
import type { ServiceRef } from './names';
import { watchCatalogInputs } from './view-inputs';

export interface CatalogXdsProviderOptions {
  views: ViewStore;
  logger: Logger;
  /** ACL token the hub reads its own views with. */
  token?: string;
  /** Keep critical instances as UNHEALTHY endpoints instead of leaving them out. */
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
  stats(): { services: number; gateways: number; sidecars: number; encodes: number; cacheHits: number; flushes: number };
  close(): void;
}

export function createCatalogXdsProvider(options: CatalogXdsProviderOptions): CatalogXdsProvider {
  const logger = moduleLogger(options.logger, 'xds-provider');
  const cache = createEncodeCache();
  const services = createServiceResources(cache, logger, options.keepUnhealthy);
  const sets = createNodeSets(cache, logger);
  const datacenter = options.datacenter ?? 'dc1';
  const sidecars = createSidecars({ datacenter, defaultIntention: options.defaultIntention ?? 'allow', logger });
  /** What the CA changed since the last flush: roots, whose leaves, or everything (start, restore). */
  let caChanges: CaChanges = 'all';
  const listeners = new Set<(changes: readonly ResourceChange[]) => void>();
  const readyWaiters: (() => void)[] = [];
  let scheduled = false;
  let closed = false;
  let flushes = 0;
  let forgetDeparted = false;
  const inputs = watchCatalogInputs(options.views, options.token ?? '', logger, schedule);
  const offConnect = options.connect?.onChange((change) => {
    if (caChanges !== 'all') {
      if (change === 'all') caChanges = 'all';
      else caChanges = { roots: caChanges.roots || change.roots, leaves: new Set([...caChanges.leaves, ...change.leaves]) };
    }
    schedule();
  });

  function schedule(): void {
    if (scheduled || closed) return;
    scheduled = true;
    setImmediate(flush);
  }

  function flush(): void {
    scheduled = false;
    if (closed) return;
    flushes++;
    const started = process.hrtime.bigint();
    const changes = inputs.takeChanges();
    const { changed, universe, chain } = services.update(inputs, changes, forgetDeparted);
    forgetDeparted = false;
    const out: ResourceChange[] = [];
    for (const [typeUrl, names] of changed) if (names.size > 0) out.push({ typeUrl, names });
    if (out.length > 0) sets.rebuild(services.services, changed);
    // Gateway resources depend on entries, routes and the service universe, never on health.
    if (changes.all) {
      const httpRoutes = inputs.entries('http-route');
      const ctx = { services: [...universe.values()], routesFor: (ref: ServiceRef) => routesForService(ref, httpRoutes, chain) };
      out.push(...sets.updateGateways(inputs.entries('ingress-gateway'), ctx));
    }
    try {
      const mesh = sidecars.update({ inputs, changes, chain, universe, ca: options.connect?.state() ?? emptyConnectState(), caChanges });
      caChanges = { roots: false, leaves: new Set() };
      out.push(...mesh.changes);
      // A node that became a sidecar (or stopped being one) sees another set of every type: all those names changed for it.
      for (const id of mesh.switched) {
        const node: XdsNode = { id, cluster: '', clientFeatures: [], userAgent: 'envoy' };
        for (const t of RESOURCE_TYPES) {
          const names = new Set([...sets.get(t.typeUrl, node).byName.keys(), ...(sidecars.get(t.typeUrl, id)?.byName.keys() ?? [])]);
          if (names.size > 0) out.push({ typeUrl: t.typeUrl, names, nodeIds: new Set([id]) });
        }
      }
    } catch (err) {
      logger.error({ err }, 'sidecar translation failed; keeping the previous sidecar resources');
    }
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
    if (inputs.ready()) readyWaiters.splice(0).forEach((w) => w());
  }

  schedule();

  return {
    get: (typeUrl, node) => sidecars.get(typeUrl, node.id) ?? sets.get(typeUrl, node),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    forgetDeparted() {
      forgetDeparted = true;
      schedule();
    },
    ready() {
      if (inputs.ready() && !scheduled) return Promise.resolve();
      return new Promise((resolve) => readyWaiters.push(resolve));
    },
    stats() {
      const s = cache.stats();
      return { services: [...services.services.values()].filter((s) => !s.departed).length, gateways: sets.gateways, sidecars: sidecars.count, encodes: s.encodes, cacheHits: s.hits, flushes };
    },
    close() {
      if (closed) return;
      closed = true;
      inputs.close();
      offConnect?.();
      listeners.clear();
    },
  };
}
