// Rule module: what goes into a response (X-RESP-1..5, X-DELTA-2/3, X-ACK-5/8,
// X-SUB-5; docs/xds-rules.md). Pure: (type state, the node's resources, what
// ordering and warming allow) → (new type state, the framed response or
// nothing). SotW carries the whole covered set; Delta only what differs from
// what the client holds, and removals.

import type { BodyCache, SharedResponse } from '../body-cache';
import type { ResourceSet, XdsResource } from '../provider';
import { type Pending, type TypeState, typeWith } from '../stream-state';
import { type DeltaItem, deltaBody, type SotwItem, sotwBody, wireVersion } from '../wire';
import { setVersion } from './ack';
import { coveredNames, covers } from './subscription';

export interface ResponseContext {
  set: ResourceSet;
  /** TTL carried on this response's resources (0: none; SotW without the wrapper: 0). */
  ttlMs: number;
  /** SotW: carry resources in the Resource wrapper (X-TTL-3). */
  sotwWrap: boolean;
  /** Keep resources the client holds but that are gone, until LDS/RDS settle (removals last, X-ORDER-1). */
  holdRemovals: boolean;
  /** X-WARM-2: false for a route that points at a cluster the client has not been sent yet. */
  routeAllowed?: ((res: XdsResource) => boolean) | undefined;
  /** Shared bodies: the same response for the same kind of client is framed once. */
  memo: BodyCache;
}

/** A response to send: its body (without the nonce) and what it carries. */
export interface Computed {
  body: Uint8Array;
  pending: Omit<Pending, 'nonce' | 'changeAt'>;
  /** Resources carried (for metrics and tests). */
  count: number;
}

export interface Decided {
  state: TypeState;
  response: Computed | undefined;
}

const NO_NAMES: ReadonlySet<string> = new Set();

