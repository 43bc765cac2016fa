// The state the protocol rules (rules/) decide on, as immutable values: per
// stream its identity and one TypeState per type; per type what the client
// wants, what it holds (moved only on ACK, X-ORDER-2), what is in flight and
// the last NACK. The rules return new values; the stream (stream.ts) keeps the
// latest. Small by design: names and versions point at strings the provider
// already holds, and sets and maps are shared until something differs.

import { HeldVersions } from './held-versions';
import { EMPTY_NAMES } from './name-sets';
import type { XdsNode, XdsResource } from './provider';
import type { ResourceType } from './resource-types';
import { TypeStates } from './type-states';
import type { ApiVersion } from './wire';

export type Variant = 'sotw' | 'delta';
/** 'ads', or the single type a per-type stream serves. */
export type Transport = 'ads' | ResourceType['short'];

/** What one stream wants of one type (X-SUB-*). */
export interface Subscription {
  readonly wildcard: boolean;
  /** Interned and shared between streams (name-sets.ts). */
  readonly names: ReadonlySet<string>;
  /** Whether any name (`*` included) was ever sent for this type on this stream (X-SUB-3). */
  readonly everNamed: boolean;
}

export const NO_SUBSCRIPTION: Subscription = Object.freeze({ wildcard: false, names: EMPTY_NAMES, everNamed: false });

export interface Pending {
  readonly nonce: string;
  /** SotW: the set version sent. Delta: ''. */
  readonly version: string;
  /** name → version sent, or null for a name sent in removed_resources. Shared between streams. */
  readonly sent: ReadonlyMap<string, string | null>;
  /** SotW only: the resources sent, kept so removals can be deferred (make-before-break). */
  readonly resources: ReadonlyMap<string, XdsResource> | undefined;
  readonly heartbeat: boolean;
  /** When the change that caused this push reached the hub (for the latency histogram). */
  readonly changeAt: number | undefined;
}

export interface NackRecord {
  readonly nonce: string;
  readonly code: number;
  readonly message: string;
  /** ms since the epoch. */
  readonly at: number;
  /** The version_info the client reported with the NACK (SotW). */
  readonly versionInfo: string;
}

export interface TypeState {
  readonly type: ResourceType;
  /** The type URL this client speaks (v3, or v2 on legacy streams). */
  readonly wireTypeUrl: string;
  readonly sub: Subscription;
  /** A request of this type has been seen. */
  readonly started: boolean;
  /** Delta: a response of this type has gone out on this stream (X-DELTA-9). */
  readonly answered: boolean;
  /** name → version the client holds, moved only on ACK. */
  readonly acked: HeldVersions;
  /** SotW: the set version last ACKed, and the resources the client holds. */
  readonly ackedVersion: string;
  readonly ackedResources: ReadonlyMap<string, XdsResource>;
  /** SotW: the set version last sent (pending, ACKed or NACKed): equal content is not sent again (X-ACK-5, X-ACK-8). */
  readonly lastSentVersion: string;
  /** Delta: name → version the client rejected; not resent until the content changes (X-ACK-5). */
  readonly rejected: ReadonlyMap<string, string>;
  readonly pending: Pending | undefined;
  /** Something may need sending. */
  readonly dirty: boolean;
  /** The last computation held something back (removals, routes): stay dirty. */
  readonly holding: boolean;
  /** Delta: names changed since the last computation; 'all' to look at everything. */
  readonly changed: ReadonlySet<string> | 'all';
  /** Names to send even if the client holds that version (X-SUB-2, X-DELTA-5, X-WARM-1). */
  readonly force: ReadonlySet<string>;
  /** SotW: send the set even if its version did not change (subscription changed). */
  readonly forceAll: boolean;
  readonly lastNack: NackRecord | undefined;
  /** When the oldest unsent change reached the hub. */
  readonly changeAt: number | undefined;
  /** Responses written since the last ACK/NACK (instrumentation: never more than 1). */
  readonly unacked: number;
}

export interface StreamState {
  readonly id: number;
  readonly variant: Variant;
  readonly transport: Transport;
  readonly api: ApiVersion;
  /** From the first request (X-STREAM-1). */
  readonly node: XdsNode | undefined;
  /** TTL carried to this client (X-TTL-1) and whether SotW resources go in Resource wrappers (X-TTL-3); set with the node. */
  readonly ttlMs: number;
  readonly sotwWrap: boolean;
  readonly types: TypeStates;
  /** Nonces sent so far (X-STREAM-2). */
  readonly nonceSeq: number;
}

const NO_RESOURCES: ReadonlyMap<string, XdsResource> = new Map();
const NO_NAMES: ReadonlySet<string> = new Set();
const NO_REJECTED: ReadonlyMap<string, string> = new Map();

