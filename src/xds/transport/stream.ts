// One xDS stream (ADS or per-type, SotW or Delta, v3 or v2): the I/O shell
// around the protocol rules (rules/decide.ts). It decodes a request, asks the
// rules what it means, and writes what they say to send — at most one un-ACKed
// response per type. Changes that arrive meanwhile only mark the type dirty, so
// a slow client gets the latest state when it answers or drains, never a queue
// (invariant 7, docs/architecture.md). Logging, metrics, the sync gate and backpressure live here;
// every protocol decision lives in rules/.
import type { ServerDuplexStream } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { grpcStatusOf, HubError } from '../../errors';
import type { BodyCache } from './body-cache';
import { reportAnswers, reportClosed, reportSent, type XdsCallbacks } from './callbacks';
import { tooManyNames } from './limits';
import type { XdsMetrics } from './metrics';
import type { NameInterner } from './name-sets';
import type { StreamPacing } from './pacing';
import type { ResourceSet, XdsNode } from './provider';
import { type ResourceType, resourceTypeOf } from './resource-types';
import {
  nextHeartbeat,
  nextResponse,
  type Outgoing,
  onDeltaRequest,
  onSotwRequest,
  type RequestOutcome,
  type RuleContext,
  resourcesChanged,
  resumeDeferred,
} from './rules/decide';
import type { SubscriptionDelta } from './rules/subscription';
import { type AckStep, isDeliveryNonce, profileOf, type StepMemo } from './step-memo';
import {
  isDeferred,
  isSendable,
  newStreamState,
  type StreamState,
  type Transport,
  type TypeState,
  type Variant,
} from './stream-state';
import type { SyncGate, SyncTicket } from './sync-gate';
import type { TypeStates } from './type-states';
import type { V3TypeUrl } from './type-urls';
import {
  type ApiVersion,
  type DeltaRequest,
  decodeDeltaRequest,
  decodeSotwRequest,
  type SotwRequest,
  serializeResponse,
  type XdsResponse,
} from './wire';

export type { Transport, Variant } from './stream-state';

/** A change push waits at the sync gate only from this many times its `largeBytes` (as large as a whole initial sync). */
export const CHANGE_GATE_FACTOR = 16;

/**
 * The one rule context every stream refills right before each rule call. Safe
 * because a rule call runs to completion and keeps nothing of its context, and
 * nothing between the refill and the call re-enters a stream. The rules name
 * the node they want resources for: on a stream's first request only they know it.
 */
const scratch: RuleContext & { get: StreamDeps['get'] } = {
  get: () => {
    throw new Error('rule context used outside a stream call');
  },
  resources: (t: ResourceType, node: XdsNode) => scratch.get(t.typeUrl, node),
  memo: undefined as unknown as BodyCache,
  names: undefined as unknown as NameInterner,
  now: 0,
  resourceTtlMs: 0,
  resourceTtlTypes: undefined,
  windowOpen: undefined,
  nonce: undefined,
};

export interface StreamDeps {
  get(typeUrl: string, node: XdsNode): ResourceSet;
  resourceTtlMs: number;
  /** Types that carry the TTL (empty: all). */
  resourceTtlTypes?: readonly ResourceType['short'][];
  logger: Logger;
  metrics: XdsMetrics;
  bodyCache: BodyCache;
  /** The server's side of its streams: the name → streams index, shared name sets, the end of a stream. */
  registry: StreamRegistry;
  /** When pushes go out (pacing.ts); absent: at once, ungated. */
  pacing?: StreamPacing;
  /** Admission and observers (callbacks.ts: ACLs, the history, rollouts). */
  callbacks?: XdsCallbacks;
  /** Resource names one request may name or subscribe to. */
  maxResourceNames?: number;
  /** Clock (ms since the epoch); Date.now by default. */
  now?(): number;
  /** One step per class of streams in the same state (step-memo.ts); absent: every stream runs the rules. */
  steps?: StepMemo;
}

