// Which log index the live provider's resources were translated at. The
// provider reads views; each view result carries the index of the last change
// it holds. The highest index the provider has been handed, taken when it
// reports a translation (onChange), is the state its resources stand for: every
// relevant change at or below it is in them, none above. The history records
// this index with each push, and GET /v1/xds/config/:node?index=N rebuilds
// exactly that state.
import type { ViewKey, ViewResult, ViewStore, ViewValue } from '../materializer/types';
import type { ResourceProvider } from '../xds/transport/provider';

export interface IndexTracker {
  /** Wraps the views the provider reads, to see each result's index. */
  views(inner: ViewStore): ViewStore;
  /** Starts taking the index at each translation of `provider`. */
  follow(provider: ResourceProvider): () => void;
  /** The index of the provider's current resources (0 before its first translation). */
  index(): bigint;
  /**
   * Resolves once the provider's resources stand for `index` or later, or after
   * `capMs` (a change that alters no resource never shows as a translation).
   */
  reached(index: bigint, capMs?: number): Promise<void>;
}

export function createIndexTracker(): IndexTracker {
  let seen = 0n;
  let translated = 0n;
  const waiters = new Set<{ index: bigint; done: () => void }>();
  return {
    views(inner) {
      return {
        ...inner,
        get: (key, opts) => inner.get(key, opts),
        close: () => inner.close(),
        notify<K extends ViewKey>(
          key: K,
          token: string,
          onResult: (r: ViewResult<ViewValue<K>>) => void,
          onError?: (err: Error) => void,
        ) {
          return inner.notify(
            key,
            token,
            (r) => {
              if (r.index > seen) seen = r.index;
              onResult(r);
            },
            onError,
          );
        },
      };
    },
    follow(provider) {
      return provider.onChange(() => {
        translated = seen;
        for (const w of waiters) if (translated >= w.index) w.done();
      });
    },
    index: () => translated,
    reached(index, capMs = 5_000) {
      if (translated >= index) return Promise.resolve();
      return new Promise((resolve) => {
        const w = {
          index,
          done: () => {
            clearTimeout(timer);
            waiters.delete(w);
            resolve();
          },
        };
        const timer = setTimeout(w.done, capMs);
        waiters.add(w);
      });
    },
  };
}
