// The state every view keeps: a sharded persistent map (sharded-map.ts) plus
// its sorted, frozen result, built lazily and kept up to date incrementally.
// Each change of the map is a new version; a version's sorted array is built
// only when someone reads it (`deferred`: a reader that only asks what changed,
// the xDS provider, never pays for it), by patching the last array built with
// the changes since, by binary search (remove the old value, insert the new
// one), instead of re-sorting the whole view: the first read of a
// 10,000-instance view after one change costs a ~10,000-pointer copy, not a
// 10,000-element sort. Past ~16,400 elements that copy is a large-object
// allocation in V8 (~140-230 µs, not ~6), which is why a version is not
// copied out unless it is read.
import type { EventPayload } from '../../catalog/types';
import { HubError } from '../../errors';
import type { ViewResult } from '../types';
import type { View } from '../view';
import { type Change, emptySharded, type Sharded, shardedApply, shardedGet, shardedValues } from './sharded-map';

export interface SortedSharded<V> {
  /** Applies one delivery's changes (in order) as one new version. */
  apply(changes: readonly Change<V>[]): void;
  /** The frozen sorted values of the current version; the same array until the next change. */
  result(): readonly V[];
  /**
   * The current version as a frozen `{ index, value }` whose sorted array is built
   * when `value` is first read (the same array `result()` gives for that version,
   * even after later changes). `changesBetween` and `sizeOf` answer for it without
   * building the array.
   */
  deferred(index: bigint): ViewResult<readonly V[]>;
  reset(): void;
}

/** Past this share of the view changed since the last array built, sorting afresh is cheaper. */
const PATCH_LIMIT = 1 / 8;

/**
 * The (before, after) pairs of every change applied to a view, in order, so a
 * reader holding an older result can learn what changed since (`changesBetween`)
 * without comparing the two arrays, and a version's array can be patched from an
 * older one. `start` is the sequence number of pairs[0]; only the most recent
 * pairs are kept. A reset starts another log: results on two logs compare as
 * unknown.
 */
interface ChangeLog {
  pairs: [object | undefined, object | undefined][];
  start: number;
}

/** Pairs a log keeps at least; older ones are dropped (a reader that far behind compares the arrays). */
const LOG_KEEP = 4096;

/** Where a result stands: its log, how many of the log's pairs it includes, and how many values it holds. */
interface Stamp {
  log: ChangeLog;
  seq: number;
  size: number;
}

/** Each result handed out (an array, or a deferred `{ index, value }`): its stamp. */
const stamps = new WeakMap<object, Stamp>();

/**
 * What changed from one result of a view to a later one of the same view: the values
 * `after` no longer has and the ones it has anew (a replaced value is in both, as its
 * old and its new object). Takes the arrays, or the deferred results (without
 * building their arrays). undefined when that is not known (another view, a reset
 * in between, or changes older than the log keeps): compare the arrays then.
 */
export function changesBetween<V extends object>(
  before: object,
  after: object,
): { removed: V[]; added: V[] } | undefined {
  const a = stamps.get(before);
  const b = stamps.get(after);
  if (!a || !b || a.log !== b.log || a.seq > b.seq || a.seq < b.log.start) return undefined;
  // Net count per value: a value added and removed again in between cancels out.
  const net = new Map<V, number>();
  const log = b.log;
  for (let i = a.seq - log.start; i < b.seq - log.start; i++) {
    const [was, is] = log.pairs[i]! as [V | undefined, V | undefined];
    if (was !== undefined) net.set(was, (net.get(was) ?? 0) - 1);
    if (is !== undefined) net.set(is, (net.get(is) ?? 0) + 1);
  }
  const removed: V[] = [];
  const added: V[] = [];
  for (const [v, n] of net) {
    if (n < 0) removed.push(v);
    else if (n > 0) added.push(v);
  }
  return { removed, added };
}

/** How many values a result of a sorted view holds, known without building its array; undefined for anything else. */
export function sizeOf(result: object): number | undefined {
  return stamps.get(result)?.size;
}

/** One version of the map: built into a sorted array on first read. */
interface Version<V> extends Stamp {
  state: Sharded<V>;
  array?: readonly V[];
  /** The last deferred result handed out for it: asked again at the same index, the same object. */
  deferred?: ViewResult<readonly V[]>;
}

interface SortedState<V> {
  compare: (a: V, b: V) => number;
  state: Sharded<V>;
  size: number;
  log: ChangeLog;
  /** The current version, once someone asked for it; undefined after a change. */
  latest: Version<V> | undefined;
  /** The newest version whose array was built: the base the next one is patched from. */
  built: Version<V> | undefined;
}

