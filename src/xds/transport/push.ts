// The push pipeline: provider changes are delivered only to streams whose
// subscription covers a changed name — an index name → streams per type, plus
// the wildcard streams — and at most once per coalescing window. The window
// after a delivery is max(`debounceMs`, WINDOW_PER_ROUND × how long its writes
// took), so a long round leaves time for its ACKs and for HTTP before the
// next. A change that finds the window closed goes at once: an idle hub pays
// no coalescing delay. Changes that arrive while the
// window is open are folded and go when it ends, never later than `maxDelayMs`
// after the first of them. Under churn, deliveries (and so responses per
// stream) stay at most one per window: a stream whose ACK frees a type with
// changes queued while the window is open does not send them at once but
// waits here for the next delivery (X-STREAM-4).
import type { ResourceChange, ResourceProvider } from './provider';
import type { SubscriptionDelta } from './rules/subscription';
import type { StepMemo } from './step-memo';
import type { XdsStream } from './stream';

export interface PushOptions {
  /** The shortest coalescing window (--xds-debounce). */
  debounceMs: number;
  /** The longest a change may wait (--xds-max-delay). */
  maxDelayMs: number;
  /** Told when a delivery's writes start and end: its classes of streams share their responses (step-memo.ts). */
  steps?: Pick<StepMemo, 'beginDelivery' | 'endDelivery'>;
}

/**
 * The window after a delivery lasts this many times as long as the delivery's
 * own writes took (and at least --xds-debounce): the ACKs a delivery brings
 * back cost about as much main-thread time as its writes, and the rest is left
 * for HTTP writes, reads and timers (docs/xds-push.md).
 */
export const WINDOW_PER_ROUND = 2;

interface Batch {
  typeUrl: string;
  nodeScope: string | undefined;
  nodeIds: ReadonlySet<string> | undefined;
  names: Set<string>;
}

export class PushPipeline {
  /**
   * Per type: interned name set → streams subscribed with exactly that set.
   * Fleets share sets, so a stream costs one entry here, not one per name.
   */
  private readonly groups = new Map<string, Map<ReadonlySet<string>, Set<XdsStream>>>();
  private readonly wildcard = new Map<string, Set<XdsStream>>();
  private batches = new Map<string, Batch>();
  private firstAt: number | undefined;
  /** When the last delivery's writes were done: the window is open until lastAt + windowMs. */
  private lastAt = -Infinity;
  /** The window the last delivery opened: max(debounceMs, WINDOW_PER_ROUND × how long its writes took). */
  windowMs: number;
  private timer: NodeJS.Timeout | undefined;
  /** Streams whose queued changes wait for the next delivery (X-STREAM-4), and when the oldest of them reached the hub. */
  private deferred = new Set<XdsStream>();
  private deferredAt: number | undefined;
  private readonly unsubscribe: () => void;
  private closed = false;
  /** Where in [0, 1) of its streams the last delivery started writing (flushFrom). */
  private start = 0;
  /** Instrumentation: coalesced deliveries. */
  deliveries = 0;

  constructor(
    provider: ResourceProvider,
    private readonly opts: PushOptions,
  ) {
    this.windowMs = opts.debounceMs;
    this.unsubscribe = provider.onChange((changes) => this.enqueue(changes));
  }

