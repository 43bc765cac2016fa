// The views the bench hub's provider reads: the real pipeline (publisher →
// in-process source → shared view store), as in a hub process. `--views catalog`
// (env XDS_BENCH_VIEWS=catalog) reads the catalog directly instead, to tell the
// xDS layer's cost from the materializer's when profiling.
import type { Logger } from 'pino';
import type { Catalog } from '../../src/catalog/catalog';
import type { ViewStore } from '../../src/materializer/types';

export async function benchViews(catalog: Catalog, logger: Logger): Promise<ViewStore & { close(): void }> {
  if (process.env['XDS_BENCH_VIEWS'] === 'catalog') {
    const { catalogViews } = await import('../../test/xds/e2e/catalog-views');
    return catalogViews(catalog);
  }
  const { createPublisher } = await import('../../src/subscribe/publisher');
  const { createViewStore, inProcessSource } = await import('../../src/materializer/index');
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
