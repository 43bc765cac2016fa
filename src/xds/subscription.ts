// What one stream wants of one type, with the legacy wildcard rule (X-SUB-3).
import type { ResourceSet } from './provider';
import type { ResourceType } from './resource-types';

export interface Subscription {
  wildcard: boolean;
  names: Set<string>;
  /** Whether any name (`*` included) was ever sent for this type on this stream. */
  everNamed: boolean;
}

export const newSubscription = (): Subscription => ({ wildcard: false, names: new Set(), everNamed: false });

export interface SubscriptionDelta {
  changed: boolean;
  added: string[];
  removed: string[];
  /** The wildcard flag flipped. */
  wildcardChanged: boolean;
}

function diff(before: Subscription, after: Subscription): SubscriptionDelta {
  const added = [...after.names].filter((n) => !before.names.has(n));
  const removed = [...before.names].filter((n) => !after.names.has(n));
  const wildcardChanged = before.wildcard !== after.wildcard;
  return { changed: wildcardChanged || added.length > 0 || removed.length > 0, added, removed, wildcardChanged };
}

/** SotW: the request lists the whole interest. Empty before any name = `*`; empty after = nothing. */
export function applySotwNames(sub: Subscription, type: ResourceType, names: readonly string[]): SubscriptionDelta {
  const before: Subscription = { ...sub, names: new Set(sub.names) };
  const legacyWildcard = names.length === 0 && !sub.everNamed && type.wildcardAllowed;
  sub.everNamed ||= names.length > 0;
  sub.wildcard = legacyWildcard || (type.wildcardAllowed && names.includes('*'));
  sub.names = new Set(names.filter((n) => n !== '*'));
  return diff(before, sub);
}

/**
 * Delta: the request carries changes. On the first request of a type, an empty
 * subscribe list is the legacy wildcard; later, only `*` and its unsubscribe
 * move the wildcard flag. Works in place: most requests are bare ACKs, and
 * copying the subscription for each would cost O(names) per ACK.
 */
export function applyDeltaChange(
  sub: Subscription,
  type: ResourceType,
  subscribe: readonly string[],
  unsubscribe: readonly string[],
  first: boolean,
): SubscriptionDelta {
  const wasWildcard = sub.wildcard;
  const added: string[] = [];
  const removed: string[] = [];
  if (first && subscribe.length === 0 && type.wildcardAllowed) sub.wildcard = true;
  for (const n of subscribe) {
    if (n === '*') sub.wildcard = type.wildcardAllowed;
    else if (!sub.names.has(n)) {
      sub.names.add(n);
      added.push(n);
    }
  }
  for (const n of unsubscribe) {
    if (n === '*') sub.wildcard = false;
    else if (sub.names.delete(n)) removed.push(n); // never subscribed: ignored silently (X-DELTA-8)
  }
  sub.everNamed ||= subscribe.length > 0;
  // A name both subscribed and unsubscribed in one request ends unsubscribed.
  const addedNow = added.filter((n) => sub.names.has(n));
  const removedNet = removed.filter((n) => !added.includes(n));
  const wildcardChanged = wasWildcard !== sub.wildcard;
  return {
    changed: wildcardChanged || addedNow.length > 0 || removedNet.length > 0,
    added: addedNow,
    removed: removedNet,
    wildcardChanged,
  };
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
