// The stream's decisions, composed from the rule modules (docs/xds-rules.md).
// Every function here is pure: (stream state, input) → (new stream state, what
// to send or how to end). The stream (stream.ts) is the I/O shell around them:
// it decodes requests, asks these functions, and writes what they return.
import { HubError } from '../../../errors';
import type { BodyCache } from '../body-cache';
import type { NameInterner } from '../name-sets';
import type { ResourceSet, XdsNode } from '../provider';
import { Clusters, Endpoints, RESOURCE_TYPES, type ResourceType, Routes, resourceTypeOf } from '../resource-types';
import {
  isDeferred,
  isSendable,
  markChanged,
  type NackRecord,
  newTypeState,
  type StreamState,
  streamWith,
  type TypeState,
  typeWith,
  withType,
} from '../stream-state';
import type { V3TypeUrl } from '../type-urls';
import type { DeltaRequest, SotwRequest } from '../wire';
import { adoptInitialVersions, heldOnReconnect, nonceFor, settle, withPending } from './ack';
import { holdsRemovals, waitsForClusters } from './ordering';
import { type Computed, computeDelta, computeSotw } from './response';
import { applySotwNames, deltaSubscription, type SubscriptionDelta, sendWholeSet } from './subscription';
import { clientTtl, heartbeatFor, responseTtl, takesHeartbeats } from './ttl';
import { routeGate, warmEndpoints } from './warming';

/** What the rules may read besides the stream state. Nothing here does I/O. */
export interface RuleContext {
  /**
   * The node's current resources of a type (the provider's shared sets). The
   * node is the one the rules just identified: on a stream's first request the
   * stream itself does not know it yet (a reconnecting SotW client's first
   * request is answered from it, X-ACK-7).
   */
  resources(type: ResourceType, node: XdsNode): ResourceSet;
  /** Shared framed responses (a memo). */
  memo: BodyCache;
  /** Shares equal subscription name sets between streams (a memo). */
  names: NameInterner;
  /** ms since the epoch, as the stream read it. */
  now: number;
  /** The configured resource TTL (--resource-ttl). */
  resourceTtlMs: number;
  /** The types that carry it (--resource-ttl-types; empty = all). */
  resourceTtlTypes?: readonly ResourceType['short'][];
  /** The push pipeline's window is open (X-STREAM-4); absent: closed. */
  windowOpen?: boolean;
  /**
   * During a delivery: the nonce every stream that gets this response body
   * shares (step-memo.ts; X-STREAM-2 holds, as a stream gets a delivery's
   * response once). Absent: the stream's own `<id>-<sequence>`.
   */
  nonce?: (body: Uint8Array) => string;
}

/** A response to write, under its nonce. */
export interface Outgoing {
  type: ResourceType;
  body: Uint8Array;
  nonce: string;
  count: number;
  heartbeat: boolean;
  /** When the oldest change it carries reached the hub (heartbeats: undefined). */
  changeAt: number | undefined;
}

/** What one request did. */
export interface RequestOutcome {
  state: StreamState;
  /** End the stream with this error (bad request). */
  end?: HubError;
  /** The node was just identified (X-STREAM-1). */
  opened?: XdsNode;
  /** A type the hub does not serve, asked on ADS: ignored. */
  ignored?: string;
  nack?: { type: ResourceType; record: NackRecord };
  /** The subscription moved: the push index must follow. */
  subscription?: { typeUrl: V3TypeUrl; delta: SubscriptionDelta; names: ReadonlySet<string>; wildcard: boolean };
  /** X-STREAM-4: the type's changes wait for the next delivery; when the oldest of them reached the hub. */
  deferred?: number;
}

/** X-STREAM-1: identity comes from the first request; later ones may omit node. */
function identify(
  s: StreamState,
  node: XdsNode | undefined,
  ctx: RuleContext,
): { state: StreamState; end?: HubError; opened?: XdsNode } {
  if (s.node) return { state: s };
  if (!node || node.id === '')
    return {
      state: s,
      end: new HubError('INVALID_ARGUMENT', 'node.id: the first request of a stream must identify the node', {
        field: 'node.id',
      }),
    };
  const { ttlMs, sotwWrap } = clientTtl(s.api, node, ctx.resourceTtlMs);
  // How this client reaches the hub: resources that point at others must name a config source it has.
  const configSource = s.transport === 'ads' ? 'ads' : s.variant === 'delta' ? 'delta-grpc' : 'grpc';
  // Once per stream, so the spread's cost does not matter here; it keeps every field XdsNode has or will have.
  return { state: streamWith(s, { node: { ...node, configSource }, ttlMs, sotwWrap }), opened: node };
}

