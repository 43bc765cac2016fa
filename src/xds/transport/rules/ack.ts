// Rule module: versions, nonces, ACK and NACK (X-STREAM-2, X-ACK-1..8,
// X-DELTA-1/2/6; docs/xds-rules.md). Pure: (type state, reply) → new type
// state. A reply pairs with the one pending response only by its nonce; an
// error_detail makes it a NACK, nothing else does (never a version
// comparison). What the client holds moves only on ACK.
import { createHash } from 'node:crypto';
import { HeldVersions } from '../held-versions';
import type { ResourceSet, XdsResource } from '../provider';
import { hasWork, type NackRecord, type Pending, type TypeState, typeWith } from '../stream-state';
import { type ErrorDetail, wireVersion } from '../wire';
import { coveredNames } from './subscription';

/** X-ACK-1: hash over (name, version) pairs, so equal sets get equal versions on every hub and after restarts. */
export function setVersion(resources: Iterable<XdsResource>, ttlMs = 0): string {
  const h = createHash('sha256');
  for (const r of [...resources].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    h.update(r.name).update('\0').update(wireVersion(r, ttlMs)).update('\n');
  }
  return h.digest('hex').slice(0, 20);
}

/** X-STREAM-2, X-ACK-2: every response gets a fresh nonce, unique on its stream: `<stream id>-<sequence>`. */
export function nonceFor(streamId: number, seq: number): string {
  return `${streamId.toString(36)}-${seq.toString(36)}`;
}

/** What the client said about a response. */
export interface Reply {
  nonce: string;
  /** Present = NACK (X-ACK-4), even with an empty code and message. */
  error: ErrorDetail | undefined;
  /** SotW: the version_info of the request. */
  versionInfo: string;
  /** ms since the epoch, for the NACK record. */
  at: number;
}

/**
 * X-ACK-2/3/4, X-DELTA-1: pairs a reply with the pending response by nonce.
 * An empty or stale nonce pairs with nothing (X-ACK-6) and changes nothing.
 * Returns the NACK when the reply was one, for the operator to see.
 * `windowOpen`: the push window is open (X-STREAM-4): changes that came while
 * the response was in flight wait for the next delivery instead of going now.
 */
export function settle(
  st: TypeState,
  reply: Reply,
  windowOpen = false,
): { state: TypeState; nack: NackRecord | undefined } {
  const p = st.pending;
  if (reply.nonce === '' || !p || p.nonce !== reply.nonce) return { state: st, nack: undefined };
  let nack: NackRecord | undefined;
  let next: TypeState;
  if (reply.error) {
    nack = {
      nonce: reply.nonce,
      code: reply.error.code,
      message: reply.error.message,
      at: reply.at,
      versionInfo: reply.versionInfo,
    };
    next = recordNack(st, p, nack);
  } else next = commitAck(st, p);
  // Anything that changed while this response was in flight goes now (X-STREAM-3: the latest state) —
  // unless it is only changes and the push window is open (X-STREAM-4): then it waits, not dirty
  // but with work, for the next delivery. What a request asked for (force) always goes now.
  if (hasWork(next)) {
    const wait = windowOpen && next.force.size === 0 && !next.forceAll && !next.holding;
    if (next.dirty === wait) next = typeWith(next, { dirty: !wait });
  }
  return { state: next, nack };
}

/** X-ACK-3: the client accepted the pending response; commit what it now holds. */
function commitAck(st: TypeState, p: Pending): TypeState {
  let acked: HeldVersions;
  let rejected = st.rejected;
  if (p.resources || st.acked.empty) {
    // SotW carries the whole set, and a first Delta response is all the client holds: share the response's map.
    acked = HeldVersions.of(p.sent);
    if (rejected.size > 0 && [...rejected.keys()].some((n) => p.sent.get(n)))
      rejected = new Map([...rejected].filter(([n]) => !p.sent.get(n)));
  } else {
    acked = st.acked.with(p.sent);
    if (rejected.size > 0 && [...p.sent].some(([n, v]) => v !== null && rejected.has(n)))
      rejected = new Map([...rejected].filter(([n]) => p.sent.get(n) == null));
  }
  return typeWith(st, {
    acked,
    rejected,
    ackedVersion: p.resources ? p.version : st.ackedVersion,
    ackedResources: p.resources ?? st.ackedResources,
    pending: undefined,
    unacked: 0,
  });
}

/** X-ACK-4/5: the client rejected the pending response; it keeps its last good state, and what it refused is not resent unchanged. */
function recordNack(st: TypeState, p: Pending, nack: NackRecord): TypeState {
  const rejected = new Map(st.rejected);
  for (const [name, version] of p.sent) if (version !== null) rejected.set(name, version);
  return typeWith(st, { rejected, lastNack: nack, pending: undefined, unacked: 0 });
}

/** X-ACK-2: a response goes out under a fresh nonce and becomes the type's one pending response. */
export function withPending(
  st: TypeState,
  pending: Omit<Pending, 'nonce' | 'changeAt'>,
  nonce: string,
  sotw: boolean,
): TypeState {
  // Written out, not `{ ...pending, nonce }`: a spread that adds fields is V8's slow clone (stream-state.ts typeWith).
  const p: Pending = {
    nonce,
    version: pending.version,
    sent: pending.sent,
    resources: pending.resources,
    heartbeat: pending.heartbeat,
    changeAt: st.changeAt,
  };
  return typeWith(st, {
    pending: p,
    // X-ACK-5/8: SotW remembers the set version sent, so equal content is not sent again (a heartbeat is not new content).
    lastSentVersion: sotw && !pending.heartbeat ? pending.version : st.lastSentVersion,
    changeAt: pending.heartbeat ? st.changeAt : undefined,
    unacked: st.unacked + 1,
  });
}

/**
 * X-ACK-7: a reconnecting SotW client on a wildcard-only LDS/CDS subscription
 * that names the current set's version already holds that set: record it as
 * held (so warming sees it) and send nothing. undefined: the version differs.
 */
export function heldOnReconnect(
  st: TypeState,
  versionInfo: string,
  set: ResourceSet,
  ttlMs: number,
): TypeState | undefined {
  const current = new Map<string, XdsResource>();
  for (const name of coveredNames(st.sub, set)) {
    const res = set.byName.get(name);
    if (res) current.set(name, res);
  }
  if (setVersion(current.values(), ttlMs) !== versionInfo) return undefined;
  const held = new Map<string, string | null>([...current].map(([name, res]) => [name, wireVersion(res, ttlMs)]));
  return typeWith(st, {
    lastSentVersion: versionInfo,
    ackedVersion: versionInfo,
    ackedResources: current,
    acked: HeldVersions.of(held),
  });
}

/** X-DELTA-6: what a reconnecting Delta client announces it holds counts as ACKed; only differences are sent. */
export function adoptInitialVersions(st: TypeState, versions: ReadonlyMap<string, string>): TypeState {
  return typeWith(st, { acked: HeldVersions.of(versions), changed: 'all', dirty: true });
}