export interface StreamRegistry {
  /** Keeps the name → streams index in step with subscriptions. */
  subscriptionChanged(
    stream: XdsStream,
    typeUrl: V3TypeUrl,
    delta: SubscriptionDelta,
    names: ReadonlySet<string>,
    wildcard: boolean,
  ): void;
  /** Shares equal subscription name sets between streams. */
  names: NameInterner;
  closed(stream: XdsStream): void;
}

export interface StreamOptions {
  id: number;
  variant: Variant;
  transport: Transport;
  api: ApiVersion;
  /** The call's credential (metadata), handed to the provider on the node. */
  credential?: string;
}

/** Metric labels per (type, variant), made once: every response written takes them. */
const LABELS = { sotw: new Map<ResourceType, MetricLabels>(), delta: new Map<ResourceType, MetricLabels>() };
type MetricLabels = Readonly<{ type: string; variant: Variant }>;
function labelsOf(type: ResourceType, variant: Variant): MetricLabels {
  const byType = LABELS[variant];
  let l = byType.get(type);
  if (!l) byType.set(type, (l = Object.freeze({ type: type.short, variant })));
  return l;
}

export class XdsStream {
  readonly openedAt = new Date();
  /** Instrumentation: responses written, the most un-ACKed responses of one type ever outstanding (must be ≤ 1), writes that hit backpressure. */
  readonly stats = { responses: 0, heartbeats: 0, maxUnackedPerType: 0, blockedWrites: 0 };
  /** Per type URL: when the last response carrying resources (not a heartbeat) was written, epoch ms with a fraction (admin, bench/envoy). */
  readonly lastPushAt = new PushTimes();
  /** This stream's own state object, updated in place (setState): a push or an ACK replaces no long-lived object. */
  private readonly state: Mutable<StreamState>;
  /** What the rules read of this stream besides its types (step-memo.ts), once the node is known. */
  private profile = '';
  private blocked = false;
  private closed = false;
  /** Sync gate: slots this stream waits for or holds (one per large write not yet handed to the socket). */
  private readonly tickets = new Set<SyncTicket>();
  private readonly credential: string | undefined;

  constructor(
    private readonly call: ServerDuplexStream<Buffer, XdsResponse>,
    private readonly deps: StreamDeps,
    opts: StreamOptions,
  ) {
    this.state = newStreamState(opts.id, opts.variant, opts.transport, opts.api) as Mutable<StreamState>;
    this.credential = opts.credential;
    call.on('data', (buf: Buffer) => this.onData(buf));
    call.on('end', () => this.close(undefined));
    call.on('cancelled', () => this.close(undefined));
    call.on('error', (err) => {
      this.log('debug', { err }, 'stream error');
      this.close(undefined);
    });
  }

  get id(): number {
    return this.state.id;
  }
  get variant(): Variant {
    return this.state.variant;
  }
  get transport(): Transport {
    return this.state.transport;
  }
  get api(): ApiVersion {
    return this.state.api;
  }
  get node(): XdsNode | undefined {
    return this.state.node;
  }
  /** Per type, what the rules know of this client (read-only snapshots). */
  get types(): ReadonlyMap<V3TypeUrl, TypeState> {
    return this.state.types;
  }
  /** TTL for this client's resources (X-TTL-1). */
  get ttlMs(): number {
    return this.state.ttlMs;
  }
  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Logs with the stream's context. Not a pino child per stream: a child costs
   * about a KiB, and streams log only decisions (open, NACK, bad request,
   * slow). The context is built only when the level is on: a storm of new
   * streams would otherwise build one for every "opened" line the default
   * level drops.
   */
  private log(level: 'debug' | 'info' | 'warn', obj: object, msg: string): void {
    const base = this.deps.logger;
    if (!base.isLevelEnabled(level)) return;
    base[level](
      { stream: this.id, variant: this.variant, transport: this.transport, api: this.api, node: this.node?.id, ...obj },
      msg,
    );
  }