/** The type a request is for; per-type streams serve one type and may leave type_url empty. */
function typeOf(
  s: StreamState,
  typeUrl: string,
): { type?: ResourceType; wire: string; end?: HubError; ignored?: string } {
  const fixed = s.transport === 'ads' ? undefined : RESOURCE_TYPES.find((t) => t.short === s.transport)!;
  const wire = typeUrl === '' && fixed ? (s.api === 'v3' ? fixed.typeUrl : fixed.v2TypeUrl) : typeUrl;
  const type = resourceTypeOf(wire);
  if (type && (!fixed || type === fixed)) return { type, wire };
  if (fixed || wire === '')
    return {
      wire,
      end: new HubError('INVALID_ARGUMENT', `type_url: "${wire}" is not served on this ${s.transport} stream`, {
        field: 'type_url',
      }),
    };
  // ADS may carry types the hub does not serve (SDS, LEDS...); answering nothing is what the client can live with.
  return { wire, ignored: wire };
}

/** The request's common part: who, which type, and its ACK/NACK. */
function begin(s: StreamState, node: XdsNode | undefined, typeUrl: string, ctx: RuleContext) {
  const who = identify(s, node, ctx);
  if (who.end) return { out: { state: s, end: who.end } as RequestOutcome };
  const t = typeOf(who.state, typeUrl);
  if (!t.type)
    return { out: { state: who.state, end: t.end, ignored: t.ignored, opened: who.opened } as RequestOutcome };
  const st = who.state.types.get(t.type.typeUrl) ?? newTypeState(t.type, t.wire);
  return { state: who.state, st, opened: who.opened };
}

export function onSotwRequest(s: StreamState, req: SotwRequest, ctx: RuleContext): RequestOutcome {
  const b = begin(s, req.node, req.typeUrl, ctx);
  if (b.out) return b.out;
  const first = !b.st.started;
  const settled = settle(
    b.st.started ? b.st : typeWith(b.st, { started: true }),
    { nonce: req.responseNonce, error: req.errorDetail, versionInfo: req.versionInfo, at: ctx.now },
    ctx.windowOpen,
  );
  const { sub, delta } = applySotwNames(settled.state.sub, b.st.type, req.resourceNames, ctx.names);
  let st: TypeState = sub === settled.state.sub ? settled.state : typeWith(settled.state, { sub });
  const wildcardOnly = sub.wildcard && sub.names.size === 0;
  const reconnect = first && wildcardOnly && req.versionInfo !== '' && req.responseNonce === '';
  // The node begin() just identified: on a first request the stream has none of its own yet.
  const node = b.state.node;
  const ttlMs = responseTtl(b.state, st.type, ctx.resourceTtlTypes);
  const held = reconnect && node ? heldOnReconnect(st, req.versionInfo, ctx.resources(st.type, node), ttlMs) : null;
  if (held)
    st = held; // X-ACK-7: it already holds the current set; nothing to resend
  else if (first || delta.changed) st = sendWholeSet(st); // X-SUB-2
  return finish(b.state, st, first, delta, settled.nack, b.opened, ctx.now);
}

export function onDeltaRequest(s: StreamState, req: DeltaRequest, ctx: RuleContext): RequestOutcome {
  const b = begin(s, req.node, req.typeUrl, ctx);
  if (b.out) return b.out;
  const first = !b.st.started;
  let st: TypeState = b.st.started ? b.st : typeWith(b.st, { started: true });
  if (first && req.initialVersions.size > 0) st = adoptInitialVersions(st, req.initialVersions); // X-DELTA-6
  const settled = settle(
    st,
    { nonce: req.responseNonce, error: req.errorDetail, versionInfo: '', at: ctx.now },
    ctx.windowOpen,
  );
  // X-DELTA-4: subscription changes apply whatever the nonce.
  const { state, delta } = deltaSubscription(
    settled.state,
    req.subscribe,
    req.unsubscribe,
    first,
    req.initialVersions,
    ctx.names,
  );
  return finish(b.state, state, first, delta, settled.nack, b.opened, ctx.now);
}

