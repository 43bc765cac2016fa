// What to send a stream for one type, SotW and Delta. Pure: reads the type
// state and the node's current resource set, returns a framed body (no nonce)
// and what it carries; the stream commits it to `pending` when written.
import { createHash } from 'node:crypto';
import type { ResourceSet, XdsResource } from './provider';
import type { Pending, TypeState } from './stream-state';
import { covers, coveredNames } from './subscription';
import { deltaBody, sotwBody, wireVersion, type DeltaItem, type SotwItem } from './wire';

export interface ComputeContext {
  set: ResourceSet;
  /** TTL carried on this response's resources (0: none; SotW without the wrapper: 0). */
  ttlMs: number;
  /** SotW: carry resources in the Resource wrapper (X-TTL-3). */
  sotwWrap: boolean;
  /** Keep resources the client holds but that are gone, until LDS/RDS settle (removals last, X-ORDER-1). */
  holdRemovals: boolean;
  /** X-WARM-2: false for a route that points at a cluster the client has not been sent yet. */
  routeAllowed?: (res: XdsResource) => boolean;
  /** Shared SotW bodies: the same set for the same kind of client is encoded once. */
  bodyCache: BodyCache;
}

export interface Computed {
  body: Uint8Array;
  pending: Omit<Pending, 'nonce' | 'changeAt'>;
  /** Resources carried (for metrics and tests). */
  count: number;
  /** Something was held back: keep the type dirty. */
  deferred: boolean;
}

/** X-ACK-1: hash over (name, version) pairs, so equal sets get equal versions on every hub and after restarts. */
export function setVersion(resources: Iterable<XdsResource>, ttlMs = 0): string {
  const h = createHash('sha256');
  for (const r of [...resources].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    h.update(r.name).update('\0').update(wireVersion(r, ttlMs)).update('\n');
  }
  return h.digest('hex').slice(0, 20);
}

/** A framed body and what it carries, shared by every stream that gets the same response. Never mutate. */
export interface SharedResponse {
  body: Uint8Array;
  sent: ReadonlyMap<string, string | null>;
  resources?: ReadonlyMap<string, XdsResource>;
}