  /** Takes a rule's result as this stream's state: its fields copied into the stream's own object. */
  private setState(next: StreamState): void {
    const s = this.state;
    if (next === s) return;
    s.node = next.node;
    s.ttlMs = next.ttlMs;
    s.sotwWrap = next.sotwWrap;
    s.types = next.types;
    s.nonceSeq = next.nonceSeq;
    if (this.profile === '' && s.node) this.profile = profileOf(s);
  }

  /** The rule context, refilled for this stream (one object for all streams: no per-request allocation). */
  private context(): typeof scratch {
    const c = scratch;
    c.get = this.deps.get;
    c.memo = this.deps.bodyCache;
    c.names = this.deps.registry.names;
    c.now = this.deps.now?.() ?? Date.now();
    c.resourceTtlMs = this.deps.resourceTtlMs;
    c.resourceTtlTypes = this.deps.resourceTtlTypes;
    c.windowOpen = undefined;
    c.nonce = undefined;
    return c;
  }

  /** Ends the stream with an error from the taxonomy (shutdown, bad request, over capacity), or quietly when the client went away. */
  close(err: HubError | undefined): void {
    if (this.closed) return;
    this.closed = true;
    if (err) this.call.emit('error', grpcStatusOf(err));
    else if (!this.call.writableEnded) this.call.end();
    for (const t of this.tickets) t.release();
    this.tickets.clear();
    this.deps.registry.closed(this);
    reportClosed(this.deps.callbacks, this.id, this.state.node, this.deps.now?.() ?? Date.now());
  }

  private onData(buf: Buffer): void {
    if (this.closed) return;
    let req: SotwRequest | DeltaRequest;
    try {
      req = this.variant === 'sotw' ? decodeSotwRequest(this.api, buf) : decodeDeltaRequest(this.api, buf);
    } catch (err) {
      // Only a request that does not decode is the client's fault.
      const what = this.variant === 'sotw' ? 'DiscoveryRequest' : 'DeltaDiscoveryRequest';
      const message = `${what}: cannot decode: ${(err as Error).message}`;
      return this.fail(new HubError('INVALID_ARGUMENT', message, { cause: err }));
    }
    const names = 'resourceNames' in req ? req.resourceNames.length : req.subscribe.length;
    const max = this.deps.maxResourceNames;
    if (max !== undefined && names > max) return this.fail(tooManyNames(names, max));
    const windowOpen = this.deps.pacing?.windowOpen() === true;
    const steps = this.deps.steps;
    const bare = steps !== undefined && this.state.node !== undefined && isBareAck(req);
    if (bare) {
      const step = steps.ack(this.state.types, this.profile, req.typeUrl, req.responseNonce, windowOpen);
      if (step) return this.answered(step);
    }
    // The call's credential rides on the node the rules keep (X-STREAM-1: the first request's).
    if (req.node && this.credential !== undefined) req.node = { ...req.node, credential: this.credential };
    let outcome: RequestOutcome;
    try {
      const ctx = this.context();
      if (windowOpen) ctx.windowOpen = true;
      outcome = 'resourceNames' in req ? onSotwRequest(this.state, req, ctx) : onDeltaRequest(this.state, req, ctx);
    } catch (err) {
      return this.internal(err, 'a rule or the provider threw on a request');
    }
    const admit = this.deps.callbacks?.admit;
    if (outcome.opened && admit) {
      try {
        admit(outcome.state.node ?? outcome.opened);
      } catch (err) {
        return this.fail(err instanceof HubError ? err : new HubError('INTERNAL', String(err)));
      }
    }
    const before = this.state.types;
    this.setState(outcome.state);
    // A state reached on its own (this stream's nonces, its own request) becomes its class's value again.
    if (steps && this.state.types !== before) this.state.types = steps.intern(this.state.types);
    if (bare && remembered(outcome))
      this.rememberAck(steps!, before, req.typeUrl, req.responseNonce, windowOpen, outcome);
    reportAnswers(this.deps.callbacks, before, this.state, this.deps.now?.() ?? Date.now());
    if (outcome.opened)
      this.log(
        'info',
        { node: outcome.opened.id, cluster: outcome.opened.cluster, userAgent: outcome.opened.userAgent },
        'xds stream opened',
      );
    if (outcome.end) return this.fail(outcome.end);
    if (outcome.ignored !== undefined)
      this.log('debug', { typeUrl: outcome.ignored }, 'ignoring request for a type the hub does not serve');
    if (outcome.nack) {
      const { type, record } = outcome.nack;
      this.deps.metrics.nacks.inc({ type: type.short });
      this.log(
        'warn',
        { type: type.short, code: record.code, message: record.message },
        'NACK: client keeps its last accepted state',
      );
    }
    const sub = outcome.subscription;
    if (sub) this.deps.registry.subscriptionChanged(this, sub.typeUrl, sub.delta, sub.names, sub.wildcard);
    if (outcome.deferred !== undefined) this.deps.pacing?.defer(this, outcome.deferred);
    this.flush();
  }

