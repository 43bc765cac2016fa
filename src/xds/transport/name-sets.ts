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
  const byKey = new Map<string, WeakRef<ReadonlySet<string>>>();
  const registry = new FinalizationRegistry<string>((key) => {
    if (!byKey.get(key)?.deref()) byKey.delete(key);
  });
  return {
    get size() {
      return byKey.size;
    },
    intern(set) {
      if (set.size === 0) return EMPTY_NAMES;
      // NUL cannot occur in a resource name, so the key is unambiguous.
      const key = [...set].sort().join('\0');
      const hit = byKey.get(key)?.deref();
      if (hit) return hit;
      byKey.set(key, new WeakRef(set));
      registry.register(set, key);
      return set;
    },
  };
}
