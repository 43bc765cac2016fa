// What a client holds (name → version), as an immutable value: a shared base
// plus per-stream layers of differences. Clients that ACK the same response
// (every Envoy's initial CDS/EDS sync, every SotW set) share that response's
// map as their base, so per-stream memory grows with what differs, not with
// every name. Updates return a new value and never touch the base or an
// existing layer.
//
// Why layers: an update used to copy the whole overlay, so under churn every
// ACK cost O(everything changed since the base). Now an update adds one small
// layer, and a layer is merged into the one below only when it has grown to
// half its size (as in a log-structured merge): every name is copied O(log n)
// times over its life, a lookup reads O(log n) layers, and each update costs
// about what it changes.

type Layer = ReadonlyMap<string, string | null>;

const NOTHING: Layer = new Map();

/** Below this many differences, a merge into the base is not worth the copy. */
const OWN_BASE_MIN = 64;

/**
 * Values are pure functions of their inputs, so they are shared: `of(map)` is
 * one value per map, and `from.with(map)` is remembered per shared map (the
 * last transition made with it). A fleet that ACKs the same responses in the
 * same order (one change pushed to N streams) then makes each value once, not
 * once per stream. Held only while the map is (a response's `sent`, kept by
 * pending states and the history).
 */
const ofMap = new WeakMap<Layer, HeldVersions>();
const lastWith = new WeakMap<Layer, { from: HeldVersions; to: HeldVersions }>();

export class HeldVersions implements Iterable<[string, string]> {
  static readonly EMPTY = new HeldVersions([NOTHING]);

  /** Everything held is `shared` (null values mean "not held"). The map must never change afterwards. */
  static of(shared: Layer): HeldVersions {
    let v = ofMap.get(shared);
    if (!v) ofMap.set(shared, (v = new HeldVersions([shared])));
    return v;
  }

  private constructor(
    /**
     * layers[0] is the base (shared, a response's `sent` map); later layers are
     * this value's differences, newest last, each at most half the size of the
     * one below. A version, or null for "not held". None is mutated once built.
     */
    private readonly layers: readonly Layer[],
  ) {}

  get(name: string): string | undefined {
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const v = this.layers[i]!.get(name);
      if (v !== undefined) return v ?? undefined;
    }
    return undefined;
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  /**
   * A new value with each name set to its version, or dropped for null. A Map
   * is taken as it is, as the newest layer, not copied: like `of`'s, it must
   * never change afterwards (an ACKed response's shared `sent` map; every
   * client's ACK of one change would otherwise copy it).
   */
  with(changes: Iterable<readonly [string, string | null]> | Layer): HeldVersions {
    // Not checked against what is held: a name ACKed at the version it had only costs its entry here.
    if (changes instanceof Map) {
      if (changes.size === 0) return this;
      const t = lastWith.get(changes);
      if (t?.from === this) return t.to;
      const to = this.over(changes);
      if (t) {
        t.from = this;
        t.to = to;
      } else lastWith.set(changes, { from: this, to });
      return to;
    }
    let m: Map<string, string | null> | undefined;
    for (const [name, version] of changes as Iterable<readonly [string, string | null]>)
      (m ??= new Map()).set(name, version);
    return m ? this.over(m) : this;
  }

  /** This value with `top` as its newest layer (merged down as the layers' sizes ask). */
  private over(top: Layer): HeldVersions {
    // One array of the final size at most (an ACK per response per stream comes through here).
    const layers: Layer[] = new Array(this.layers.length + 1);
    for (let i = 0; i < this.layers.length; i++) layers[i] = this.layers[i]!;
    let n = this.layers.length;
    layers[n++] = top;
    // Merge while the newest layer is at least half the one below (the base only once it pays).
    while (n > 1) {
      const upper = layers[n - 1]!;
      const lower = layers[n - 2]!;
      if (upper.size * 2 < lower.size) break;
      if (n === 2 && upper.size < OWN_BASE_MIN) break;
      layers[n - 2] = merge(lower, upper, n === 2);
      n--;
    }
    layers.length = n;
    const next = new HeldVersions(layers);
    // The newest layer is never shadowed: a version in it is held. (Else `empty` is worked out when asked.)
    for (const v of top.values())
      if (v !== null) {
        next.isEmpty = false;
        break;
      }
    return next;
  }

  /** Layers a lookup may read (the base included): O(log n) by construction (tests). */
  get depth(): number {
    return this.layers.length;
  }

  /** Asked on every ACK and every gated write: worked out once per value (which never changes). */
  get empty(): boolean {
    return (this.isEmpty ??= this[Symbol.iterator]().next().done === true);
  }

  private isEmpty: boolean | undefined;

  get size(): number {
    let n = 0;
    for (const _ of this) n++;
    return n;
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this) yield name;
  }

  *[Symbol.iterator](): IterableIterator<[string, string]> {
    const top = this.layers.length - 1;
    for (let i = top; i >= 0; i--) {
      for (const [name, version] of this.layers[i]!) {
        if (version === null) continue;
        let shadowed = false;
        for (let j = i + 1; j <= top && !shadowed; j++) shadowed = this.layers[j]!.has(name);
        if (!shadowed) yield [name, version];
      }
    }
  }
}

/** One layer with `upper` over `lower`; into the base, "not held" is left out rather than kept. */
function merge(lower: Layer, upper: Layer, intoBase: boolean): Layer {
  const out = copyMap(lower);
  for (const [name, version] of upper) {
    if (version === null && intoBase) out.delete(name);
    else out.set(name, version);
  }
  return out;
}

/**
 * A copy of a map, entry by entry. `new Map(map)` goes through the iterator
 * protocol and allocates a result object per entry (a heap profile of the
 * N = 5,000 rounds found these copies among the largest allocations per
 * response); a `for…of` loop in optimized code does not, and is about twice
 * as fast for the few entries a stream's types hold.
 */
export function copyMap<K, V>(map: ReadonlyMap<K, V>): Map<K, V> {
  const out = new Map<K, V>();
  for (const [k, v] of map) out.set(k, v);
  return out;
}
