// The fan-out hub's view store, replaceable as a whole. When the upstream turns
// out to hold another log (its index went backwards, src/fanout/relay.ts), the
// views built on the old log cannot follow: a view never moves a reader's index
// backwards. swap() starts a fresh store and moves every notify() reader onto
// it, so the xDS layer's readers get the new log's state as their next result;
// the old store closes (its blocking reads answer with SHUTTING_DOWN, and their
// clients retry). Readers never see an empty state in between.
import type { ViewStoreWithStats } from '../materializer/store';
import type { ViewKey, ViewResult, ViewStore, ViewValue } from '../materializer/types';

interface Reader {
  key: ViewKey;
  token: string;
  onResult: (result: ViewResult<never>) => void;
  onError: ((err: Error) => void) | undefined;
  stop: () => void;
}

export function swappableViews(make: () => ViewStoreWithStats): ViewStore & { swap(): void } {
  let current = make();
  const readers = new Set<Reader>();
  const attach = (r: Reader) => {
    r.stop = current.notify(r.key, r.token, r.onResult as never, r.onError);
  };
  return {
    get: <K extends ViewKey>(key: K, options: { token: string; minIndex: bigint; signal?: AbortSignal }) =>
      current.get(key, options),
    notify<K extends ViewKey>(
      key: K,
      token: string,
      onResult: (result: ViewResult<ViewValue<K>>) => void,
      onError?: (err: Error) => void,
    ) {
      const reader: Reader = {
        key,
        token,
        onResult: onResult as (r: ViewResult<never>) => void,
        onError,
        stop: () => {},
      };
      attach(reader);
      readers.add(reader);
      return () => {
        readers.delete(reader);
        reader.stop();
      };
    },
    swap() {
      const old = current;
      current = make();
      for (const r of readers) {
        r.stop(); // before the old store closes, so the reader is not told of its shutdown
        attach(r);
      }
      old.close();
    },
    close: () => current.close(),
  };
}
