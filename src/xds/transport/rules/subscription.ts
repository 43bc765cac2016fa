// Rule module: subscriptions and the wildcard (X-SUB-1..5, X-DELTA-4/5/8;
// docs/xds-rules.md). Pure: (type state, request) → (new type state, how the
// subscription moved). What the stream wants of a type is replaced (SotW) or
// changed (Delta); names that come, and a subscription that changed, are sent
// even at a version the client may hold.

import { type NameInterner, NO_INTERNING } from '../name-sets';
import type { ResourceSet } from '../provider';
import type { ResourceType } from '../resource-types';
import { markChanged, type Subscription, type TypeState, typeWith, withNames } from '../stream-state';

export interface SubscriptionDelta {
  changed: boolean;
  /** The names set before the request (the push index is keyed by it). */
  before: ReadonlySet<string>;
  added: readonly string[];
  removed: readonly string[];
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

const NONE: readonly string[] = Object.freeze([]);

/** Every ACK asks for this: no lists of its own. */
function unmoved(sub: Subscription): SubscriptionDelta {
  return { changed: false, before: sub.names, added: NONE, removed: NONE, wildcardChanged: false };
}

function moved(before: Subscription, after: Subscription): SubscriptionDelta {
  if (before === after) return unmoved(before);
  const added = before.names === after.names ? [] : [...after.names].filter((n) => !before.names.has(n));
  const removed = before.names === after.names ? [] : [...before.names].filter((n) => !after.names.has(n));
  const wildcardChanged = before.wildcard !== after.wildcard;
  return {
    changed: wildcardChanged || added.length > 0 || removed.length > 0,
    before: before.names,
    added,
    removed,
    wildcardChanged,
  };
}

/** X-SUB-1, X-SUB-3 (SotW): the request lists the whole interest. Empty before any name = `*`; empty after = nothing. */
export function applySotwNames(
  sub: Subscription,
  type: ResourceType,
  names: readonly string[],
  interner: NameInterner = NO_INTERNING,
): { sub: Subscription; delta: SubscriptionDelta } {
  const legacyWildcard = names.length === 0 && !sub.everNamed && type.wildcardAllowed;
  const wildcard = legacyWildcard || (type.wildcardAllowed && names.includes('*'));
  const everNamed = sub.everNamed || names.length > 0;
  // Most SotW requests are ACKs restating the same names: check before building anything.
  const same = sameNames(sub.names, names);
  if (same && wildcard === sub.wildcard && everNamed === sub.everNamed) return { sub, delta: moved(sub, sub) };
  const next: Subscription = {
    wildcard,
    everNamed,
    names: same ? sub.names : interner.intern(new Set(names.filter((n) => n !== '*'))),
  };
  return { sub: next, delta: moved(sub, next) };
}

/**
 * X-SUB-1, X-SUB-3 (Delta): the request carries changes. On the first request of
 * a type an empty subscribe list is the legacy wildcard; later, only `*` and its
 * unsubscribe move the wildcard flag. Most requests are bare ACKs: nothing is
 * copied unless a name actually comes or goes.
 */
export function applyDeltaChange(
  sub: Subscription,
  type: ResourceType,
  subscribe: readonly string[],
  unsubscribe: readonly string[],
  first: boolean,
  interner: NameInterner = NO_INTERNING,
): { sub: Subscription; delta: SubscriptionDelta } {
  let wildcard = sub.wildcard;
  if (first && subscribe.length === 0 && type.wildcardAllowed) wildcard = true;
  let next: Set<string> | undefined;
  for (const n of subscribe) {
    if (n === '*') wildcard = type.wildcardAllowed;
    else if (!(next ?? sub.names).has(n)) (next ??= new Set(sub.names)).add(n);
  }
  for (const n of unsubscribe) {
    if (n === '*') wildcard = false;
    else if ((next ?? sub.names).has(n)) (next ??= new Set(sub.names)).delete(n); // never subscribed: ignored (X-DELTA-8)
  }
  const everNamed = sub.everNamed || subscribe.length > 0;
  if (!next && wildcard === sub.wildcard && everNamed === sub.everNamed) return { sub, delta: moved(sub, sub) };
  const after: Subscription = { wildcard, everNamed, names: next ? interner.intern(next) : sub.names };
  return { sub: after, delta: moved(sub, after) };
}

/** Whether the subscription covers `name` in this set (by name, or by `*` for names the provider marks wildcard; X-SUB-4). */
export function covers(sub: Subscription, set: ResourceSet, name: string): boolean {
  return sub.names.has(name) || (sub.wildcard && set.wildcard.has(name));
}

/** Every name the subscription covers, existing or not (X-SUB-5), sorted. */
export function coveredNames(sub: Subscription, set: ResourceSet): string[] {
  const out = new Set(sub.names);
  if (sub.wildcard) for (const n of set.wildcard) out.add(n);
  return [...out].sort();
}

/** X-SUB-2: a new or changed SotW subscription gets the whole set, even if nothing in it changed. */
export function sendWholeSet(st: TypeState): TypeState {
  return typeWith(markChanged(st, 'all'), { forceAll: true });
}

/**
 * A Delta request's names, applied to a type (X-DELTA-4: whatever its nonce).
 * `held`: names the client announced it holds on this first request (X-DELTA-6),
 * which need not be sent again.
 */
export function deltaSubscription(
  st: TypeState,
  subscribe: readonly string[],
  unsubscribe: readonly string[],
  first: boolean,
  held: ReadonlyMap<string, string>,
  interner: NameInterner,
): { state: TypeState; delta: SubscriptionDelta } {
  // A bare ACK (most requests) moves nothing: the same state, without the lists below.
  if (!first && subscribe.length === 0 && unsubscribe.length === 0) return { state: st, delta: unmoved(st.sub) };
  const { sub, delta } = applyDeltaChange(st.sub, st.type, subscribe, unsubscribe, first, interner);
  let next: TypeState = sub === st.sub ? st : typeWith(st, { sub });
  const named = subscribe.filter((n) => n !== '*');
  // X-DELTA-5: a (re)subscribed name is sent even at the version the client holds — unless it just said it holds it.
  const force = named.filter((n) => !(first && held.has(n)));
  if (named.length > 0) next = markChanged(next, named);
  const dropped = new Set(delta.removed);
  const answer: string[] = [];
  const gone: [string, null][] = [];
  for (const n of unsubscribe) {
    if (n === '*') continue;
    if (sub.wildcard)
      answer.push(n); // X-DELTA-8: say whether it stays under `*` or goes
    else if (dropped.has(n)) gone.push([n, null]); // the client dropped it; no answer
    // else: never subscribed by name, ignored (X-DELTA-8); if `*` went, the markChanged below settles it
  }
  if (answer.length > 0) next = markChanged(next, answer);
  force.push(...answer);
  if (force.length > 0) next = typeWith(next, { force: withNames(next.force, force) });
  if (gone.length > 0) {
    const rejected = new Map(next.rejected);
    for (const [n] of gone) rejected.delete(n);
    next = typeWith(next, {
      acked: next.acked.with(gone),
      rejected: rejected.size === next.rejected.size ? next.rejected : rejected,
    });
  }
  if (delta.wildcardChanged || (first && sub.wildcard)) next = markChanged(next, 'all');
  return { state: next, delta };
}