function finish(
  s: StreamState,
  st: TypeState,
  first: boolean,
  delta: SubscriptionDelta,
  nack: NackRecord | undefined,
  opened: XdsNode | undefined,
  now: number,
): RequestOutcome {
  const out: RequestOutcome = { state: withType(s, st) };
  if (isDeferred(st)) out.deferred = st.changeAt ?? now;
  if (opened) out.opened = opened;
  if (nack) out.nack = { type: st.type, record: nack };
  if (first || delta.changed)
    out.subscription = { typeUrl: st.type.typeUrl, delta, names: st.sub.names, wildcard: st.sub.wildcard };
  return out;
}

/** The provider reports changed names of a type this stream subscribes to. */
export function resourcesChanged(s: StreamState, typeUrl: string, names: ReadonlySet<string>, at: number): StreamState {
  const st = s.types.get(typeUrl as V3TypeUrl);
  return st ? withType(s, markChanged(st, names, at)) : s;
}

/** X-STREAM-4: the delivery has come; changes that waited for it are due. */
export function resumeDeferred(s: StreamState): StreamState {
  let state = s;
  for (const st of s.types.values()) if (isDeferred(st)) state = withType(state, typeWith(st, { dirty: true }));
  return state;
}

/**
 * The next response to write, if any: types in make-before-break order
 * (X-ORDER-1), at most one un-ACKed response per type, LDS/RDS held behind
 * CDS/EDS in flight (X-ORDER-2). Types that need nothing are settled on the way.
 * The caller writes the response and asks again until nothing is left.
 */
export function nextResponse(s: StreamState, ctx: RuleContext): { state: StreamState; response?: Outgoing } {
  const node = s.node;
  if (!node) return { state: s };
  let state = s;
  for (const type of RESOURCE_TYPES) {
    const st = state.types.get(type.typeUrl);
    if (!st || !isSendable(st)) continue;
    if (waitsForClusters(state, type)) continue;
    const set = ctx.resources(type, node);
    // Closures only for the types that need them: this runs once per response per stream.
    const rctx = {
      set,
      ttlMs: responseTtl(state, type, ctx.resourceTtlTypes),
      sotwWrap: state.sotwWrap,
      holdRemovals: holdsRemovals(state, type),
      memo: ctx.memo,
      routeAllowed: type === Routes ? routeGate(state, type, () => ctx.resources(Clusters, node)) : undefined,
    };
    const decided = state.variant === 'sotw' ? computeSotw(st, rctx) : computeDelta(st, rctx);
    if (!decided.response) {
      state = withType(state, decided.state);
      continue;
    }
    const sent = send(state, decided.state, decided.response, false, ctx.nonce?.(decided.response.body));
    // X-WARM-1: the clusters just sent bring their assignments again.
    if (type === Clusters)
      sent.state = warmEndpoints(sent.state, st, decided.response.pending.sent, () => ctx.resources(Endpoints, node));
    return sent;
  }
  return { state };
}

/**
 * X-TTL-2: the next heartbeat to write, for a type with nothing in flight or
 * waiting. The caller writes it and asks again (each type gets at most one).
 */
export function nextHeartbeat(s: StreamState, ctx: RuleContext): { state: StreamState; response?: Outgoing } {
  const node = s.node;
  if (!node || !takesHeartbeats(s)) return { state: s };
  for (const type of RESOURCE_TYPES) {
    const st = s.types.get(type.typeUrl);
    const out = st && heartbeatFor(s, st, ctx.resources(type, node), ctx.resourceTtlTypes);
    if (out) return send(s, st, out, true);
  }
  return { state: s };
}

function send(
  s: StreamState,
  st: TypeState,
  out: Computed,
  isHeartbeat: boolean,
  shared?: string,
): { state: StreamState; response: Outgoing } {
  const seq = shared === undefined ? s.nonceSeq + 1 : s.nonceSeq;
  const nonce = shared ?? nonceFor(s.id, seq);
  const next = withPending(st, out.pending, nonce, s.variant === 'sotw');
  return {
    // One copy of the stream state for both changes (withType would make one of its own).
    state: streamWith(s, { types: s.types.with(next.type.typeUrl, next), nonceSeq: seq }),
    response: {
      type: st.type,
      body: out.body,
      nonce,
      count: out.count,
      heartbeat: isHeartbeat,
      changeAt: isHeartbeat ? undefined : st.changeAt,
    },
  };
}
