// A persistent map for views of thousands of entries under immer: 16 × 16 buckets
// of Maps, so an update copies one small bucket and two short arrays instead of
// the whole map (a flat 10,000-entry Map costs ~1.8 ms per immer update; this
// shape costs tens of µs). State objects are frozen and shared between versions.
import type { Draft } from 'immer';

const OUTER = 16;
const INNER = 16;

export type Sharded<V> = readonly (readonly ReadonlyMap<string, V>[])[];

export function emptySharded<V>(): Sharded<V> {
  return Object.freeze(
    Array.from({ length: OUTER }, () => Object.freeze(Array.from({ length: INNER }, () => Object.freeze(new Map<string, V>())))),
  );
}

// FNV-1a: cheap, spreads similar keys ("node-1/web-1", "node-2/web-1") well.
function hash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function bucket<V>(draft: Draft<Sharded<V>>, key: string): Map<string, V> {
  const h = hash(key);
  return (draft as unknown as Map<string, V>[][])[h % OUTER]![(h >>> 4) % INNER]!;
}

/** Inside a produce recipe: set key → value. */
export function shardedSet<V>(draft: Draft<Sharded<V>>, key: string, value: V): void {
  bucket(draft, key).set(key, value);
}

/** Inside a produce recipe: delete key (immer copies nothing when the key is absent). */
export function shardedDelete<V>(draft: Draft<Sharded<V>>, key: string): void {
  bucket(draft, key).delete(key);
}

export function shardedValues<V>(state: Sharded<V>): V[] {
  const out: V[] = [];
  for (const row of state) for (const b of row) for (const v of b.values()) out.push(v);
  return out;
}

export function shardedSize<V>(state: Sharded<V>): number {
  let n = 0;
  for (const row of state) for (const b of row) n += b.size;
  return n;
}
