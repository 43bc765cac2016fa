// What a client holds (name → version), as an immutable value: a shared base
// plus a small per-stream overlay. Clients that ACK the same response (every
// Envoy's initial CDS/EDS sync, every SotW set) share that response's map as
// their base, so per-stream memory grows with what differs, not with every
// name. Updates return a new value and never touch the base or the old overlay.

const NOTHING: ReadonlyMap<string, string | null> = new Map();

export class HeldVersions implements Iterable<[string, string]> {
  static readonly EMPTY = new HeldVersions(NOTHING, undefined);

  /** Everything held is `shared` (null values mean "not held"). The map must never change afterwards. */
  static of(shared: ReadonlyMap<string, string | null>): HeldVersions {
    return new HeldVersions(shared, undefined);
  }

  private constructor(
    /** Shared and never mutated (a response's `sent` map). */
    private readonly base: ReadonlyMap<string, string | null>,
    /** This value's differences: a version, or null for "not held". Never mutated once built. */
    private readonly over: ReadonlyMap<string, string | null> | undefined,
  ) {}

  get(name: string): string | undefined {
    const o = this.over?.get(name);
    if (o !== undefined) return o ?? undefined;
    return this.base.get(name) ?? undefined;
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  /** A new value with each name set to its version, or dropped for null. */
  with(changes: Iterable<readonly [string, string | null]>): HeldVersions {
    const over = new Map(this.over);
    for (const [name, version] of changes) {
      if (version === null) {
        if (this.base.get(name) != null) over.set(name, null);
        else over.delete(name);
      } else if (this.base.get(name) === version) over.delete(name);
      else over.set(name, version);
    }
    // Once the overlay is a large part of the whole, sharing no longer pays: own one map.
    if (over.size >= 64 && over.size * 2 >= this.base.size) return HeldVersions.of(new Map(new HeldVersions(this.base, over)));
    return new HeldVersions(this.base, over.size > 0 ? over : undefined);
  }

  get empty(): boolean {
    for (const _ of this) return false;
    return true;
  }

  get size(): number {
    let n = 0;
    for (const _ of this) n++;
    return n;
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this) yield name;
  }

  *[Symbol.iterator](): IterableIterator<[string, string]> {
    for (const [name, version] of this.base) {
      if (this.over?.has(name) || version === null) continue;
      yield [name, version];
    }
    if (this.over) for (const [name, version] of this.over) if (version !== null) yield [name, version];
  }
}