  /** A bare ACK whose step a stream of this class took already: the same state, reports, deferral and flush. */
  private answered(step: AckStep): void {
    const before = this.state.types;
    this.state.types = step.types;
    const now = this.deps.now?.() ?? Date.now();
    reportAnswers(this.deps.callbacks, before, this.state, now);
    if (step.deferred !== undefined) this.deps.pacing?.defer(this, step.deferred === 'now' ? now : step.deferred);
    this.flush();
  }

  /** Remembers a bare ACK's step for the rest of this stream's class (what `answered` replays). */
  private rememberAck(
    steps: StepMemo,
    before: TypeStates,
    typeUrl: string,
    nonce: string,
    windowOpen: boolean,
    outcome: RequestOutcome,
  ): void {
    let deferred: AckStep['deferred'];
    if (outcome.deferred !== undefined) {
      // X-STREAM-4: from when its oldest change reached the hub, or (none recorded) the ACK's own time.
      const type = resourceTypeOf(typeUrl);
      const st = type && this.state.types.get(type.typeUrl);
      if (!st || !isDeferred(st)) return;
      deferred = st.changeAt ?? 'now';
    }
    steps.rememberAck(before, { profile: this.profile, typeUrl, nonce, windowOpen, types: this.state.types, deferred });
  }

  private fail(err: HubError): void {
    this.log('warn', { details: err.message }, 'ending stream: bad request');
    this.close(err);
  }

  /**
   * A fault of the hub's own (a rule or the provider threw): the stream ends
   * with INTERNAL, never blamed on the request, and the reason is logged with
   * its stack at error level (whatever the level, the operator must see it).
   * A HubError thrown on purpose (a provider refusing) keeps its code.
   */
  private internal(err: unknown, what: string): void {
    if (err instanceof HubError && err.code !== 'INTERNAL') return this.fail(err);
    const e = err instanceof Error ? err : new Error(String(err));
    const where = {
      stream: this.id,
      variant: this.variant,
      transport: this.transport,
      api: this.api,
      node: this.node?.id,
    };
    this.deps.logger.error({ ...where, err: e }, `ending stream: internal error: ${what}`);
    this.close(new HubError('INTERNAL', `internal error: ${e.message}`, { cause: err }));
  }

  /** The push pipeline reports changed names of a type this stream subscribes to. */
  resourcesChanged(typeUrl: string, names: ReadonlySet<string>, at: number): void {
    const steps = this.deps.steps;
    const before = this.state.types;
    const hit = steps?.changed(before, typeUrl, names, at);
    if (hit) {
      this.state.types = hit;
      return;
    }
    this.setState(resourcesChanged(this.state, typeUrl, names, at));
    steps?.rememberChange(before, typeUrl, names, at, this.state.types);
  }

