// Drives one View from one Source: the run loop (subscribe, frame, fold, retry
// with backoff), the index, and the blocking-query wait. Mirrors Consul's
// submatview materializer + RPCMaterializer, with the local materializer's
// "ACL not found is terminal" rule applied to both sources.
import type { CatalogEvent } from '../catalog/types';
import { HubError } from '../errors';
import type { SubscribeRequest } from '../subscribe/types';
import { type Backoff, createBackoff, sleep } from './backoff';
import { coalesce } from './coalesce';
import { createFraming } from './framing';
import { type Source, classifyError, toHubError } from './source';
import type { ViewResult } from './types';
import type { View } from './view';

export interface MaterializerLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const silent: MaterializerLogger = { debug() {}, info() {}, warn() {}, error() {} };

export interface MaterializerOptions<T> {
  source: Source;
  /** What to subscribe to; the index is the materializer's own. */
  request: SubscribeRequest;
  view: View<T>;
  logger?: MaterializerLogger;
  backoff?: Backoff;
}

export type MaterializerState = 'idle' | 'running' | 'stopped' | 'failed';

export interface MaterializerStats {
  /** Subscribe calls made, and the index each one carried. */
  readonly attempts: readonly bigint[];
  readonly resets: number;
  readonly updates: number;
}

export interface Materializer<T> {
  /** Runs until `signal` aborts (resolves) or a terminal error (rejects with it). Call once. */
  run(signal: AbortSignal): Promise<void>;
  readonly state: MaterializerState;
  /** Index of the last update; 0n = no snapshot yet, or a snapshot of an empty catalog (see ready()). */
  index(): bigint;
  /** True once a snapshot was folded (false again after a reset, until the next one). */
  ready(): boolean;
  /** The current frozen result; the same object until the next update or reset. */
  current(): ViewResult<T>;
  /**
   * Resolves at once if the view is ready and index > minIndex; else when it
   * moves past minIndex, or when `signal` aborts (with the current result).
   * Rejects with the terminal error. A new snapshot may sit below the old index
   * for a moment (the publisher reuses a cached snapshot and splices the newer
   * events after it); waiters are not woken for that, only once the index
   * passes theirs again.
   *
   * Index 0 only ever means "empty catalog" once ready: a snapshot of a hub that
   * has applied nothing. Its result answers minIndex 0 at once, and a waiter at
   * minIndex 1 (Consul's HTTP layer turns index 0 into 1) wakes on the first
   * change, so the entry at index 1 is never missed.
   */
  waitFor(minIndex: bigint, signal?: AbortSignal): Promise<ViewResult<T>>;
  /** The terminal error, once failed. */
  error(): HubError | undefined;
  stats(): MaterializerStats;
}

interface Waiter<T> {
  minIndex: bigint;
  /** Only an index above minIndex will do (an index-0 result never satisfies it). */
  strict: boolean;
  resolve(r: ViewResult<T>): void;
  reject(e: Error): void;
  detach(): void;
}