export function newStreamState(id: number, variant: Variant, transport: Transport, api: ApiVersion): StreamState {
  return {
    id,
    variant,
    transport,
    api,
    node: undefined,
    ttlMs: 0,
    sotwWrap: false,
    types: TypeStates.EMPTY,
    nonceSeq: 0,
  };
}

export function newTypeState(type: ResourceType, wireTypeUrl: string): TypeState {
  return {
    type,
    wireTypeUrl,
    sub: NO_SUBSCRIPTION,
    started: false,
    answered: false,
    acked: HeldVersions.EMPTY,
    ackedVersion: '',
    ackedResources: NO_RESOURCES,
    lastSentVersion: '',
    rejected: NO_REJECTED,
    pending: undefined,
    dirty: false,
    holding: false,
    changed: NO_NAMES,
    force: NO_NAMES,
    forceAll: false,
    lastNack: undefined,
    changeAt: undefined,
    unacked: 0,
  };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * `st` with `patch` applied, as a new value. The rules make one of these per
 * response and per ACK on every stream, so the copy is written out field by
 * field (the compiler checks that none is missed): V8 clones a 19-field object
 * through `{ ...st, x }` about 15× slower, and 2 µs when the literal adds a
 * field the source lacks (bench/NOTES.md, "The per-client cost at N = 5,000").
 */
export function typeWith(st: TypeState, patch: Partial<TypeState>): TypeState {
  const c: Mutable<TypeState> = {
    type: st.type,
    wireTypeUrl: st.wireTypeUrl,
    sub: st.sub,
    started: st.started,
    answered: st.answered,
    acked: st.acked,
    ackedVersion: st.ackedVersion,
    ackedResources: st.ackedResources,
    lastSentVersion: st.lastSentVersion,
    rejected: st.rejected,
    pending: st.pending,
    dirty: st.dirty,
    holding: st.holding,
    changed: st.changed,
    force: st.force,
    forceAll: st.forceAll,
    lastNack: st.lastNack,
    changeAt: st.changeAt,
    unacked: st.unacked,
  };
  return Object.assign(c, patch);
}

/** `s` with `patch` applied, as a new value (written out for the reason `typeWith` gives). */
export function streamWith(s: StreamState, patch: Partial<StreamState>): StreamState {
  const c: Mutable<StreamState> = {
    id: s.id,
    variant: s.variant,
    transport: s.transport,
    api: s.api,
    node: s.node,
    ttlMs: s.ttlMs,
    sotwWrap: s.sotwWrap,
    types: s.types,
    nonceSeq: s.nonceSeq,
  };
  return Object.assign(c, patch);
}

/** The stream with one type's state replaced. */
export function withType(s: StreamState, st: TypeState): StreamState {
  const types = s.types.with(st.type.typeUrl, st);
  return types === s.types ? s : streamWith(s, { types });
}

/** Marks names as changed (or everything), so the next computation looks at them; `at`: when the change reached the hub. */
export function markChanged(st: TypeState, names: Iterable<string> | 'all', at?: number): TypeState {
  const changeAt = at !== undefined && st.changeAt === undefined ? at : st.changeAt;
  const changed = names === 'all' || st.changed === 'all' ? 'all' : withNames(st.changed, names);
  if (st.dirty && changed === st.changed && changeAt === st.changeAt) return st;
  return typeWith(st, { dirty: true, changed, changeAt });
}

/**
 * Adds names to a set, copying only when one is new. An empty set takes a
 * given Set as it is: sets handed to the rules are never changed afterwards
 * (a push delivery's batch reaches every stream as one shared set).
 */
export function withNames(set: ReadonlySet<string>, names: Iterable<string>): ReadonlySet<string> {
  if (set.size === 0 && names instanceof Set) return names;
  let copy: Set<string> | undefined;
  for (const n of names) if (!(copy ?? set).has(n)) (copy ??= new Set(set)).add(n);
  return copy ?? set;
}

/** Whether anything waits to be looked at once the type is free (X-STREAM-3: the latest state, not a queue). */
export function hasWork(st: TypeState): boolean {
  return st.changed === 'all' || st.changed.size > 0 || st.force.size > 0 || st.forceAll || st.holding;
}

/** Changed and nothing in flight (X-STREAM-3): nextResponse may send the type now. */
export function isSendable(st: TypeState): boolean {
  return st.dirty && st.pending === undefined;
}

/** X-STREAM-4: changes wait for the next delivery (the push window was open when the type was freed). */
export function isDeferred(st: TypeState): boolean {
  return !st.dirty && st.pending === undefined && hasWork(st);
}