export function sortedSharded<V extends object>(compare: (a: V, b: V) => number): SortedSharded<V> {
  const s: SortedState<V> = {
    compare,
    state: emptySharded(),
    size: 0,
    log: { pairs: [], start: 0 },
    latest: undefined,
    built: undefined,
  };
  return {
    apply: (changes) => apply(s, changes),
    result() {
      return build(s, version(s));
    },
    deferred(index) {
      const v = version(s);
      if (v.deferred?.index === index) return v.deferred;
      const out = Object.freeze({
        index,
        get value() {
          return build(s, v);
        },
      });
      stamps.set(out, v);
      v.deferred = out;
      return out;
    },
    reset() {
      s.state = emptySharded();
      s.size = 0;
      s.log = { pairs: [], start: 0 };
      s.latest = undefined;
      s.built = undefined;
    },
  };
}

function apply<V extends object>(s: SortedState<V>, changes: readonly Change<V>[]): void {
  if (changes.length === 0) return;
  // Values as of each change, so a version's array can be patched in order.
  const overlay = new Map<string, V | undefined>();
  const pairs = s.log.pairs;
  for (const [key, after] of changes) {
    const before = overlay.has(key) ? overlay.get(key) : shardedGet(s.state, key);
    if (before === after) continue;
    s.size += (after !== undefined ? 1 : 0) - (before !== undefined ? 1 : 0);
    overlay.set(key, after);
    pairs.push([before, after]);
  }
  if (overlay.size === 0) return;
  s.state = shardedApply(s.state, [...overlay]);
  s.latest = undefined;
  if (pairs.length > 2 * LOG_KEEP) {
    // Versions point at this log object: trim it in place.
    const drop = pairs.length - LOG_KEEP;
    pairs.splice(0, drop);
    s.log.start += drop;
  }
}

function lowerBound<V>(compare: (a: V, b: V) => number, arr: V[], v: V): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(arr[mid]!, v) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function patch<V>(
  compare: (a: V, b: V) => number,
  base: readonly V[],
  from: number,
  to: number,
  pairs: readonly [object | undefined, object | undefined][],
): V[] {
  // A spread, not slice(): slice() of a frozen array takes a slow path (~380 µs for 10,000 elements against ~4 µs).
  const arr = [...base];
  for (let i = from; i < to; i++) {
    const [before, after] = pairs[i]! as [V | undefined, V | undefined];
    if (before !== undefined) {
      // Values are the very objects stored in the state, so identity finds the entry among equals.
      let j = lowerBound(compare, arr, before);
      while (j < arr.length && arr[j] !== before) j++;
      if (j < arr.length) arr.splice(j, 1);
    }
    if (after !== undefined) arr.splice(lowerBound(compare, arr, after), 0, after);
  }
  return arr;
}

function version<V>(s: SortedState<V>): Version<V> {
  s.latest ??= { state: s.state, size: s.size, log: s.log, seq: s.log.start + s.log.pairs.length };
  return s.latest;
}

function build<V>(s: SortedState<V>, v: Version<V>): readonly V[] {
  if (v.array !== undefined) return v.array;
  const base = s.built;
  let arr: V[];
  if (
    base?.array !== undefined &&
    base.log === v.log &&
    base.seq <= v.seq &&
    base.seq >= v.log.start &&
    v.seq - base.seq <= Math.max(16, v.size * PATCH_LIMIT)
  ) {
    arr = patch(s.compare, base.array, base.seq - v.log.start, v.seq - v.log.start, v.log.pairs);
  } else {
    arr = shardedValues(v.state).sort(s.compare);
  }
  const array = Object.freeze(arr);
  v.array = array;
  stamps.set(array, { log: v.log, seq: v.seq, size: v.size });
  if (base === undefined || base.log !== v.log || base.seq <= v.seq) s.built = v;
  return array;
}

type PayloadOf<K extends EventPayload['type']> = Extract<EventPayload, { type: K }>;

/**
 * A View over a sorted sharded map: every event must carry a `type` payload,
 * `change` maps it to a key and the value to store (undefined = delete), and
 * one delivery is applied as one new version.
 */
export function shardedView<V extends object, K extends EventPayload['type']>(
  name: string,
  type: K,
  compare: (a: V, b: V) => number,
  change: (payload: PayloadOf<K>) => Change<V>,
): View<readonly V[]> {
  const store = sortedSharded(compare);
  return {
    update(events) {
      const changes: Change<V>[] = [];
      for (const event of events) {
        if (event.payload.type !== type) {
          throw new HubError('INTERNAL', `${name} view got a ${event.payload.type} event (topic ${event.topic})`);
        }
        changes.push(change(event.payload as PayloadOf<K>));
      }
      store.apply(changes);
    },
    result: () => store.result(),
    deferred: (index) => store.deferred(index),
    reset: () => store.reset(),
  };
}
