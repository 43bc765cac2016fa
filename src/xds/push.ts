// The push pipeline: provider changes are coalesced (debounce, bounded by a
// maximum delay) and delivered only to streams whose subscription covers a
// changed name — an index name → streams per type, plus the wildcard streams.
import type { ResourceChange, ResourceProvider } from './provider';
import type { XdsStream } from './stream';
import type { SubscriptionDelta } from './subscription';

export interface PushOptions {
  debounceMs: number;
  maxDelayMs: number;
}

interface Batch {
  typeUrl: string;
  nodeScope: string | undefined;
  names: Set<string>;
}

export class PushPipeline {
  private readonly byName = new Map<string, Map<string, Set<XdsStream>>>();
  private readonly wildcard = new Map<string, Set<XdsStream>>();
  private batches = new Map<string, Batch>();
  private firstAt: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly unsubscribe: () => void;
  /** Instrumentation: coalesced deliveries. */
  deliveries = 0;

  constructor(provider: ResourceProvider, private readonly opts: PushOptions) {
    this.unsubscribe = provider.onChange((changes) => this.enqueue(changes));
  }

  close(): void {
    this.unsubscribe();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Keeps the index in step with one stream's subscription of one type. */
  update(stream: XdsStream, typeUrl: string, delta: SubscriptionDelta, wildcard: boolean): void {
    let names = this.byName.get(typeUrl);
    if (!names) this.byName.set(typeUrl, (names = new Map()));
    for (const n of delta.added) {
      let s = names.get(n);
      if (!s) names.set(n, (s = new Set()));
      s.add(stream);
    }
    for (const n of delta.removed) {
      const s = names.get(n);
      s?.delete(stream);
      if (s?.size === 0) names.delete(n);
    }
    let w = this.wildcard.get(typeUrl);
    if (!w) this.wildcard.set(typeUrl, (w = new Set()));
    if (wildcard) w.add(stream);
    else w.delete(stream);
  }

  remove(stream: XdsStream): void {
    for (const [typeUrl, st] of stream.types) {
      this.wildcard.get(typeUrl)?.delete(stream);
      const names = this.byName.get(typeUrl);
      if (!names) continue;
      for (const n of st.sub.names) {
        const s = names.get(n);
        s?.delete(stream);
        if (s?.size === 0) names.delete(n);
      }
    }
  }

  private enqueue(changes: readonly ResourceChange[]): void {
    const now = Date.now();
    this.firstAt ??= now;
    for (const c of changes) {
      const key = `${c.typeUrl}|${c.nodeScope ?? ''}`;
      let b = this.batches.get(key);
      if (!b) this.batches.set(key, (b = { typeUrl: c.typeUrl, nodeScope: c.nodeScope, names: new Set() }));
      for (const n of c.names) b.names.add(n);
    }
    if (this.timer) clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(this.opts.debounceMs, this.firstAt + this.opts.maxDelayMs - now));
    this.timer = setTimeout(() => this.deliver(), wait);
  }

  /** Runs the pending batch now (also what the debounce timer calls). */
  deliver(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const at = this.firstAt ?? Date.now();
    const batches = [...this.batches.values()];
    this.batches = new Map();
    this.firstAt = undefined;
    const touched = new Set<XdsStream>();
    for (const b of batches) {
      const targets = new Set<XdsStream>(this.wildcard.get(b.typeUrl));
      const names = this.byName.get(b.typeUrl);
      if (names) for (const n of b.names) for (const s of names.get(n) ?? []) targets.add(s);
      for (const s of targets) {
        if (b.nodeScope !== undefined && (s.node?.cluster || s.node?.id) !== b.nodeScope) continue;
        s.resourcesChanged(b.typeUrl, b.names, at);
        touched.add(s);
      }
    }
    if (batches.length) this.deliveries++;
    for (const s of touched) s.flush();
  }
}