  /** X-STREAM-4: the delivery its queued changes waited for has come (the pipeline flushes next). */
  resume(): void {
    this.setState(resumeDeferred(this.state));
  }

  /** Writes what the rules say each dirty type needs, until they say nothing or the socket pushes back. */
  flush(): void {
    this.writeEach(nextResponse, true);
  }

  /** X-TTL-2: called by the server's heartbeat timer. */
  heartbeat(): void {
    this.writeEach(nextHeartbeat, false);
  }

  /** Asks `next` for a response and writes it, until it has none or the stream cannot write; `report`: tell the observer. */
  private writeEach(next: typeof nextResponse, report: boolean): void {
    try {
      while (!this.closed && !this.blocked && this.state.node) {
        // Most flushes (after every ACK) find nothing to send: known without asking the rules.
        if (next === nextResponse && !hasSendable(this.state.types)) return;
        const step =
          next === nextResponse && this.deps.steps?.inDelivery
            ? this.sharedStep(this.deps.steps)
            : next(this.state, this.context());
        this.setState(step.state);
        if (!step.response) return;
        this.write(step.response);
        if (report && this.deps.callbacks)
          reportSent(this.deps.callbacks, this.state, step.response, this.deps.now?.() ?? Date.now());
      }
    } catch (err) {
      // Called from the push pipeline, timers and grpc-js events: a throw here would reach none of them usefully.
      this.internal(err, 'computing a response threw');
    }
  }

  /**
   * The next response during a delivery: a stream of this class took the same
   * step (same state, profile and served sets) and this stream takes its result;
   * else the rules decide, under the delivery's shared nonce, and the class may
   * take this step next.
   */
  private sharedStep(steps: StepMemo): { state: StreamState; response?: Outgoing } {
    const node = this.state.node!;
    const before = this.state.types;
    const hit = steps.response(before, this.profile, node, this.deps.get);
    if (hit) {
      this.state.types = hit.types;
      return hit.response ? { state: this.state, response: hit.response } : { state: this.state };
    }
    const reads: { typeUrl: string; set: ReturnType<StreamDeps['get']> }[] = [];
    const get = this.deps.get;
    const ctx = this.context();
    ctx.get = (typeUrl, n) => {
      const set = get(typeUrl, n);
      reads.push({ typeUrl, set });
      return set;
    };
    ctx.nonce = (body) => steps.nonceFor(body);
    const step = nextResponse(this.state, ctx);
    const s = step.state;
    const own = this.state;
    // Only the types move on this path (a shared nonce leaves the stream's sequence): anything else is not remembered.
    if (s.nonceSeq === own.nonceSeq && s.node === own.node && s.ttlMs === own.ttlMs && s.sotwWrap === own.sotwWrap)
      steps.rememberResponse(before, { profile: this.profile, reads, types: s.types, response: step.response });
    return step;
  }

  private write(out: Outgoing): void {
    const gate = this.deps.pacing?.syncGate;
    if (gate && !out.heartbeat && out.body.length >= this.gatedFrom(gate, out)) {
      // Wait for a slot holding the computed response (its body is shared, not a copy); nothing else is written meanwhile.
      this.blocked = true;
      const ticket = gate.enter(() => {
        this.blocked = false;
        if (this.closed) return ticket.release();
        // The slot is free again once grpc-js has framed the message and HTTP/2 has taken it (not at the ACK, which waits on the client).
        this.writeNow(out, () => {
          ticket.release();
          this.tickets.delete(ticket);
          this.deps.pacing?.largeWritten?.(out.body.length);
        });
        this.flush();
      });
      this.tickets.add(ticket);
      return;
    }
    this.writeNow(out);
  }

