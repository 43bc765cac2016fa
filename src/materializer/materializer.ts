// Drives one View from one Source: the run loop (subscribe, frame, fold, retry
// with backoff), the index, and the blocking-query wait. Mirrors Consul's
// submatview materializer + RPCMaterializer, with the local materializer's
// "ACL not found is terminal" rule applied to both sources.
import { HubError } from '../errors';
import type { SubscribeRequest } from '../subscribe/types';
import { type Backoff, createBackoff, sleep } from './backoff';
import { coalesce } from './coalesce';
import { createFraming, type FramingTarget } from './framing';
import { classifyError, type Source, toHubError } from './source';
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

interface MatState<T> {
  options: MaterializerOptions<T>;
  view: View<T>;
  logger: MaterializerLogger;
  backoff: Backoff;
  index: bigint;
  ready: boolean;
  state: MaterializerState;
  terminal: HubError | undefined;
  cached: ViewResult<T> | undefined;
  waiters: Set<Waiter<T>>;
  attempts: bigint[];
  resets: number;
  updates: number;
  target: FramingTarget;
}

export function createMaterializer<T>(options: MaterializerOptions<T>): Materializer<T> {
  const m: MatState<T> = {
    options,
    view: options.view,
    logger: options.logger ?? silent,
    backoff: options.backoff ?? createBackoff(),
    index: 0n,
    ready: false,
    state: 'idle',
    terminal: undefined,
    cached: undefined,
    waiters: new Set(),
    attempts: [],
    resets: 0,
    updates: 0,
    target: undefined as unknown as FramingTarget,
  };
  m.target = targetOf(m);
  return {
    run: (signal) => run(m, signal),
    get state() {
      return m.state;
    },
    index: () => m.index,
    ready: () => m.ready,
    current: () => current(m),
    waitFor: (minIndex, signal) => waitFor(m, minIndex, signal),
    error: () => m.terminal,
    stats: () => ({ attempts: [...m.attempts], resets: m.resets, updates: m.updates }),
  };
}

function current<T>(m: MatState<T>): ViewResult<T> {
  const { index, view } = m;
  if (m.cached === undefined || m.cached.index !== index) {
    m.cached = view.deferred ? view.deferred(index) : Object.freeze({ index, value: view.result(index) });
  }
  return m.cached;
}

function satisfies<T>(m: MatState<T>, minIndex: bigint, strict: boolean): boolean {
  return m.ready && (m.index > minIndex || (!strict && m.index === 0n && minIndex <= 0n));
}

/** `stale`: also wake the readers at the current index (their result there is out of date). */
function wake<T>(m: MatState<T>, stale = false): void {
  // Render only when some waiter is satisfied: a reader far ahead (or none)
  // must not cost a sorted copy of the view per update.
  for (const w of m.waiters) {
    if (satisfies(m, w.minIndex, w.strict) || (stale && w.minIndex === m.index)) {
      w.detach();
      w.resolve(current(m));
    }
  }
}

function rejectAll<T>(m: MatState<T>, err: Error): void {
  for (const w of m.waiters) {
    w.detach();
    w.reject(err);
  }
}

function targetOf<T>(m: MatState<T>): FramingTarget {
  return {
    update(events, at) {
      m.view.update(events);
      m.cached = undefined;
      // A live delivery at or below the index means the server overstated its
      // snapshot's index (Consul's servers turn an empty snapshot's 0 into 1,
      // and so does this hub's publisher): keep the index, and hand the new
      // content to the readers holding the stale result at it.
      const overstated = m.ready && m.index > 0n && at <= m.index;
      // No clamp of a snapshot at 0 to 1 here: index 1 is a real entry, and a
      // view claiming 1 must hold the state at 1.
      if (!overstated) m.index = at;
      m.ready = true;
      m.updates++;
      m.backoff.reset();
      if (overstated)
        m.logger.debug(
          { topic: m.options.request.topic, index: String(m.index), at: String(at) },
          'delivery at or below the view index',
        );
      wake(m, overstated);
    },
    reset() {
      m.view.reset();
      m.cached = undefined;
      m.index = 0n;
      m.ready = false;
      m.resets++;
    },
  };
}

async function attempt<T>(m: MatState<T>, signal: AbortSignal): Promise<unknown> {
  const request: SubscribeRequest = { ...m.options.request, index: m.index };
  m.attempts.push(m.index);
  const framing = createFraming(m.index, m.target);
  const controller = new AbortController();
  const stop = () => controller.abort();
  signal.addEventListener('abort', stop, { once: true });
  try {
    for await (const item of coalesce(m.options.source.subscribe(request, controller.signal))) {
      try {
        framing.handle(item);
      } catch (err) {
        // A view or framing error means our state can no longer be trusted.
        m.target.reset();
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

async function run<T>(m: MatState<T>, signal: AbortSignal): Promise<void> {
  if (m.state !== 'idle') throw new HubError('INTERNAL', 'materializer: run() called twice');
  m.state = 'running';
  const { logger, backoff } = m;
  const fields = { topic: m.options.request.topic, subject: m.options.request.subject };
  while (!signal.aborted) {
    const err = await attempt(m, signal);
    if (err === undefined || signal.aborted) break;
    const kind = classifyError(err);
    if (kind === 'terminal') {
      m.terminal = err as HubError;
      m.state = 'failed';
      logger.warn({ ...fields, err }, 'subscription refused; view failed');
      rejectAll(m, m.terminal);
      throw m.terminal;
    }
    if (kind === 'reset') m.target.reset();
    const delay = backoff.next();
    logger.info({ ...fields, err, kind, failures: backoff.failures, delay }, 'subscribe call failed');
    await sleep(delay, signal);
  }
  m.state = 'stopped';
  rejectAll(m, new HubError('SHUTTING_DOWN', 'materializer stopped'));
}

function waitFor<T>(m: MatState<T>, minIndex: bigint, signal?: AbortSignal): Promise<ViewResult<T>> {
  if (m.terminal) return Promise.reject(m.terminal);
  if (satisfies(m, minIndex, false)) return Promise.resolve(current(m));
  if (m.state === 'stopped') return Promise.reject(new HubError('SHUTTING_DOWN', 'materializer stopped'));
  if (signal?.aborted) return Promise.resolve(current(m));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      waiter.detach();
      resolve(current(m));
    };
    const waiter: Waiter<T> = {
      ...(m.ready && m.index === 0n && minIndex === 1n ? { minIndex: 0n, strict: true } : { minIndex, strict: false }),
      resolve,
      reject,
      detach() {
        m.waiters.delete(waiter);
        signal?.removeEventListener('abort', onAbort);
      },
    };
    m.waiters.add(waiter);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
