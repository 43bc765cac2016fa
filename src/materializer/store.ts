// The shared view store (Consul's submatview Store): one materializer per
// (topic, subject, token, filter), shared by every reader, reference-counted,
// stopped after an idle TTL once nobody holds it, and evicted at once when its
// subscription fails for good (the waiting readers get that error).
import { HubError } from '../errors';
import { type Bindable, moduleLogger } from '../logger';
import type { Backoff } from './backoff';
import { requestForKey, storeKey, viewForKey } from './keys';
import { createMaterializer, type Materializer, type MaterializerLogger } from './materializer';
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

interface StoreState {
  options: ViewStoreOptions;
  idleTtlMs: number;
  logger: MaterializerLogger | undefined;
  entries: Map<string, Entry>;
  closed: boolean;
}

export function createViewStore(options: ViewStoreOptions): ViewStoreWithStats {
  // A pino logger gets a module child; any other logger is used as given.
  const parent = options.logger as (MaterializerLogger & Partial<Bindable>) | undefined;
  const st: StoreState = {
    options,
    idleTtlMs: options.idleTtlMs ?? 20 * 60_000,
    logger: parent?.child ? moduleLogger(parent as MaterializerLogger & Bindable, 'materializer') : parent,
    entries: new Map(),
    closed: false,
  };
  return {
    async get<K extends ViewKey>(
      key: K,
      opts: { token: string; minIndex: bigint; signal?: AbortSignal },
    ): Promise<ViewResult<ViewValue<K>>> {
      const { id, entry } = acquire(st, key, opts.token);
      try {
        return (await entry.materializer.waitFor(opts.minIndex, opts.signal)) as ViewResult<ViewValue<K>>;
      } finally {
        release(st, id, entry);
      }
    },

    notify<K extends ViewKey>(
      key: K,
      token: string,
      onResult: (result: ViewResult<ViewValue<K>>) => void,
      onError?: (err: Error) => void,
    ): () => void {
      const { id, entry } = acquire(st, key, token);
      const stop = new AbortController();
      const handOut = onResult as (result: ViewResult<unknown>) => void;
      void watch(entry.materializer, stop.signal, handOut, onError, () => release(st, id, entry));
      return () => stop.abort();
    },

    close() {
      st.closed = true;
      for (const [id, entry] of [...st.entries]) evict(st, id, entry);
    },

    size: () => st.entries.size,
  };
}

function evict(st: StoreState, id: string, entry: Entry): void {
  if (entry.idleTimer) clearTimeout(entry.idleTimer);
  entry.idleTimer = undefined;
  if (st.entries.get(id) === entry) st.entries.delete(id);
  entry.controller.abort();
}

function acquire(st: StoreState, key: ViewKey, token: string): { id: string; entry: Entry } {
  if (st.closed) throw new HubError('SHUTTING_DOWN', 'view store is closed');
  const id = storeKey(key, token);
  let entry = st.entries.get(id);
  if (!entry) {
    const request = requestForKey(key, token); // validates the key before anything starts
    const materializer = createMaterializer<unknown>({
      source: st.options.source,
      request,
      view: viewForKey(key),
      logger: st.logger,
      backoff: st.options.backoff?.(),
    });
    const created: Entry = { materializer, refs: 0, controller: new AbortController(), idleTimer: undefined };
    entry = created;
    st.entries.set(id, created);
    materializer.run(created.controller.signal).catch((err: unknown) => {
      st.logger?.warn({ err, view: id }, 'view evicted after a terminal error');
      evict(st, id, created);
    });
  }
  if (entry.idleTimer) {
    clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
  }
  entry.refs++;
  return { id, entry };
}

function release(st: StoreState, id: string, entry: Entry): void {
  entry.refs--;
  if (entry.refs > 0 || st.entries.get(id) !== entry) return;
  entry.idleTimer = setTimeout(() => {
    if (entry.refs === 0) evict(st, id, entry);
  }, st.idleTtlMs);
  entry.idleTimer.unref();
}

/**
 * Hands every new result of `m` to `onResult` until `signal` aborts; a terminal error
 * goes to `onError`. Calls `done` at the end either way.
 */
async function watch(
  m: Materializer<unknown>,
  signal: AbortSignal,
  onResult: (result: ViewResult<unknown>) => void,
  onError: ((err: Error) => void) | undefined,
  done: () => void,
): Promise<void> {
  // -1 so the first wait returns the current result as soon as there is one;
  // after a result at index 0 (empty catalog), 1 waits for the first change.
  let last = -1n;
  let lastResult: ViewResult<unknown> | undefined;
  try {
    while (!signal.aborted) {
      const result = await m.waitFor(last === 0n ? 1n : last, signal);
      if (signal.aborted) break;
      // A new result object is new content, even at the same index (a
      // server that overstated its snapshot index, see materializer.ts).
      if (result !== lastResult) {
        last = result.index;
        lastResult = result;
        onResult(result);
      }
      // At most one result per event-loop turn: waiting again at once rendered
      // (copied) the view for every delivery of a busy turn, each of which the
      // next result carries anyway; a watcher of a large view paid that per write.
      await new Promise((resolve) => setImmediate(resolve));
      // What changed meanwhile, new content at the same index included (which a
      // wait from that index would not see), is the current result.
      if (!signal.aborted && m.ready() && m.error() === undefined && m.current() !== lastResult) {
        lastResult = m.current();
        last = lastResult.index;
        onResult(lastResult);
      }
    }
  } catch (err) {
    if (!signal.aborted) onError?.(err as Error);
  } finally {
    done();
  }
}