  /**
   * The size from which a response waits at the sync gate: `largeBytes` for an
   * initial sync (the client holds nothing of the type yet), CHANGE_GATE_FACTOR
   * times that for a change. Changes under churn are tens of KiB with a body
   * shared by every stream; queueing them four at a time behind clients' reads
   * left 99% of 1,000 streams waiting at the gate and changes 10 s stale.
   */
  private gatedFrom(gate: SyncGate, out: Outgoing): number {
    const held = this.state.types.get(out.type.typeUrl)?.acked;
    return held && !held.empty ? gate.largeBytes * CHANGE_GATE_FACTOR : gate.largeBytes;
  }

  private writeNow(out: Outgoing, written?: () => void): void {
    // A delivery's response (one nonce for its class) is joined with its nonce once for every stream
    // that gets it; another is joined by the serializer, in a reused buffer (wire.ts serializeResponse).
    const msg = isDeliveryNonce(out.nonce) ? framedOnce(out) : { body: out.body, nonce: out.nonce };
    const ok = written ? this.call.write(msg, written) : this.call.write(msg);
    this.stats.responses++;
    const unacked = this.state.types.get(out.type.typeUrl)?.unacked ?? 0;
    this.stats.maxUnackedPerType = Math.max(this.stats.maxUnackedPerType, unacked);
    const labels = labelsOf(out.type, this.variant);
    if (out.heartbeat) {
      this.stats.heartbeats++;
      this.deps.metrics.heartbeats.inc(labels);
    } else {
      this.lastPushAt.set(out.type, performance.timeOrigin + performance.now());
      this.deps.metrics.countPush(out.type.short, this.variant, out.count);
      if (out.changeAt !== undefined)
        this.deps.metrics.pushLatency.observe(
          labels.type,
          labels.variant,
          ((this.deps.now?.() ?? Date.now()) - out.changeAt) / 1000,
        );
    }
    if (!ok) {
      // Slow consumer: stop writing; dirty types are recomputed from the latest state on drain.
      this.blocked = true;
      this.stats.blockedWrites++;
      this.log('debug', {}, 'slow consumer: waiting for drain');
      this.call.once('drain', () => {
        this.blocked = false;
        this.flush();
      });
    }
  }
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Per type, when the last response carrying resources was written (epoch ms
 * with a fraction): a number field per type, written in place (a Map value
 * would be a new heap number per response per stream).
 */
export class PushTimes {
  private readonly at = [Number.NaN, Number.NaN, Number.NaN, Number.NaN, Number.NaN];
  set(type: ResourceType, ms: number): void {
    this.at[type.order] = ms;
  }
  get(typeUrl: string): number | undefined {
    const type = resourceTypeOf(typeUrl);
    const ms = type ? this.at[type.order] : undefined;
    return ms === undefined || Number.isNaN(ms) ? undefined : ms;
  }
}

/** A delivery's whole message, body and nonce, made once per response and shared by its class's streams. */
const framed = new WeakMap<Outgoing, Buffer>();
function framedOnce(out: Outgoing): Buffer {
  let b = framed.get(out);
  if (!b) framed.set(out, (b = Buffer.from(serializeResponse({ body: out.body, nonce: out.nonce }))));
  return b;
}

/** A Delta request that only answers a response: no node, no names, no NACK (wire.ts's fast path gives exactly these). */
function isBareAck(req: SotwRequest | DeltaRequest): req is DeltaRequest {
  return (
    !('resourceNames' in req) &&
    req.node === undefined &&
    req.errorDetail === undefined &&
    req.subscribe.length === 0 &&
    req.unsubscribe.length === 0 &&
    req.initialVersions.size === 0 &&
    req.responseNonce !== ''
  );
}

/** Whether a bare ACK's outcome is one a class may replay: it moved only the types (no end, NACK, ignored type or subscription). */
function remembered(o: RequestOutcome): boolean {
  return !o.end && !o.nack && o.ignored === undefined && !o.subscription && !o.opened;
}

/** Whether some type is one nextResponse would look at (stream-state.ts isSendable). */
function hasSendable(types: TypeStates): boolean {
  for (let i = 0; i < types.size; i++) if (isSendable(types.stateAt(i))) return true;
  return false;
}
