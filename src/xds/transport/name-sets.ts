// Interned subscription name sets. Envoys of one fleet subscribe to the same
// EDS/RDS names, so equal sets are stored once and shared; a set is never
// mutated after interning (subscriptions copy on write). Entries go when no
// stream holds the set any more.

export const EMPTY_NAMES: ReadonlySet<string> = new Set<string>();

export interface NameInterner {
  intern(set: Set<string>): ReadonlySet<string>;
}

/** No sharing: for one-shot uses (REST fetch) and unit tests. */
export const NO_INTERNING: NameInterner = { intern: (set) => (set.size === 0 ? EMPTY_NAMES : set) };

export function nameInterner(): NameInterner & { readonly size: number } {
  const byKey = new WeakValues<ReadonlySet<string>>();
  return {
    get size() {
      return byKey.size;
    },
    intern(set) {
      if (set.size === 0) return EMPTY_NAMES;
      // NUL cannot occur in a resource name, so the key is unambiguous.
      return byKey.intern([...set].sort().join('\0'), set);
    },
  };
}

/** Values by key, held weakly: an entry goes when nothing else holds its value (name sets here, rule states in step-memo.ts). */
export class WeakValues<V extends object> {
  private readonly byKey = new Map<string, WeakRef<V>>();
  private readonly registry = new FinalizationRegistry<string>((key) => {
    if (!this.byKey.get(key)?.deref()) this.byKey.delete(key);
  });

  get size(): number {
    return this.byKey.size;
  }

  /** The value already known under `key`, or `value`, which is known under it from now on. */
  intern(key: string, value: V): V {
    const hit = this.byKey.get(key)?.deref();
    if (hit) return hit;
    this.byKey.set(key, new WeakRef(value));
    this.registry.register(value, key);
    return value;
  }
}
