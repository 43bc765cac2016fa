// What a client holds (name → version), stored as a shared base plus a small
// per-stream overlay. Clients that ACK the same response (every Envoy's
// initial CDS/EDS sync, every SotW set) share that response's map as their
// base, so per-stream memory grows with what differs, not with every name.

const NOTHING: ReadonlyMap<string, string | null> = new Map();

export class HeldVersions implements Iterable<[string, string]> {
  /** Shared and never mutated (a response's `sent` map). */
  private base: ReadonlyMap<string, string | null> = NOTHING;
  /** This stream's differences: a version, or null for "not held". */
  private over: Map<string, string | null> | undefined;

  get(name: string): string | undefined {
    const o = this.over?.get(name);
    if (o !== undefined) return o ?? undefined;
    return this.base.get(name) ?? undefined;
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  set(name: string, version: string): void {
    if (this.base.get(name) === version) this.over?.delete(name);
    else (this.over ??= new Map()).set(name, version);
    this.compactIfLarge();
  }

  delete(name: string): void {
    if (this.base.get(name) != null) (this.over ??= new Map()).set(name, null);
    else this.over?.delete(name);
    this.compactIfLarge();
  }

  /** Replaces everything with a shared map (null values mean "not held"). The map must never change afterwards. */
  adopt(shared: ReadonlyMap<string, string | null>): void {
    this.base = shared;
    this.over = undefined;
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

  /** Once the overlay is a large part of the whole, sharing no longer pays: own one map. */
  private compactIfLarge(): void {
    if (!this.over || this.over.size < 64 || this.over.size * 2 < this.base.size) return;
    this.base = new Map(this);
    this.over = undefined;
  }
}
