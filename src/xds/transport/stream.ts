// One xDS stream (ADS or per-type, SotW or Delta, v3 or v2): reads requests,
// tracks per-type state, and writes at most one un-ACKed response per type.
// Changes that arrive meanwhile only mark the type dirty, so a slow client gets
// the latest state when it answers or drains, never a queue (invariant 7).
import { status as GrpcStatus, type ServerDuplexStream } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { ResourceSet, XdsNode, XdsResource } from './provider';
import { RESOURCE_TYPES, resourceTypeOf, Clusters, Endpoints, Listeners, Routes, type ResourceType } from './resource-types';
import { computeDelta, computeHeartbeat, computeSotw, setVersion, type BodyCache, type ComputeContext, type Computed } from './responses';
import { commitAck, markChanged, newTypeState, recordNack, type TypeState } from './stream-state';
import { applyDeltaChange, applySotwNames, coveredNames, covers, type SubscriptionDelta } from './subscription';
import type { NameInterner } from './name-sets';
import type { V3TypeUrl } from './type-urls';
import { routeClusters } from './warming';
import { decodeDeltaRequest, decodeSotwRequest, wireVersion, type ApiVersion, type DeltaRequest, type SotwRequest, type XdsResponse } from './wire';
import type { XdsMetrics } from './metrics';
import type { SyncGate, SyncTicket } from './sync-gate';

export type Variant = 'sotw' | 'delta';
/** 'ads', or the single type a per-type stream serves. */
export type Transport = 'ads' | ResourceType['short'];

export const FEATURE_TTL = 'xds.config.supports-resource-ttl';
export const FEATURE_RESOURCE_IN_SOTW = 'xds.config.resource-in-sotw';

export interface StreamDeps {
  get(typeUrl: string, node: XdsNode): ResourceSet;
  resourceTtlMs: number;
  logger: Logger;
  metrics: XdsMetrics;
  bodyCache: BodyCache;
  /** Keeps the name → streams index in step with subscriptions. */
  subscriptionChanged(stream: XdsStream, typeUrl: V3TypeUrl, delta: SubscriptionDelta, names: ReadonlySet<string>, wildcard: boolean): void;
  /** Shares equal subscription name sets between streams. */
  names: NameInterner;
  closed(stream: XdsStream): void;
  /** Bounds how many streams have a large response (initial sync) in flight; none: unbounded. */
  syncGate?: SyncGate;
  /** A large (gated) response of `bytes` was taken by HTTP/2: its copies are freed. */
  largeWritten?(bytes: number): void;
}

export interface StreamOptions {
  id: number;
  variant: Variant;
  transport: Transport;
  api: ApiVersion;
}

export class XdsStream {
  readonly id: number;
  readonly variant: Variant;
  readonly transport: Transport;
  readonly api: ApiVersion;
  readonly openedAt = new Date();
  node: XdsNode | undefined;
  readonly types = new Map<V3TypeUrl, TypeState>();
  /** Instrumentation: responses written, the most un-ACKed responses of one type ever outstanding (must be ≤ 1), writes that hit backpressure. */
  readonly stats = { responses: 0, heartbeats: 0, maxUnackedPerType: 0, blockedWrites: 0 };
  private blocked = false;
  private closed = false;
  private nonceSeq = 0;
  /** Sync gate: slots this stream waits for or holds (one per large write not yet handed to the socket). */
  private readonly tickets = new Set<SyncTicket>();

  constructor(
    private readonly call: ServerDuplexStream<Buffer, XdsResponse>,
    private readonly deps: StreamDeps,
    opts: StreamOptions,
  ) {
    this.id = opts.id;
    this.variant = opts.variant;
    this.transport = opts.transport;
    this.api = opts.api;
    call.on('data', (buf: Buffer) => this.onData(buf));
    call.on('end', () => this.close(undefined));
    call.on('cancelled', () => this.close(undefined));
    call.on('error', (err) => {
      this.log.debug({ err }, 'stream error');
      this.close(undefined);
    });
  }

