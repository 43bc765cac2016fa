// The shared view store (Consul's submatview Store): one materializer per
// (topic, subject, token, filter), shared by every reader, reference-counted,
// stopped after an idle TTL once nobody holds it, and evicted at once when its
// subscription fails for good (the waiting readers get that error).
import { HubError } from '../errors';
import { moduleLogger, type Bindable } from '../logger';
import type { Backoff } from './backoff';
import { requestForKey, storeKey, viewForKey } from './keys';
import { type Materializer, type MaterializerLogger, createMaterializer } from './materializer';
import type { Source } from './source';
import type { ViewKey, ViewResult, ViewStore, ViewValue } from './types';

export interface ViewStoreOptions {
  source: Source;
  logger?: MaterializerLogger;
  /** How long a materializer nobody holds keeps running (default 20 minutes). */
  idleTtlMs?: number;
  /** Backoff per materializer (tests shorten it). */
  backoff?: () => Backoff;
}

export interface ViewStoreWithStats extends ViewStore {
  /** Materializers currently held or idle. */
  size(): number;
}

interface Entry {
  materializer: Materializer<unknown>;
  refs: number;
  controller: AbortController;
  idleTimer: NodeJS.Timeout | undefined;
}

export function createViewStore(options: ViewStoreOptions): ViewStoreWithStats {
  const idleTtlMs = options.idleTtlMs ?? 20 * 60_000;
  // A pino logger gets a module child; any other logger is used as given.
  const parent = options.logger as (MaterializerLogger & Partial<Bindable>) | undefined;
  const logger = parent?.child ? moduleLogger(parent as MaterializerLogger & Bindable, 'materializer') : parent;
  const entries = new Map<string, Entry>();
  let closed = false;

  function evict(id: string, entry: Entry): void {
    if (entry.idleTimer) clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
    if (entries.get(id) === entry) entries.delete(id);
    entry.controller.abort();
  }

  function acquire(key: ViewKey, token: string): { id: string; entry: Entry } {
    if (closed) throw new HubError('SHUTTING_DOWN', 'view store is closed');
    const id = storeKey(key, token);
    let entry = entries.get(id);
    if (!entry) {
      const request = requestForKey(key, token); // validates the key before anything starts
      const materializer = createMaterializer<unknown>({
        source: options.source,
        request,
        view: viewForKey(key),
        logger,
        backoff: options.backoff?.(),
      });
      const created: Entry = { materializer, refs: 0, controller: new AbortController(), idleTimer: undefined };
      entry = created;
      entries.set(id, created);
      materializer.run(created.controller.signal).catch((err: unknown) => {
        logger?.warn({ err, view: id }, 'view evicted after a terminal error');
        evict(id, created);
      });
    }
    if (entry.idleTimer) {
      clearTimeout(entry.idleTimer);
      entry.idleTimer = undefined;
    }
    entry.refs++;
    return { id, entry };
  }

  function release(id: string, entry: Entry): void {
    entry.refs--;
    if (entry.refs > 0 || entries.get(id) !== entry) return;
    entry.idleTimer = setTimeout(() => {
      if (entry.refs === 0) evict(id, entry);
    }, idleTtlMs);
    entry.idleTimer.unref();
  }

  return {
    async get<K extends ViewKey>(
      key: K,
      opts: { token: string; minIndex: bigint; signal?: AbortSignal },
    ): Promise<ViewResult<ViewValue<K>>> {
      const { id, entry } = acquire(key, opts.token);
      try {
        return (await entry.materializer.waitFor(opts.minIndex, opts.signal)) as ViewResult<ViewValue<K>>;
      } finally {
        release(id, entry);
      }
    },

    notify<K extends ViewKey>(
      key: K,
      token: string,
      onResult: (result: ViewResult<ViewValue<K>>) => void,
      onError?: (err: Error) => void,
    ): () => void {
      const { id, entry } = acquire(key, token);
      const stop = new AbortController();
      void (async () => {
        // -1 so the first wait returns the current result as soon as there is one;
        // after a result at index 0 (empty catalog), 1 waits for the first change.
        let last = -1n;
        let lastResult: ViewResult<unknown> | undefined;
        const m = entry.materializer;
        try {
          while (!stop.signal.aborted) {
            const result = await m.waitFor(last === 0n ? 1n : last, stop.signal);
            if (stop.signal.aborted) break;
            // A new result object is new content, even at the same index (a
            // server that overstated its snapshot index, see materializer.ts).
            if (result !== lastResult) {
              last = result.index;
              lastResult = result;
              onResult(result as ViewResult<ViewValue<K>>);
            }
            // At most one result per event-loop turn: waiting again at once rendered
            // (copied) the view for every delivery of a busy turn, each of which the
            // next result carries anyway; a watcher of a large view paid that per write.
            await new Promise((resolve) => setImmediate(resolve));
            // What changed meanwhile, new content at the same index included (which a
            // wait from that index would not see), is the current result.
            if (!stop.signal.aborted && m.ready() && m.error() === undefined && m.current() !== lastResult) {
              lastResult = m.current();
              last = lastResult.index;
              onResult(lastResult as ViewResult<ViewValue<K>>);
            }
          }
        } catch (err) {
          if (!stop.signal.aborted) onError?.(err as Error);
        } finally {
          release(id, entry);
        }
      })();
      return () => stop.abort();
    },

    close() {
      closed = true;
      for (const [id, entry] of [...entries]) evict(id, entry);
    },

    size: () => entries.size,
  };
}
