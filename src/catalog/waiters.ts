// Promises waiting for the applied index to pass a value, and for the indexes
// a blocking query reads to move. Both wake only the waiters satisfied, and a
// waiter that leaves is forgotten in O(1).
import type { HubError } from '../errors';

interface Waiter {
  after: bigint;
  resolve(): void;
  reject(err: unknown): void;
}

export interface IndexWaiters {
  wait(after: bigint, signal?: AbortSignal): Promise<void>;
  /** Wakes every waiter whose `after` is below `index`. */
  advance(index: bigint): void;
  rejectAll(err: unknown): void;
  /** Waiters in flight (for tests). */
  size(): number;
}

interface Settle {
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * A promise for a waiter kept in some collection: `add` files it, `remove`
 * takes it out again when the signal aborts (the promise then rejects with the
 * signal's reason). Settling it detaches the abort listener.
 */
function parked<W extends Settle>(
  closedError: () => HubError | undefined,
  signal: AbortSignal | undefined,
  make: (settle: Settle) => W,
  add: (w: W) => void,
  remove: (w: W) => void,
): Promise<void> {
  const closed = closedError();
  if (closed) return Promise.reject(closed);
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      remove(w);
      reject(signal!.reason);
    };
    const w = make({
      resolve: () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      reject: (err) => {
        signal?.removeEventListener('abort', onAbort);
        reject(err);
      },
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    add(w);
  });
}

/**
 * Waiters grouped by their `after`, in a Set each, so one that leaves (its
 * signal aborts) is deleted in O(1), whatever the number waiting: a sorted
 * array made each leave an indexOf and a splice, so n leaving at once cost n².
 * The distinct `after` values are few (a wait starts at the hub's index, or
 * at a client's index a little ahead), kept sorted so `advance` walks only the
 * groups it wakes. A group stays, even empty, until the index passes it.
 */
export function createIndexWaiters(current: () => bigint, closedError: () => HubError | undefined): IndexWaiters {
  const groups = new Map<bigint, Set<Waiter>>();
  /** The keys of `groups`, ascending. */
  const afters: bigint[] = [];

  function insert(w: Waiter): void {
    const group = groups.get(w.after);
    if (group) return void group.add(w);
    groups.set(w.after, new Set([w]));
    let lo = 0;
    let hi = afters.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (afters[mid]! < w.after) lo = mid + 1;
      else hi = mid;
    }
    afters.splice(lo, 0, w.after);
  }

  const remove = (w: Waiter): void => void groups.get(w.after)?.delete(w);

  function take(n: number): Waiter[] {
    const woken: Waiter[] = [];
    for (const after of afters.splice(0, n)) {
      for (const w of groups.get(after)!) woken.push(w);
      groups.delete(after);
    }
    return woken;
  }

  return {
    wait(after, signal) {
      if (current() > after) return Promise.resolve();
      return parked(closedError, signal, (settle): Waiter => ({ after, ...settle }), insert, remove);
    },
    advance(index) {
      let n = 0;
      while (n < afters.length && afters[n]! < index) n++;
      if (n === 0) return;
      for (const w of take(n)) w.resolve();
    },
    rejectAll(err) {
      for (const w of take(afters.length)) w.reject(err);
    },
    size: () => {
      let count = 0;
      for (const group of groups.values()) count += group.size;
      return count;
    },
  };
}

export interface ChangeWaiters {
  /** Resolves once one of `keys` is moved (or everything is), rejects on abort or close. */
  wait(keys: readonly string[], signal?: AbortSignal): Promise<void>;
  /** Wakes the waiters of the keys an entry moved. */
  moved(keys: Iterable<string>): void;
  /** Wakes every waiter (the state was replaced). */
  all(): void;
  rejectAll(err: unknown): void;
  /** Waiters in flight (for tests). */
  size(): number;
}

interface ChangeWaiter {
  keys: readonly string[];
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * Blocking queries waiting for the indexes they read (watch-keys.ts). An entry
 * costs one map lookup per index it moved, whatever the number of waiters on
 * other keys; the waiters of a moved key are woken once and forgotten.
 */
export function createChangeWaiters(closedError: () => HubError | undefined): ChangeWaiters {
  const byKey = new Map<string, Set<ChangeWaiter>>();
  let count = 0;

  function forget(w: ChangeWaiter): void {
    for (const key of w.keys) {
      const set = byKey.get(key);
      if (!set?.delete(w)) continue;
      if (set.size === 0) byKey.delete(key);
    }
    count--;
  }

  function add(w: ChangeWaiter): void {
    for (const key of w.keys) {
      let set = byKey.get(key);
      if (!set) byKey.set(key, (set = new Set()));
      set.add(w);
    }
    count++;
  }

  function settle(ws: Iterable<ChangeWaiter>, how: (w: ChangeWaiter) => void): void {
    // Collected first: forgetting one waiter edits the sets being walked.
    for (const w of [...ws]) {
      forget(w);
      how(w);
    }
  }

  return {
    wait(keys, signal) {
      return parked(closedError, signal, (settle): ChangeWaiter => ({ keys, ...settle }), add, forget);
    },
    moved(keys) {
      for (const key of keys) {
        const set = byKey.get(key);
        if (set) settle(set, (w) => w.resolve());
      }
    },
    all() {
      settle(new Set([...byKey.values()].flatMap((s) => [...s])), (w) => w.resolve());
    },
    rejectAll(err) {
      settle(new Set([...byKey.values()].flatMap((s) => [...s])), (w) => w.reject(err));
    },
    size: () => count,
  };
}