  close(): void {
    this.closed = true;
    this.deferred.clear();
    this.unsubscribe();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Keeps the index in step with one stream's subscription of one type. */
  update(
    stream: XdsStream,
    typeUrl: string,
    delta: SubscriptionDelta,
    names: ReadonlySet<string>,
    wildcard: boolean,
  ): void {
    let groups = this.groups.get(typeUrl);
    if (!groups) this.groups.set(typeUrl, (groups = new Map()));
    if (delta.before !== names) this.leave(groups, delta.before, stream);
    if (names.size > 0) {
      let g = groups.get(names);
      if (!g) groups.set(names, (g = new Set()));
      g.add(stream);
    }
    let w = this.wildcard.get(typeUrl);
    if (!w) this.wildcard.set(typeUrl, (w = new Set()));
    if (wildcard) w.add(stream);
    else w.delete(stream);
  }

  remove(stream: XdsStream): void {
    this.deferred.delete(stream);
    for (const [typeUrl, st] of stream.types) {
      this.wildcard.get(typeUrl)?.delete(stream);
      const groups = this.groups.get(typeUrl);
      if (groups) this.leave(groups, st.sub.names, stream);
    }
  }

  private leave(groups: Map<ReadonlySet<string>, Set<XdsStream>>, names: ReadonlySet<string>, stream: XdsStream): void {
    const g = groups.get(names);
    g?.delete(stream);
    if (g?.size === 0) groups.delete(names);
  }

  private enqueue(changes: readonly ResourceChange[]): void {
    const now = Date.now();
    this.firstAt ??= now;
    for (const c of changes) {
      const ids = c.nodeIds ? [...c.nodeIds].sort().join('\0') : undefined;
      const key = `${c.typeUrl}|${c.nodeScope ?? ''}|${ids ?? '*'}`;
      let b = this.batches.get(key);
      if (!b)
        this.batches.set(
          key,
          (b = { typeUrl: c.typeUrl, nodeScope: c.nodeScope, nodeIds: c.nodeIds, names: new Set() }),
        );
      for (const n of c.names) b.names.add(n);
    }
    if (this.timer) return; // folded: goes when the window ends
    if (!this.windowOpen(now)) return this.deliver(); // idle: at once
    this.schedule(now);
  }

  /** Whether a change now would wait: a delivery went out less than a window ago, or one is scheduled. */
  windowOpen(now = Date.now()): boolean {
    return this.timer !== undefined || now < this.lastAt + this.windowMs;
  }

  /** X-STREAM-4: `stream` has changes (the oldest reached the hub at `at`) that go with the next delivery. */
  defer(stream: XdsStream, at: number): void {
    if (this.closed) return;
    this.deferred.add(stream);
    this.deferredAt = Math.min(this.deferredAt ?? at, at);
    if (!this.timer) this.schedule(Date.now());
  }

  /** Arms the timer for the window's end, or sooner if a waiting change would pass the maximum delay. */
  private schedule(now: number): void {
    const first = Math.min(this.firstAt ?? Infinity, this.deferredAt ?? Infinity);
    const wait = Math.max(0, Math.min(this.lastAt + this.windowMs, first + this.opts.maxDelayMs) - now);
    this.timer = setTimeout(() => this.deliver(), wait);
  }

  /**
   * Writes the streams of one delivery, starting at another stream each time:
   * every write of a turn leaves the process only once the turn is over, so in
   * a fixed order the stream that connected last would wait for the whole
   * fleet on every push.
   */
  private flushFrom(touched: ReadonlySet<XdsStream>): void {
    this.start = (this.start + START_STEP) % 1;
    const list = [...touched];
    const first = Math.floor(this.start * list.length);
    for (let i = 0; i < list.length; i++) list[(first + i) % list.length]!.flush();
  }

  /** Runs the pending batch now (also what the window's timer calls). */
  deliver(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const started = Date.now();
    const at = this.firstAt ?? started;
    const batches = [...this.batches.values()];
    this.batches = new Map();
    this.firstAt = undefined;
    const touched = this.deferred;
    this.deferred = new Set();
    this.deferredAt = undefined;
    for (const s of touched) s.resume();
    for (const b of batches) {
      const targets = new Set<XdsStream>(this.wildcard.get(b.typeUrl));
      for (const [names, streams] of this.groups.get(b.typeUrl) ?? []) {
        if (intersects(names, b.names)) for (const s of streams) targets.add(s);
      }
      for (const s of targets) {
        if (b.nodeScope !== undefined && (s.node?.cluster || s.node?.id) !== b.nodeScope) continue;
        if (b.nodeIds !== undefined && !b.nodeIds.has(s.node?.id ?? '')) continue;
        s.resourcesChanged(b.typeUrl, b.names, at); // b.names is never changed again: streams may keep it as it is
        touched.add(s);
      }
    }
    const steps = this.opts.steps;
    steps?.beginDelivery();
    try {
      this.flushFrom(touched);
    } finally {
      steps?.endDelivery();
    }
    if (touched.size > 0) {
      this.deliveries++;
      // The window opens when the writes are done, and lasts longer when they took
      // long: a delivery to many streams takes time, and the next one leaves
      // time for its ACKs and for HTTP between (the max delay still bounds every change).
      this.lastAt = Date.now();
      this.windowMs = Math.max(this.opts.debounceMs, WINDOW_PER_ROUND * (this.lastAt - started));
    }
  }
}

/** Golden-ratio steps: the start of successive deliveries spreads evenly over the streams (a Weyl sequence). */
const START_STEP = (Math.sqrt(5) - 1) / 2;

function intersects(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const n of small) if (large.has(n)) return true;
  return false;
}
