// A stream's TypeStates by type URL, as an immutable value. Every response and
// every ACK on every stream replaces one type's state, so the copy is the push
// path's most frequent allocation: a Map copy costs a hash table (hundreds of
// bytes, bench/NOTES.md "TypeStates without a Map"); this is two arrays of at
// most one slot per resource type, the keys shared between versions, looked up
// by a scan (a stream holds a handful of types; the URLs are the same interned
// strings, so each comparison is a pointer check). Insertion order is kept,
// as a Map's is.
import type { TypeState } from './stream-state';
import type { V3TypeUrl } from './type-urls';

export class TypeStates implements ReadonlyMap<V3TypeUrl, TypeState> {
  static readonly EMPTY = new TypeStates([], []);

  private constructor(
    private readonly urls: readonly V3TypeUrl[],
    private readonly states: readonly TypeState[],
  ) {}

  /** `like`'s type URLs with these states (same order and length): an equal value made of shared states. */
  static from(like: TypeStates, states: readonly TypeState[]): TypeStates {
    if (states.length !== like.urls.length) throw new RangeError('TypeStates.from: one state per type URL');
    return new TypeStates(like.urls, states);
  }

  get size(): number {
    return this.urls.length;
  }

  private indexOf(url: string): number {
    const urls = this.urls;
    for (let i = 0; i < urls.length; i++) if (urls[i] === url) return i;
    return -1;
  }

  get(url: V3TypeUrl): TypeState | undefined {
    const i = this.indexOf(url);
    return i < 0 ? undefined : this.states[i];
  }

  has(url: V3TypeUrl): boolean {
    return this.indexOf(url) >= 0;
  }

  /** The `i`th type URL and state, in insertion order (loops without an iterator's allocations). */
  urlAt(i: number): V3TypeUrl {
    return this.urls[i]!;
  }
  stateAt(i: number): TypeState {
    return this.states[i]!;
  }

  /** A new value with `url`'s state replaced (or added last); this one is unchanged. */
  with(url: V3TypeUrl, st: TypeState): TypeStates {
    const i = this.indexOf(url);
    if (i >= 0) {
      if (this.states[i] === st) return this;
      const states = this.states.slice();
      states[i] = st;
      return new TypeStates(this.urls, states);
    }
    return new TypeStates([...this.urls, url], [...this.states, st]);
  }

  forEach(
    f: (value: TypeState, key: V3TypeUrl, map: ReadonlyMap<V3TypeUrl, TypeState>) => void,
    thisArg?: unknown,
  ): void {
    for (let i = 0; i < this.urls.length; i++) f.call(thisArg, this.states[i]!, this.urls[i]!, this);
  }

  *entries(): MapIterator<[V3TypeUrl, TypeState]> {
    for (let i = 0; i < this.urls.length; i++) yield [this.urls[i]!, this.states[i]!];
  }
  *keys(): MapIterator<V3TypeUrl> {
    yield* this.urls;
  }
  *values(): MapIterator<TypeState> {
    yield* this.states;
  }
  [Symbol.iterator](): MapIterator<[V3TypeUrl, TypeState]> {
    return this.entries();
  }
}
