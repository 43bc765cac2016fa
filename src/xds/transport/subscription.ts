// What one stream wants of one type, with the legacy wildcard rule (X-SUB-3).
import type { ResourceSet } from './provider';
import { EMPTY_NAMES, NO_INTERNING, type NameInterner } from './name-sets';
import type { ResourceType } from './resource-types';

export interface Subscription {
  wildcard: boolean;
  /** Interned and shared between streams: replace, never mutate. */
  names: ReadonlySet<string>;
  /** Whether any name (`*` included) was ever sent for this type on this stream. */
  everNamed: boolean;
}

export const newSubscription = (): Subscription => ({ wildcard: false, names: EMPTY_NAMES, everNamed: false });

export interface SubscriptionDelta {
  changed: boolean;
  /** The names set before the request (the push index is keyed by it). */
  before: ReadonlySet<string>;
  added: string[];
  removed: string[];
  /** The wildcard flag flipped. */
  wildcardChanged: boolean;
}

function sameNames(set: ReadonlySet<string>, names: readonly string[]): boolean {
  let count = 0;
  const seen = new Set<string>();
  for (const n of names) {
    if (n === '*' || seen.has(n)) continue;
    seen.add(n);
    if (!set.has(n)) return false;
    count++;
  }
  return count === set.size;
}

/** SotW: the request lists the whole interest. Empty before any name = `*`; empty after = nothing. */
export function applySotwNames(
  sub: Subscription,
  type: ResourceType,
  names: readonly string[],
  interner: NameInterner = NO_INTERNING,
): SubscriptionDelta {
  const before = sub.names;
  const wasWildcard = sub.wildcard;
  const legacyWildcard = names.length === 0 && !sub.everNamed && type.wildcardAllowed;
  sub.everNamed ||= names.length > 0;
  sub.wildcard = legacyWildcard || (type.wildcardAllowed && names.includes('*'));
  let added: string[] = [];
  let removed: string[] = [];
  // Most SotW requests are ACKs restating the same names: check before building anything.
  if (!sameNames(before, names)) {
    sub.names = interner.intern(new Set(names.filter((n) => n !== '*')));
    added = [...sub.names].filter((n) => !before.has(n));
    removed = [...before].filter((n) => !sub.names.has(n));
  }
  const wildcardChanged = wasWildcard !== sub.wildcard;
  return { changed: wildcardChanged || added.length > 0 || removed.length > 0, before, added, removed, wildcardChanged };
}

/**
 * Delta: the request carries changes. On the first request of a type, an empty
 * subscribe list is the legacy wildcard; later, only `*` and its unsubscribe
 * move the wildcard flag. Most requests are bare ACKs: nothing is copied
 * unless a name actually comes or goes.
 */
export function applyDeltaChange(
  sub: Subscription,
  type: ResourceType,
  subscribe: readonly string[],
  unsubscribe: readonly string[],
  first: boolean,
  interner: NameInterner = NO_INTERNING,
): SubscriptionDelta {
  const before = sub.names;
  const wasWildcard = sub.wildcard;
  if (first && subscribe.length === 0 && type.wildcardAllowed) sub.wildcard = true;
  let next: Set<string> | undefined;
  for (const n of subscribe) {
    if (n === '*') sub.wildcard = type.wildcardAllowed;
    else if (!(next ?? before).has(n)) (next ??= new Set(before)).add(n);
  }
  for (const n of unsubscribe) {
    if (n === '*') sub.wildcard = false;
    else if ((next ?? before).has(n)) (next ??= new Set(before)).delete(n); // never subscribed: ignored (X-DELTA-8)
  }
  sub.everNamed ||= subscribe.length > 0;
  let added: string[] = [];
  let removed: string[] = [];
  if (next) {
    sub.names = interner.intern(next);
    added = [...sub.names].filter((n) => !before.has(n));
    removed = [...before].filter((n) => !sub.names.has(n));
  }
  const wildcardChanged = wasWildcard !== sub.wildcard;
  return { changed: wildcardChanged || added.length > 0 || removed.length > 0, before, added, removed, wildcardChanged };
}

/** Whether the subscription covers `name` in this set (by name, or by `*` for names the provider marks wildcard). */
export function covers(sub: Subscription, set: ResourceSet, name: string): boolean {
  return sub.names.has(name) || (sub.wildcard && set.wildcard.has(name));
}

/** Every name the subscription covers, existing or not, sorted. */
export function coveredNames(sub: Subscription, set: ResourceSet): string[] {
  const out = new Set(sub.names);
  if (sub.wildcard) for (const n of set.wildcard) out.add(n);
  return [...out].sort();
}
