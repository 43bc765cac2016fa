// A persistent map for views of thousands of entries: 32 × 64 buckets of Maps.
// One delivery's changes are grouped by bucket, each touched bucket is copied
// once (and frozen), each touched row is copied once with its new buckets, and
// one immer \`produce\` swaps the new rows into the outer array — so an update
// costs one small bucket copy per touched bucket plus short arrays, not a copy of the whole
// map (a flat 10,000-entry Map costs ~1.8 ms per update), and a burst costs one
// new version, not one per event. Every version is frozen and shares untouched
// rows and buckets with the one before it. Empty buckets are one shared Map, so
// an empty view (one per watched service) costs 33 short arrays. The produce is
// ~9 µs of an update's ~10 µs at 10,000 entries (hand-made copies of the two
// arrays measured ~1.2 µs): immer stays, as the one way views change state.

import { Immer } from 'immer';

// The views' own immer instance (auto-freeze on), so settings other modules
// give the global instance never change how views behave.
const viewImmer = new Immer({ autoFreeze: true });

const OUTER = 32;
// 64 columns, not 32: a delivery's cost is mostly copying the buckets it touches,
// and at 30,000 entries halving them took a 23-change update from 64-96 to
// 43-53 µs (measured); a touched row is a 64-pointer copy.
const INNER = 64;

export type Sharded<V> = readonly (readonly ReadonlyMap<string, V>[])[];

/** A change to apply: a value to set, or undefined to delete the key. */
export type Change<V> = readonly [key: string, value: V | undefined];

// Buckets never leave the view (results are arrays built from them), but a
// bucket still refuses set/delete/clear, guarding against a bug mutating a
// version someone reads. A subclass does it for the cost of a plain Map: giving
// each Map its own refusing methods and freezing it cost ~4 µs per bucket.
const mapSet = Map.prototype.set;
const mapDelete = Map.prototype.delete;
class Bucket<V> extends Map<string, V> {
  override set(): never {
    throw new TypeError('view state is immutable');
  }
  override delete(): never {
    throw new TypeError('view state is immutable');
  }
  override clear(): never {
    throw new TypeError('view state is immutable');
  }
}

/** A new bucket holding what `from` holds (filled through Map's own methods). */
function copyOf<V>(from: ReadonlyMap<string, V>): Bucket<V> {
  const to = new Bucket<V>();
  for (const [k, v] of from) mapSet.call(to, k, v);
  return to;
}

const EMPTY_BUCKET: ReadonlyMap<string, never> = Object.freeze(new Bucket<never>());
const EMPTY_ROW: readonly ReadonlyMap<string, never>[] = Object.freeze(
  Array.from({ length: INNER }, () => EMPTY_BUCKET),
);

export function emptySharded<V>(): Sharded<V> {
  return Object.freeze(Array.from({ length: OUTER }, () => EMPTY_ROW));
}

// FNV-1a: cheap, spreads similar keys ("node-1/web-1", "node-2/web-1") well in
// its high bits (the multiply carries every character upwards; the low bits see
// only the characters' low bits, and digits differ in only four of them).
function hash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Row and column of a key's bucket: the hash's top 5 bits, then the next 6. */
const rowOf = (h: number) => h >>> 27;
const colOf = (h: number) => (h >>> 21) & 63;

/** The new version after `changes` (in order); the same object when nothing changed. */
export function shardedApply<V>(state: Sharded<V>, changes: Iterable<Change<V>>): Sharded<V> {
  const touched = new Map<number, Bucket<V>>();
  for (const [key, value] of changes) {
    const h = hash(key);
    const slot = rowOf(h) * INNER + colOf(h);
    let bucket = touched.get(slot);
    if (bucket === undefined) {
      const current = state[rowOf(h)]![colOf(h)]!;
      if (value === undefined && !current.has(key)) continue;
      bucket = copyOf(current);
      touched.set(slot, bucket);
    }
    if (value === undefined) mapDelete.call(bucket, key);
    else mapSet.call(bucket, key, value);
  }
  if (touched.size === 0) return state;
  // Each touched row is copied once with its new buckets (frozen), then immer
  // swaps the new rows into the outer array. Drafting the rows themselves made
  // immer finalise all 32 slots of every touched row: at ~23 entries per
  // delivery, about half the rows, ~0.3 ms per update, paid by every hub for
  // every write; this way it finalises the 32 slots of the outer array only.
  const rows = new Map<number, ReadonlyMap<string, V>[]>();
  for (const [slot, bucket] of touched) {
    const r = Math.floor(slot / INNER);
    let row = rows.get(r);
    if (row === undefined) rows.set(r, (row = [...state[r]!]));
    row[slot % INNER] = bucket.size === 0 ? EMPTY_BUCKET : Object.freeze(bucket);
  }
  // (Typed as plain arrays of rows: immer's Draft<Map> would ask for drafts of the values.)
  type Rows = (readonly ReadonlyMap<string, V>[])[];
  return viewImmer.produce(state as Rows, (draft: Rows) => {
    for (const [r, row] of rows) draft[r] = Object.freeze(row);
  }) as Sharded<V>;
}

export function shardedGet<V>(state: Sharded<V>, key: string): V | undefined {
  const h = hash(key);
  return state[rowOf(h)]![colOf(h)]!.get(key);
}

export function shardedValues<V>(state: Sharded<V>): V[] {
  const out: V[] = [];
  for (const row of state) for (const b of row) for (const v of b.values()) out.push(v);
  return out;
}
