// A ViewStore read straight from the catalog, for end-to-end tests while (or
// where) the materializer is not in the picture: after every applied entry each
// watched view is re-read and delivered when its content changed. Same
// contract as the real store's notify (current result first, then changes).
import type { Catalog } from '../../../src/catalog/catalog';
import type { ViewKey, ViewResult, ViewStore, ViewValue } from '../../../src/materializer/types';

export function catalogViews(catalog: Catalog): ViewStore {
  const watchers = new Set<{ read: () => unknown; last: string; deliver: (r: ViewResult<unknown>) => void }>();
  const read = (key: ViewKey): unknown => {
    if (key.kind === 'service-health') return catalog.serviceInstances(key.service).value;
    if (key.kind === 'service-list') return catalog.serviceNames().value;
    return catalog.configEntries(key.configKind).value;
  };
  const stopApplied = catalog.onApplied((index) => {
    for (const w of watchers) {
      const value = w.read();
      const text = JSON.stringify(value);
      if (text === w.last) continue;
      w.last = text;
      w.deliver({ index, value: Object.freeze(value) });
    }
  });
  return {
    get: () => Promise.reject(new Error('catalogViews: get is not used by the xDS provider')),
    notify<K extends ViewKey>(key: K, _token: string, onResult: (r: ViewResult<ViewValue<K>>) => void) {
      const value = read(key);
      const w = {
        read: () => read(key),
        last: JSON.stringify(value),
        deliver: onResult as (r: ViewResult<unknown>) => void,
      };
      watchers.add(w);
      queueMicrotask(() => watchers.has(w) && w.deliver({ index: catalog.lastIndex(), value: Object.freeze(value) }));
      return () => watchers.delete(w);
    },
    close() {
      watchers.clear();
      stopApplied();
    },
  };
}
