// The ResourceProvider built from catalog views, in three parts: tracking the
// inputs (view-inputs.ts), retranslating the services a change touched
// (service-resources.ts), and the sets each node sees, ingress gateways
// included (node-sets.ts). Changes are folded per event-loop turn; the
// transport gets shared, already-encoded resources (ARCHITECTURE invariant 5)
// and the names that changed.
import type { Logger } from 'pino';
import { moduleLogger } from '../../logger';
import type { ViewStore } from '../../materializer/types';
import type { ResourceChange, ResourceProvider } from '../transport/provider';
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
}

export interface CatalogXdsProvider extends ResourceProvider {
  /** Resolves once the service list, every watched config kind and every listed service's health have arrived. */
  ready(): Promise<void>;
  /** Counts for the admin page and tests. */
  stats(): { services: number; gateways: number; encodes: number; cacheHits: number; flushes: number };
  close(): void;
}

export function createCatalogXdsProvider(options: CatalogXdsProviderOptions): CatalogXdsProvider {
  const logger = moduleLogger(options.logger, 'xds-provider');
  const cache = createEncodeCache();
  const services = createServiceResources(cache, logger, options.keepUnhealthy);
  const sets = createNodeSets(cache, logger);
  const listeners = new Set<(changes: readonly ResourceChange[]) => void>();
  const readyWaiters: (() => void)[] = [];
  let scheduled = false;
  let closed = false;
  let flushes = 0;
  const inputs = watchCatalogInputs(options.views, options.token ?? '', logger, schedule);

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
    const { changed, universe, chain } = services.update(inputs, changes);
    const out: ResourceChange[] = [];
    for (const [typeUrl, names] of changed) if (names.size > 0) out.push({ typeUrl, names });
    if (out.length > 0) sets.rebuild(services.services, changed);
    // Gateway resources depend on entries, routes and the service universe, never on health.
    if (changes.all) {
      const httpRoutes = inputs.entries('http-route');
      const ctx = { services: [...universe.values()], routesFor: (ref: ServiceRef) => routesForService(ref, httpRoutes, chain) };
      out.push(...sets.updateGateways(inputs.entries('ingress-gateway'), ctx));
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
    get: (typeUrl, node) => sets.get(typeUrl, node),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    ready() {
      if (inputs.ready() && !scheduled) return Promise.resolve();
      return new Promise((resolve) => readyWaiters.push(resolve));
    },
    stats() {
      const s = cache.stats();
      return { services: services.services.size, gateways: sets.gateways, encodes: s.encodes, cacheHits: s.hits, flushes };
    },
    close() {
      if (closed) return;
      closed = true;
      inputs.close();
      listeners.clear();
    },
  };
}