export function createMaterializer<T>(options: MaterializerOptions<T>): Materializer<T> {
  const { source, view } = options;
  const logger = options.logger ?? silent;
  const backoff = options.backoff ?? createBackoff();
  let index = 0n;
  let ready = false;
  let state: MaterializerState = 'idle';
  let terminal: HubError | undefined;
  let cached: ViewResult<T> | undefined;
  const waiters = new Set<Waiter<T>>();
  const attempts: bigint[] = [];
  let resets = 0;
  let updates = 0;

  function current(): ViewResult<T> {
    if (cached === undefined || cached.index !== index) {
      cached = view.deferred ? view.deferred(index) : Object.freeze({ index, value: view.result(index) });
    }
    return cached;
  }

  function satisfies(minIndex: bigint, strict: boolean): boolean {
    return ready && (index > minIndex || (!strict && index === 0n && minIndex <= 0n));
  }

  /** `stale`: also wake the readers at the current index (their result there is out of date). */
  function wake(stale = false): void {
    // Render only when some waiter is satisfied: a reader far ahead (or none)
    // must not cost a sorted copy of the view per update.
    for (const w of waiters) {
      if (satisfies(w.minIndex, w.strict) || (stale && w.minIndex === index)) {
        w.detach();
        w.resolve(current());
      }
    }
  }

  function rejectAll(err: Error): void {
    for (const w of waiters) {
      w.detach();
      w.reject(err);
    }
  }

  const target = {
    update(events: readonly CatalogEvent[], at: bigint) {
      view.update(events);
      cached = undefined;
      // A live delivery at or below the index means the server overstated its
      // snapshot's index (Consul's servers turn an empty snapshot's 0 into 1,
      // and so does this hub's publisher): keep the index, and hand the new
      // content to the readers holding the stale result at it.
      const overstated = ready && index > 0n && at <= index;
      // No clamp of a snapshot at 0 to 1 here: index 1 is a real entry, and a
      // view claiming 1 must hold the state at 1.
      if (!overstated) index = at;
      ready = true;
      updates++;
      backoff.reset();
      if (overstated) logger.debug({ topic: options.request.topic, index: String(index), at: String(at) }, 'delivery at or below the view index');
      wake(overstated);
    },
    reset() {
      view.reset();
      cached = undefined;
      index = 0n;
      ready = false;
      resets++;
    },
  };

  async function attempt(signal: AbortSignal): Promise<unknown> {
    const request: SubscribeRequest = { ...options.request, index };
    attempts.push(index);
    const framing = createFraming(index, target);
    const controller = new AbortController();
    const stop = () => controller.abort();
    signal.addEventListener('abort', stop, { once: true });
    try {
      for await (const item of coalesce(source.subscribe(request, controller.signal))) {
        try {
          framing.handle(item);
        } catch (err) {
          // A view or framing error means our state can no longer be trusted.
          target.reset();
          return new HubError('INTERNAL', `materializer: ${(err as Error).message}`, { cause: err });
        }
      }
      return signal.aborted ? undefined : new HubError('SHUTTING_DOWN', 'subscription ended by the server');
    } catch (err) {
      return signal.aborted ? undefined : toHubError(err);
    } finally {
      signal.removeEventListener('abort', stop);
      controller.abort();
    }
  }

  async function run(signal: AbortSignal): Promise<void> {
    if (state !== 'idle') throw new HubError('INTERNAL', 'materializer: run() called twice');
    state = 'running';
    const fields = { topic: options.request.topic, subject: options.request.subject };
    while (!signal.aborted) {
      const err = await attempt(signal);
      if (err === undefined || signal.aborted) break;
      const kind = classifyError(err);
      if (kind === 'terminal') {
        terminal = err as HubError;
        state = 'failed';
        logger.warn({ ...fields, err }, 'subscription refused; view failed');
        rejectAll(terminal);
        throw terminal;
      }
      if (kind === 'reset') target.reset();
      const delay = backoff.next();
      logger.info({ ...fields, err, kind, failures: backoff.failures, delay }, 'subscribe call failed');
      await sleep(delay, signal);
    }
    state = 'stopped';
    rejectAll(new HubError('SHUTTING_DOWN', 'materializer stopped'));
  }

  function waitFor(minIndex: bigint, signal?: AbortSignal): Promise<ViewResult<T>> {
    if (terminal) return Promise.reject(terminal);
    if (satisfies(minIndex, false)) return Promise.resolve(current());
    if (state === 'stopped') return Promise.reject(new HubError('SHUTTING_DOWN', 'materializer stopped'));
    if (signal?.aborted) return Promise.resolve(current());
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        waiter.detach();
        resolve(current());
      };
      const waiter: Waiter<T> = {
        ...(ready && index === 0n && minIndex === 1n ? { minIndex: 0n, strict: true } : { minIndex, strict: false }),
        resolve,
        reject,
        detach() {
          waiters.delete(waiter);
          signal?.removeEventListener('abort', onAbort);
        },
      };
      waiters.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  return {
    run,
    get state() {
      return state;
    },
    index: () => index,
    ready: () => ready,
    current,
    waitFor,
    error: () => terminal,
    stats: () => ({ attempts: [...attempts], resets, updates }),
  };
}