/** LRU of shared responses, bounded by count and by bytes (initial syncs of big fleets are large). */
export class BodyCache {
  private readonly map = new Map<string, SharedResponse>();
  private bytes = 0;
  hits = 0;
  constructor(
    private readonly maxEntries = 256,
    private readonly maxBytes = 32 * 1024 * 1024,
  ) {}
  get(key: string, build: () => SharedResponse): SharedResponse {
    const hit = this.map.get(key);
    if (hit) {
      this.hits++;
      this.map.delete(key); // refresh its place in the LRU order
      this.map.set(key, hit);
      return hit;
    }
    const built = build();
    this.map.set(key, built);
    this.bytes += built.body.length;
    for (const [k, v] of this.map) {
      if (this.map.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.map.delete(k);
      this.bytes -= v.body.length;
    }
    return built;
  }
}

export function computeSotw(st: TypeState, ctx: ComputeContext): Computed | undefined {
  // SotW recomputes the whole set, so which names changed is not needed past this point.
  if (st.changed === 'all' || st.changed.size > 0) st.changed = new Set();
  const chosen = new Map<string, XdsResource>();
  let deferred = false;
  for (const name of coveredNames(st.sub, ctx.set)) {
    const res = ctx.set.byName.get(name);
    if (!res) continue; // X-SUB-5: remembered in the subscription, sent when it appears
    if (ctx.routeAllowed && !ctx.routeAllowed(res)) {
      const held = st.ackedResources.get(name);
      if (held) chosen.set(name, held);
      deferred = true;
      continue;
    }
    chosen.set(name, res);
  }
  if (ctx.holdRemovals && st.type.sotwFullState) {
    for (const [name, res] of st.ackedResources) {
      if (!chosen.has(name) && (st.sub.wildcard || st.sub.names.has(name))) {
        chosen.set(name, res);
        deferred = true;
      }
    }
  }
  st.holding = deferred;
  const version = setVersion(chosen.values(), ctx.ttlMs);
  if (!st.forceAll && version === st.lastSentVersion) return undefined; // X-ACK-8, and X-ACK-5 after a NACK
  const key = `s\0${st.wireTypeUrl}\0${ctx.sotwWrap ? ctx.ttlMs : 'plain'}\0${version}`;
  const shared = ctx.bodyCache.get(key, () => {
    const resources = [...chosen.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
    const items = resources.map((res): SotwItem => (ctx.sotwWrap ? { res, wrap: true, ttlMs: ctx.ttlMs, body: true } : { res, wrap: false }));
    return {
      body: sotwBody(version, st.wireTypeUrl, items),
      sent: new Map(resources.map((r) => [r.name, wireVersion(r, ctx.ttlMs)])),
      resources: chosen,
    };
  });
  return {
    body: shared.body,
    pending: { version, sent: shared.sent, resources: shared.resources, heartbeat: false },
    count: shared.sent.size,
    deferred,
  };
}

export function computeDelta(st: TypeState, ctx: ComputeContext): Computed | undefined {
  const candidates = new Set<string>(st.force);
  if (st.changed === 'all') {
    for (const n of coveredNames(st.sub, ctx.set)) candidates.add(n);
    for (const n of st.acked.keys()) candidates.add(n);
  } else for (const n of st.changed) candidates.add(n);

  const items: DeltaItem[] = [];
  const removed: string[] = [];
  const later = new Set<string>();
  for (const name of [...candidates].sort()) {
    const res = ctx.set.byName.get(name);
    const forced = st.force.has(name);
    if (res && covers(st.sub, ctx.set, name)) {
      if (ctx.routeAllowed && !ctx.routeAllowed(res)) {
        later.add(name);
        continue;
      }
      // X-DELTA-5: a (re)subscribed name is sent even at the version the client holds.
      const version = wireVersion(res, ctx.ttlMs);
      if (forced || (st.acked.get(name) !== version && st.rejected.get(name) !== version)) {
        items.push({ res, ttlMs: ctx.ttlMs, body: true });
      }
    } else if (st.acked.has(name) || forced) {
      // Gone, or no longer covered; or subscribed and never existed (X-DELTA-3).
      if (ctx.holdRemovals && st.acked.has(name)) later.add(name);
      else removed.push(name);
    }
  }
  st.changed = later;
  st.holding = later.size > 0;
  // A fresh set rather than deletes: a drained hash table keeps its capacity.
  st.force = st.force.size === 0 ? st.force : new Set([...st.force].filter((n) => later.has(n)));
  if (items.length === 0 && removed.length === 0) return undefined;
  const shared = sharedDelta(st.wireTypeUrl, ctx, items, removed);
  return {
    body: shared.body,
    pending: { version: '', sent: shared.sent, resources: undefined, heartbeat: false },
    count: items.length + removed.length,
    deferred: later.size > 0,
  };
}

/**
 * Streams that get the same resources get the same response: one change fanned
 * out to N clients, or N Envoys' identical initial syncs. The body and the
 * `sent` map are built once and shared (the map then becomes those clients'
 * held versions, see HeldVersions).
 */
function sharedDelta(typeUrl: string, ctx: ComputeContext, items: readonly DeltaItem[], removed: readonly string[]): SharedResponse {
  // NUL separators: names are free text, but never contain NUL.
  let key = `d\0${typeUrl}\0${ctx.ttlMs}`;
  for (const it of items) key += `\0${it.res.name}\0${it.res.version}`;
  key += `\0\0${removed.join('\0')}`;
  return ctx.bodyCache.get(key, () => {
    const sent = new Map<string, string | null>();
    for (const it of items) sent.set(it.res.name, wireVersion(it.res, ctx.ttlMs));
    for (const n of removed) sent.set(n, null);
    return { body: deltaBody('', typeUrl, items, removed), sent };
  });
}

/** X-TTL-2: the resources the client holds at their current version, without bodies. */
export function computeHeartbeat(st: TypeState, ctx: ComputeContext, variant: 'sotw' | 'delta'): Computed | undefined {
  if (variant === 'sotw') {
    if (!ctx.sotwWrap || st.ackedResources.size === 0 || st.lastSentVersion !== st.ackedVersion) return undefined;
    const resources = [...st.ackedResources.values()];
    const body = sotwBody(
      st.ackedVersion,
      st.wireTypeUrl,
      resources.map((res): SotwItem => ({ res, wrap: true, ttlMs: ctx.ttlMs, body: false })),
    );
    return {
      body,
      pending: { version: st.ackedVersion, sent: new Map(st.acked), resources: st.ackedResources, heartbeat: true },
      count: resources.length,
      deferred: false,
    };
  }
  const items: DeltaItem[] = [];
  for (const [name, version] of st.acked) {
    const res = ctx.set.byName.get(name);
    if (res && wireVersion(res, ctx.ttlMs) === version) items.push({ res, ttlMs: ctx.ttlMs, body: false });
  }
  if (items.length === 0) return undefined;
  return {
    body: deltaBody('', st.wireTypeUrl, items, []),
    pending: { version: '', sent: new Map(items.map((i) => [i.res.name, wireVersion(i.res, ctx.ttlMs)])), resources: undefined, heartbeat: true },
    count: items.length,
    deferred: false,
  };
}
