// The views the bench hub's provider reads: the real pipeline (publisher →
// in-process source → shared view store), as in a hub process. With env
// XDS_BENCH_VIEWS=catalog it reads the catalog directly instead, to tell the
// xDS layer's cost from the materializer's when profiling.
import type { Logger } from 'pino';
import type { Catalog } from '../../src/catalog/catalog';
import { createViewStore, inProcessSource } from '../../src/materializer/index';
import type { ViewStore } from '../../src/materializer/types';
import { createPublisher } from '../../src/subscribe/publisher';
import { catalogViews } from '../../test/xds/e2e/catalog-views';

export function benchViews(catalog: Catalog, logger: Logger): ViewStore {
  if (process.env['XDS_BENCH_VIEWS'] === 'catalog') return catalogViews(catalog);
  const publisher = createPublisher({ catalog, snapshotCacheTtlMs: 10_000, logger });
  const store = createViewStore({ source: inProcessSource(publisher) });
  return {
    get: store.get.bind(store),
    notify: store.notify.bind(store),
    close() {
      store.close();
      publisher.close();
    },
  };
}