  /**
   * The stream's log context. Not a pino child per stream: a child costs about
   * a KiB, and streams log only decisions (open, NACK, bad request, slow).
   */
  private get log(): Pick<Logger, 'debug' | 'info' | 'warn'> {
    const fields = { stream: this.id, variant: this.variant, transport: this.transport, api: this.api, node: this.node?.id };
    const base = this.deps.logger;
    return {
      debug: (obj: object, msg?: string) => base.debug({ ...fields, ...obj }, msg),
      info: (obj: object, msg?: string) => base.info({ ...fields, ...obj }, msg),
      warn: (obj: object, msg?: string) => base.warn({ ...fields, ...obj }, msg),
    } as Pick<Logger, 'debug' | 'info' | 'warn'>;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** TTL for this client's resources: only v3 clients that announce the feature (X-TTL-1). */
  get ttlMs(): number {
    if (this.api !== 'v3' || !this.node?.clientFeatures.includes(FEATURE_TTL)) return 0;
    return this.deps.resourceTtlMs;
  }

  private get sotwWrap(): boolean {
    return this.ttlMs > 0 && !!this.node?.clientFeatures.includes(FEATURE_RESOURCE_IN_SOTW);
  }

  /** Ends the stream with a status (UNAVAILABLE at shutdown), or quietly when the client went away. */
  close(status: { code: GrpcStatus; details: string } | undefined): void {
    if (this.closed) return;
    this.closed = true;
    if (status) this.call.emit('error', { code: status.code, details: status.details });
    else if (!this.call.writableEnded) this.call.end();
    for (const t of this.tickets) t.release();
    this.tickets.clear();
    this.deps.closed(this);
  }

  private fail(code: GrpcStatus, details: string): void {
    this.log.warn({ details }, 'ending stream: bad request');
    this.close({ code, details });
  }

  private onData(buf: Buffer): void {
    if (this.closed) return;
    try {
      if (this.variant === 'sotw') this.onSotw(decodeSotwRequest(this.api, buf));
      else this.onDelta(decodeDeltaRequest(this.api, buf));
    } catch (err) {
      this.fail(GrpcStatus.INVALID_ARGUMENT, `${this.variant === 'sotw' ? 'DiscoveryRequest' : 'DeltaDiscoveryRequest'}: cannot decode: ${(err as Error).message}`);
      return;
    }
    this.flush();
  }

  /** X-STREAM-1: identity comes from the first request; later ones may omit node. */
  private identify(node: XdsNode | undefined): boolean {
    if (this.node) return true;
    if (!node || node.id === '') {
      this.fail(GrpcStatus.INVALID_ARGUMENT, 'node.id: the first request of a stream must identify the node');
      return false;
    }
    this.node = { ...node, configSource: this.transport === 'ads' ? 'ads' : this.variant === 'delta' ? 'delta-grpc' : 'grpc' };
    this.log.info({ node: node.id, cluster: node.cluster, userAgent: node.userAgent }, 'xds stream opened');
    return true;
  }

  private typeState(typeUrl: string): TypeState | undefined {
    const fixed = this.transport === 'ads' ? undefined : RESOURCE_TYPES.find((t) => t.short === this.transport)!;
    const url = typeUrl === '' && fixed ? (this.api === 'v3' ? fixed.typeUrl : fixed.v2TypeUrl) : typeUrl;
    const type = resourceTypeOf(url);
    if (!type || (fixed && type !== fixed)) {
      if (fixed || url === '') {
        this.fail(GrpcStatus.INVALID_ARGUMENT, `type_url: "${url}" is not served on this ${this.transport} stream`);
      } else {
        // ADS may carry types the hub does not serve (SDS, LEDS...); answering nothing is what the client can live with.
        this.log.debug({ typeUrl: url }, 'ignoring request for a type the hub does not serve');
      }
      return undefined;
    }
    let st = this.types.get(type.typeUrl);
    if (!st) this.types.set(type.typeUrl, (st = newTypeState(type, url)));
    return st;
  }

  /** Pairs a response nonce with the pending response (X-ACK-2/3/4, X-DELTA-1). Stale nonces pair with nothing (X-ACK-6). */
  private settle(st: TypeState, nonce: string, error: SotwRequest['errorDetail'], versionInfo: string): void {
    if (nonce === '' || !st.pending || st.pending.nonce !== nonce) return;
    if (error) {
      recordNack(st, { nonce, code: error.code, message: error.message, at: new Date(), versionInfo });
      this.deps.metrics.nacks.inc({ type: st.type.short });
      this.log.warn({ node: this.node?.id, type: st.type.short, code: error.code, message: error.message }, 'NACK: client keeps its last accepted state');
    } else commitAck(st);
    // Anything that changed while this response was in flight goes now.
    if (st.changed === 'all' || st.changed.size > 0 || st.force.size > 0 || st.forceAll || st.holding) st.dirty = true;
  }

  private onSotw(req: SotwRequest): void {
    if (!this.identify(req.node)) return;
    const st = this.typeState(req.typeUrl);
    if (!st) return;
    const first = !st.started;
    st.started = true;
    this.settle(st, req.responseNonce, req.errorDetail, req.versionInfo);
    const delta = applySotwNames(st.sub, st.type, req.resourceNames, this.deps.names);
    const wildcardOnly = st.sub.wildcard && st.sub.names.size === 0;
    if (first && wildcardOnly && req.versionInfo !== '' && req.responseNonce === '' && this.holdsCurrent(st, req.versionInfo)) {
      // X-ACK-7: a reconnecting wildcard LDS/CDS client already holds the current set; nothing to resend.
    } else if (first || delta.changed) {
      st.forceAll = true; // X-SUB-2: the new set goes out even if nothing in it changed
      markChanged(st, 'all');
    }
    if (first || delta.changed) this.deps.subscriptionChanged(this, st.type.typeUrl, delta, st.sub.names, st.sub.wildcard);
  }

  /** X-ACK-7: if `versionInfo` is the current set's version, record that set as held (so warming checks see it). */
  private holdsCurrent(st: TypeState, versionInfo: string): boolean {
    const set = this.deps.get(st.type.typeUrl, this.node!);
    const ttlMs = this.sotwWrap ? this.ttlMs : 0;
    const current = new Map<string, XdsResource>();
    for (const name of coveredNames(st.sub, set)) {
      const res = set.byName.get(name);
      if (res) current.set(name, res);
    }
    if (setVersion(current.values(), ttlMs) !== versionInfo) return false;
    st.lastSentVersion = st.ackedVersion = versionInfo;
    st.ackedResources = current;
    st.acked.adopt(new Map([...current].map(([name, res]) => [name, wireVersion(res, ttlMs)])));
    return true;
  }

  private onDelta(req: DeltaRequest): void {
    if (!this.identify(req.node)) return;
    const st = this.typeState(req.typeUrl);
    if (!st) return;
    const first = !st.started;
    st.started = true;
    if (first && req.initialVersions.size > 0) {
      // X-DELTA-6: what the client already holds counts as ACKed; only differences are sent.
      st.acked.adopt(req.initialVersions);
      markChanged(st, 'all');
    }
    this.settle(st, req.responseNonce, req.errorDetail, '');
    // X-DELTA-4: subscription changes apply whatever the nonce.
    const delta = applyDeltaChange(st.sub, st.type, req.subscribe, req.unsubscribe, first, this.deps.names);
    for (const n of req.subscribe) {
      if (n === '*') continue;
      if (!(first && req.initialVersions.has(n))) st.force.add(n); // X-DELTA-5
      markChanged(st, [n]);
    }
    const dropped = new Set(delta.removed);
    for (const n of req.unsubscribe) {
      if (n === '*') continue;
      if (st.sub.wildcard) {
        st.force.add(n); // X-DELTA-8: say whether it stays under `*` or goes
        markChanged(st, [n]);
      } else if (dropped.has(n)) {
        st.acked.delete(n); // the client dropped it; no answer
        st.rejected.delete(n);
      } // else: never subscribed by name, ignored (X-DELTA-8); if `*` went, the markChanged below settles it
    }
    if (delta.wildcardChanged || (first && st.sub.wildcard)) markChanged(st, 'all');
    if (first || delta.changed) this.deps.subscriptionChanged(this, st.type.typeUrl, delta, st.sub.names, st.sub.wildcard);
  }

  /** The push pipeline reports changed names of a type this stream subscribes to. */
  resourcesChanged(typeUrl: string, names: ReadonlySet<string>, at: number): void {
    const st = this.types.get(typeUrl as V3TypeUrl);
    if (st) markChanged(st, names, at);
  }

  private context(st: TypeState, set: ResourceSet): ComputeContext {
    const ads = this.transport === 'ads';
    const busy = (t: ResourceType): boolean => {
      const s = this.types.get(t.typeUrl);
      return !!s && (s.dirty || s.pending !== undefined);
    };
    const ctx: ComputeContext = {
      set,
      ttlMs: this.variant === 'sotw' && !this.sotwWrap ? 0 : this.ttlMs,
      sotwWrap: this.sotwWrap,
      holdRemovals: ads && !st.type.waitsForClusters && (busy(Listeners) || busy(Routes)),
      bodyCache: this.deps.bodyCache,
    };
    const cds = this.types.get(Clusters.typeUrl);
    if (ads && st.type === Routes && cds?.sub.wildcard && this.node) {
      // X-WARM-2: a route may only name clusters the client holds, among those its CDS subscription will bring.
      const clusters = this.deps.get(Clusters.typeUrl, this.node);
      ctx.routeAllowed = (res) => routeClusters(res).every((c) => !covers(cds.sub, clusters, c) || cds.acked.has(c));
    }
    return ctx;
  }

  /** Writes what each dirty type needs, in make-before-break order, at most one un-ACKed response per type. */
  flush(): void {
    if (this.closed || this.blocked || !this.node) return;
    const ads = this.transport === 'ads';
    for (let pass = 0; pass < 4; pass++) {
      let progressed = false;
      for (const type of RESOURCE_TYPES) {
        const st = this.types.get(type.typeUrl);
        if (!st || !st.dirty || st.pending) continue;
        // X-ORDER-2: LDS/RDS wait while CDS/EDS pushes to this client are un-ACKed.
        if (ads && type.waitsForClusters && this.clusterPushesInFlight()) continue;
        const set = this.deps.get(type.typeUrl, this.node);
        const ctx = this.context(st, set);
        const out = this.variant === 'sotw' ? computeSotw(st, ctx) : computeDelta(st, ctx);
        st.forceAll = false;
        st.dirty = st.holding;
        if (!st.holding) progressed = true;
        if (!out) continue;
        progressed = true;
        const gate = this.deps.syncGate;
        if (gate && out.body.length >= gate.largeBytes) {
          // Wait for a slot holding the computed response (its body is shared, not a copy); nothing else is written meanwhile.
          this.blocked = true;
          const ticket = gate.enter(() => {
            this.blocked = false;
            if (this.closed) return ticket.release();
            // The slot is free again once grpc-js has framed the message and HTTP/2 has taken it (not at the ACK, which waits on the client).
            this.sendComputed(st, out, () => {
              ticket.release();
              this.tickets.delete(ticket);
              this.deps.largeWritten?.(out.body.length);
            });
            this.flush();
          });
          this.tickets.add(ticket);
          return;
        }
        this.sendComputed(st, out);
        if (this.blocked) return;
      }
      if (!progressed) break;
    }
  }

  private sendComputed(st: TypeState, out: Computed, written?: () => void): void {
    this.send(st, out, false, written);
    if (st.type === Clusters) this.warmEndpoints(st, out);
  }

  private clusterPushesInFlight(): boolean {
    return [Clusters, Endpoints].some((t) => this.types.get(t.typeUrl)?.pending !== undefined);
  }

  /** X-WARM-1: a sent or changed Cluster gets its ClusterLoadAssignment again, even if unchanged. */
  private warmEndpoints(cds: TypeState, out: Computed): void {
    const eds = this.types.get(Endpoints.typeUrl);
    if (!eds || !this.node) return;
    const set = this.deps.get(Endpoints.typeUrl, this.node);
    for (const [name, version] of out.pending.sent) {
      if (version === null || cds.acked.get(name) === version || !covers(eds.sub, set, name)) continue;
      if (this.variant === 'sotw') eds.forceAll = true;
      else eds.force.add(name);
      markChanged(eds, [name]);
    }
  }

  private send(st: TypeState, out: Computed, heartbeat: boolean, written?: () => void): void {
    const nonce = `${this.id.toString(36)}-${(++this.nonceSeq).toString(36)}`;
    st.pending = { ...out.pending, nonce, changeAt: st.changeAt };
    if (!heartbeat && this.variant === 'sotw') st.lastSentVersion = out.pending.version;
    // Joined with the nonce by the serializer, in a reused buffer (wire.ts serializeResponse).
    const msg = { body: out.body, nonce };
    const ok = written ? this.call.write(msg, written) : this.call.write(msg);
    this.stats.responses++;
    st.unacked++;
    this.stats.maxUnackedPerType = Math.max(this.stats.maxUnackedPerType, st.unacked);
    const labels = { type: st.type.short, variant: this.variant };
    if (heartbeat) {
      this.stats.heartbeats++;
      this.deps.metrics.heartbeats.inc(labels);
    } else {
      this.deps.metrics.pushes.inc(labels);
      if (st.changeAt !== undefined) this.deps.metrics.pushLatency.observe(labels, (Date.now() - st.changeAt) / 1000);
      st.changeAt = undefined;
    }
    if (!ok) {
      // Slow consumer: stop writing; dirty types are recomputed from the latest state on drain.
      this.blocked = true;
      this.stats.blockedWrites++;
      this.log.debug({ node: this.node?.id }, 'slow consumer: waiting for drain');
      this.call.once('drain', () => {
        this.blocked = false;
        this.flush();
      });
    }
  }

  /** X-TTL-2: refresh the TTL of what the client holds, for types with nothing in flight or waiting. */
  heartbeat(): void {
    if (this.closed || this.blocked || !this.node || this.ttlMs === 0) return;
    if (this.variant === 'sotw' && !this.sotwWrap) return;
    for (const type of RESOURCE_TYPES) {
      const st = this.types.get(type.typeUrl);
      if (!st || st.pending || st.dirty) continue;
      const out = computeHeartbeat(st, this.context(st, this.deps.get(type.typeUrl, this.node)), this.variant);
      if (out) this.send(st, out, true);
      if (this.blocked) return;
    }
  }
}