/** X-RESP-2/3, X-ACK-8: the whole covered set, unless its version is the one last sent. */
export function computeSotw(st: TypeState, ctx: ResponseContext): Decided {
  const chosen = new Map<string, XdsResource>();
  let holding = false;
  for (const name of coveredNames(st.sub, ctx.set)) {
    const res = ctx.set.byName.get(name);
    if (!res) continue; // X-SUB-5: remembered in the subscription, sent when it appears
    if (ctx.routeAllowed && !ctx.routeAllowed(res)) {
      const held = st.ackedResources.get(name);
      if (held) chosen.set(name, held);
      holding = true;
      continue;
    }
    chosen.set(name, res);
  }
  if (ctx.holdRemovals && st.type.sotwFullState) {
    for (const [name, res] of st.ackedResources) {
      if (!chosen.has(name) && (st.sub.wildcard || st.sub.names.has(name))) {
        chosen.set(name, res);
        holding = true;
      }
    }
  }
  // SotW recomputes the whole set, so which names changed is not needed past this point.
  const state = typeWith(st, { changed: NO_NAMES, holding, forceAll: false, dirty: holding });
  const version = setVersion(chosen.values(), ctx.ttlMs);
  if (!st.forceAll && version === st.lastSentVersion) return { state, response: undefined }; // X-ACK-8, and X-ACK-5 after a NACK
  const key = `s\0${st.wireTypeUrl}\0${ctx.sotwWrap ? ctx.ttlMs : 'plain'}\0${version}`;
  const shared = ctx.memo.get(key, () => {
    const resources = [...chosen.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
    const items = resources.map(
      (res): SotwItem => (ctx.sotwWrap ? { res, wrap: true, ttlMs: ctx.ttlMs, body: true } : { res, wrap: false }),
    );
    return {
      body: sotwBody(version, st.wireTypeUrl, items),
      sent: new Map(resources.map((r) => [r.name, wireVersion(r, ctx.ttlMs)])),
      resources: chosen,
    };
  });
  return {
    state,
    response: {
      body: shared.body,
      pending: { version, sent: shared.sent, resources: shared.resources, heartbeat: false },
      count: shared.sent.size,
    },
  };
}

/** X-RESP-1, X-DELTA-2/3/5: the names whose version differs from what the client holds, and removals. */
export function computeDelta(st: TypeState, ctx: ResponseContext): Decided {
  const items: DeltaItem[] = [];
  const removed: string[] = [];
  // Made only when something is held back: the state keeps it until the next computation, on every stream.
  let later: Set<string> | undefined;
  for (const name of candidateNames(st, ctx.set)) {
    const res = ctx.set.byName.get(name);
    const forced = st.force.has(name);
    if (res && covers(st.sub, ctx.set, name)) {
      if (ctx.routeAllowed && !ctx.routeAllowed(res)) {
        (later ??= new Set()).add(name);
        continue;
      }
      // X-DELTA-5: a (re)subscribed name is sent even at the version the client holds.
      const version = wireVersion(res, ctx.ttlMs);
      if (forced || (st.acked.get(name) !== version && st.rejected.get(name) !== version)) {
        items.push({ res, ttlMs: ctx.ttlMs, body: true });
      }
    } else if (st.acked.has(name) || forced) {
      // Gone, or no longer covered; or subscribed and never existed (X-DELTA-3).
      if (ctx.holdRemovals && st.acked.has(name)) (later ??= new Set()).add(name);
      else removed.push(name);
    }
  }
  const holding = later !== undefined;
  const force = st.force.size === 0 ? st.force : later ? new Set([...st.force].filter((n) => later.has(n))) : NO_NAMES;
  const state = typeWith(st, { changed: later ?? NO_NAMES, holding, force, forceAll: false, dirty: holding });
  // X-DELTA-9: a wildcard subscriber is answered once even when there is nothing to send; Envoy
  // waits for that first answer (its initial_fetch_timeout, 15 s) before it counts as initialized.
  if (items.length === 0 && removed.length === 0 && (st.answered || !st.sub.wildcard || holding))
    return { state, response: undefined };
  const shared = sharedDelta(st.wireTypeUrl, ctx, items, removed);
  return {
    state: state.answered ? state : typeWith(state, { answered: true }),
    response: {
      body: shared.body,
      pending: { version: '', sent: shared.sent, resources: undefined, heartbeat: false },
      count: items.length + removed.length,
    },
  };
}

/**
 * The names a Delta computation looks at, sorted: forced ones, and what changed
 * (or everything covered and held). A change pushed to N streams reaches each
 * as the same set (markChanged keeps the delivery's set when the stream had
 * nothing pending), so that case is sorted once for all of them.
 */
function candidateNames(st: TypeState, set: ResourceSet): readonly string[] {
  if (st.changed !== 'all' && st.force.size === 0) return sortedOnce(st.changed);
  const candidates = new Set<string>(st.force);
  if (st.changed === 'all') {
    for (const n of coveredNames(st.sub, set)) candidates.add(n);
    for (const n of st.acked.keys()) candidates.add(n);
  } else for (const n of st.changed) candidates.add(n);
  return [...candidates].sort();
}

/** A memo: sets handed to the rules are never changed afterwards (stream-state.ts withNames). */
const sortedSets = new WeakMap<ReadonlySet<string>, readonly string[]>();
const NO_NAME_LIST: readonly string[] = Object.freeze([]);
function sortedOnce(names: ReadonlySet<string>): readonly string[] {
  if (names.size === 0) return NO_NAME_LIST;
  let sorted = sortedSets.get(names);
  if (!sorted) sortedSets.set(names, (sorted = [...names].sort()));
  return sorted;
}

/**
 * Streams that get the same resources get the same response: one change fanned
 * out to N clients, or N Envoys' identical initial syncs. The key names every
 * item and removal, so a hit is exactly what would have been built.
 */
function sharedDelta(
  typeUrl: string,
  ctx: ResponseContext,
  items: readonly DeltaItem[],
  removed: readonly string[],
): SharedResponse {
  const one = items.length === 1 && removed.length === 0 ? items[0]!.res : undefined;
  const last = ctx.memo.lastDelta;
  if (one && last && last.res === one && last.typeUrl === typeUrl && last.ttlMs === ctx.ttlMs) return last.shared;
  const shared = sharedDeltaByKey(typeUrl, ctx, items, removed);
  if (one) ctx.memo.lastDelta = { res: one, typeUrl, ttlMs: ctx.ttlMs, shared };
  return shared;
}

function sharedDeltaByKey(
  typeUrl: string,
  ctx: ResponseContext,
  items: readonly DeltaItem[],
  removed: readonly string[],
): SharedResponse {
  // NUL separators: names are free text, but never contain NUL.
  let key = `d\0${typeUrl}\0${ctx.ttlMs}`;
  for (const it of items) key += `\0${it.res.name}\0${it.res.version}`;
  key += `\0\0${removed.join('\0')}`;
  return ctx.memo.get(key, () => {
    const sent = new Map<string, string | null>();
    for (const it of items) sent.set(it.res.name, wireVersion(it.res, ctx.ttlMs));
    for (const n of removed) sent.set(n, null);
    return { body: deltaBody('', typeUrl, items, removed), sent };
  });
}
