// Per stream, per type: what the client wants, what it holds (committed only on
// ACK, X-ORDER-2), what is in flight, and the last NACK. Small by design: names
// and versions point at strings the provider already holds.
import type { XdsResource } from './provider';
import type { ResourceType } from './resource-types';
import { HeldVersions } from './held-versions';
import { newSubscription, type Subscription } from './subscription';

export interface Pending {
  nonce: string;
  /** SotW: the set version sent. Delta: ''. */
  version: string;
  /** name → version sent, or null for a name sent in removed_resources. Shared between streams: never mutate. */
  sent: ReadonlyMap<string, string | null>;
  /** SotW only: the resources sent, kept so removals can be deferred (make-before-break). */
  resources: ReadonlyMap<string, XdsResource> | undefined;
  heartbeat: boolean;
  /** When the change that caused this push reached the hub (for the latency histogram). */
  changeAt: number | undefined;
}

export interface NackRecord {
  nonce: string;
  code: number;
  message: string;
  at: Date;
  /** The version_info the client reported with the NACK (SotW). */
  versionInfo: string;
}

export interface TypeState {
  readonly type: ResourceType;
  /** The type URL this client speaks (v3, or v2 on legacy streams). */
  wireTypeUrl: string;
  sub: Subscription;
  /** A request of this type has been seen. */
  started: boolean;
  /** name → version the client holds, moved only on ACK. */
  acked: HeldVersions;
  /** SotW: the set version last ACKed, and the resources the client holds. */
  ackedVersion: string;
  ackedResources: ReadonlyMap<string, XdsResource>;
  /** SotW: the set version last sent (pending, ACKed or NACKed): equal content is not sent again (X-ACK-5, X-ACK-8). */
  lastSentVersion: string;
  /** Delta: name → version the client rejected; not resent until the content changes (X-ACK-5). */
  rejected: Map<string, string>;
  pending: Pending | undefined;
  /** Something may need sending. */
  dirty: boolean;
  /** Set by the last computation when it held something back (removals, routes): stay dirty. */
  holding: boolean;
  /** Delta: names changed since the last computation; 'all' to look at everything. */
  changed: Set<string> | 'all';
  /** Names to send even if the client holds that version (X-SUB-2, X-DELTA-5, X-WARM-1). */
  force: Set<string>;
  /** SotW: send the set even if its version did not change (subscription changed). */
  forceAll: boolean;
  lastNack: NackRecord | undefined;
  /** When the oldest unsent change reached the hub. */
  changeAt: number | undefined;
  /** Responses written since the last ACK/NACK (instrumentation: must never exceed 1). */
  unacked: number;
}

const NO_RESOURCES: ReadonlyMap<string, XdsResource> = new Map();

export function newTypeState(type: ResourceType, wireTypeUrl: string): TypeState {
  return {
    type,
    wireTypeUrl,
    sub: newSubscription(),
    started: false,
    acked: new HeldVersions(),
    ackedVersion: '',
    ackedResources: NO_RESOURCES,
    lastSentVersion: '',
    rejected: new Map(),
    pending: undefined,
    dirty: false,
    holding: false,
    changed: new Set(),
    force: new Set(),
    forceAll: false,
    lastNack: undefined,
    changeAt: undefined,
    unacked: 0,
  };
}

/** Marks names as changed (or everything), so the next flush looks at them. */
export function markChanged(st: TypeState, names: Iterable<string> | 'all', at?: number): void {
  st.dirty = true;
  if (at !== undefined && st.changeAt === undefined) st.changeAt = at;
  if (names === 'all' || st.changed === 'all') {
    st.changed = 'all';
    return;
  }
  for (const n of names) st.changed.add(n);
}

/** The client accepted the pending response: commit what it now holds. */
export function commitAck(st: TypeState): void {
  const p = st.pending;
  if (!p) return;
  if (p.resources || st.acked.empty) {
    // SotW carries the whole set, and a first Delta response is all the client holds: share the response's map.
    st.acked.adopt(p.sent);
    for (const name of st.rejected.keys()) if (p.sent.get(name)) st.rejected.delete(name);
  } else {
    for (const [name, version] of p.sent) {
      if (version === null) st.acked.delete(name);
      else {
        st.acked.set(name, version);
        st.rejected.delete(name);
      }
    }
  }
  if (p.resources) {
    st.ackedVersion = p.version;
    st.ackedResources = p.resources;
  }
  st.pending = undefined;
  st.unacked = 0;
}

/** The client rejected the pending response: keep its last good state, remember what it refused. */
export function recordNack(st: TypeState, nack: NackRecord): void {
  const p = st.pending;
  if (p) for (const [name, version] of p.sent) if (version !== null) st.rejected.set(name, version);
  st.lastNack = nack;
  st.pending = undefined;
  st.unacked = 0;
}
