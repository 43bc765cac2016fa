// The fan-out hub's publisher (docs/fanout.md): no log and no catalog, only
// relays. A relay is one Subscribe stream to the upstream hub per (topic,
// subject) that somebody here reads — this hub's views (xDS, HTTP reads) and
// its own Subscribe clients share it. It keeps the subject's current state
// (one event per instance or entry), the upstream's index, and a window of
// recent deliveries so that returning clients resume by index.
//
// When the upstream restarts or is replaced, the relay reconnects with backoff
// and resumes from its index. If the upstream answers with a new snapshot, the
// old state keeps being served while the new one is collected; at its end the
// difference goes out as ordinary events at the snapshot's index, so nobody
// downstream ever sees an empty state. Only an upstream whose index went
// backwards (a different log) ends the downstream streams with a reset.
import { SUBJECT_WILDCARD, type CatalogEvent, type Topic } from '../catalog/types';
import { HubError } from '../errors';
import { type Backoff, createBackoff, sleep } from '../materializer/backoff';
import { classifyError, toHubError, type Source } from '../materializer/source';
import type { MaterializerLogger } from '../materializer/materializer';
import { RESET_MESSAGE, SHUTDOWN_MESSAGE, SLOW_MESSAGE, DEFAULT_MAX_LAG, type HubPublisher, type PublisherStats } from '../subscribe/publisher';
import { isHealthTopic, resolveSubject, supportsWildcard } from '../subscribe/subjects';
import type { StreamItem, SubscribeRequest, Subscription } from '../subscribe/types';

/**
 * Ceiling of a relay's retry delay (jitter included). The materializer's default, 60 s
 * (Consul's), left a relay seconds behind a core hub that was back; a retry while the
 * core is down fails at once on the channel (see UPSTREAM_RECONNECT in hub.ts), so
 * retrying twice a second costs little. With the channel's cap, a relay is back within
 * ~1 s of the core listening again.
 */
export const UPSTREAM_RETRY_MAX_MS = 500;

export interface RelayPublisherOptions {
  /** The upstream hub's Subscribe API (src/materializer/sources/grpc.ts). */
  source: Source;
  logger?: MaterializerLogger;
  /** Deliveries kept per relay for resuming clients (default 1024). */
  history?: number;
  /** Items a downstream subscriber may fall behind before it is ended with SLOW_CONSUMER. */
  maxLag?: number;
  /** How long a relay nobody reads keeps its upstream stream (default 60 s). */
  idleTtlMs?: number;
  backoff?: () => Backoff;
}

export interface RelayPublisher extends HubPublisher {
  /** The newest upstream index any relay holds (0n before the first snapshot). */
  lastIndex(): bigint;
  /**
   * Resolves once every relay held for one of `keys` ("topic|subject", as the
   * upstream's X-Xdshub-Changed header names them) has reached `index`, or when
   * `signal` aborts. Keys with no relay here need no wait: a relay started later
   * begins with a snapshot at or past the index.
   */
  waitApplied(keys: readonly string[], index: bigint, signal: AbortSignal): Promise<void>;
  /** Called when a relay found the upstream holding another log (its index went backwards). Returns unsubscribe. */
  onNewLog(listener: () => void): () => void;
}

interface Sub {
  queue: StreamItem[];
  error: HubError | undefined;
  wake: (() => void) | undefined;
}

interface Relay {
  key: string;
  topic: Topic;
  request: SubscribeRequest;
  state: Map<string, CatalogEvent>;
  index: bigint;
  ready: boolean;
  /** Recent deliveries; `floor` is the index just before the oldest (a client at or above it can resume). */
  history: StreamItem[];
  floor: bigint;
  subs: Set<Sub>;
  /** Woken on every change of index or readiness (readers waiting to start, read-your-writes). */
  watchers: Set<() => void>;
  failed: HubError | undefined;
  /** The next upstream subscription asks for a snapshot (after the upstream said its state was replaced). */
  fresh: boolean;
  controller: AbortController;
  idleTimer: NodeJS.Timeout | undefined;
}

const silent: MaterializerLogger = { debug() {}, info() {}, warn() {}, error() {} };
const NEW_SNAPSHOT: StreamItem = Object.freeze({ kind: 'new-snapshot-to-follow' });

/** What one event is about: a later event with the same identity replaces it. */
function identity(event: CatalogEvent): string {
  const p = event.payload;
  if (p.type === 'service-health') return `${p.csn.Node.Node}\u0000${p.csn.Service.ID}`;
  if (p.type === 'service-list') return `${p.partition}/${p.namespace}/${p.name}`;
  return `${event.subject}`;
}

function isRemoval(event: CatalogEvent): boolean {
  return event.payload.op === 'deregister' || event.payload.op === 'delete';
}

function fold(state: Map<string, CatalogEvent>, event: CatalogEvent): void {
  if (isRemoval(event)) state.delete(identity(event));
  else state.set(identity(event), event);
}

function removal(event: CatalogEvent, index: bigint): CatalogEvent {
  const p = event.payload;
  const payload = p.type === 'config-entry' ? { ...p, op: 'delete' as const } : { ...p, op: 'deregister' as const };
  return { ...event, index, payload } as CatalogEvent;
}

export function createRelayPublisher(options: RelayPublisherOptions): RelayPublisher {
  const logger = options.logger ?? silent;
  const historyMax = options.history ?? 1024;
  const maxLag = options.maxLag ?? DEFAULT_MAX_LAG;
  const idleTtlMs = options.idleTtlMs ?? 60_000;
  const relays = new Map<string, Relay>();
  const counters = { resumes: 0, slowConsumers: 0, snapshots: 0 };
  let closed = false;

  let newest = 0n;
  const newLog = new Set<() => void>();

  function notify(relay: Relay): void {
    if (relay.index > newest) newest = relay.index;
    for (const w of [...relay.watchers]) w();
  }

  function end(relay: Relay, sub: Sub, err: HubError): void {
    sub.error ??= err;
    relay.subs.delete(sub);
    sub.wake?.();
  }

  function deliver(relay: Relay, item: StreamItem & { kind: 'events' }): void {
    for (const e of item.events) fold(relay.state, e);
    if (item.index > relay.index) relay.index = item.index;
    relay.history.push(item);
    // A client at or past the dropped item's index still finds everything after it here.
    if (relay.history.length > historyMax) relay.floor = (relay.history.shift() as StreamItem & { kind: 'events' }).index;
    for (const sub of relay.subs) {
      sub.queue.push(item);
      if (sub.queue.length > maxLag) {
        counters.slowConsumers++;
        end(relay, sub, new HubError('SLOW_CONSUMER', SLOW_MESSAGE));
      } else sub.wake?.();
    }
    notify(relay);
  }

  /** A complete snapshot from the upstream replaces the relay's state. */
  function install(relay: Relay, next: Map<string, CatalogEvent>, index: bigint): void {
    counters.snapshots++;
    if (!relay.ready || index < relay.index) {
      if (relay.ready) {
        logger.warn({ relay: relay.key, from: String(relay.index), to: String(index) }, 'upstream index went backwards: downstream streams reset');
        for (const sub of [...relay.subs]) end(relay, sub, new HubError('SUBSCRIPTION_RESET', RESET_MESSAGE));
      }
      const replaced = relay.ready;
      Object.assign(relay, { state: next, index, ready: true, history: [], floor: index });
      if (replaced) newest = index; // the old log's indexes mean nothing here any more
      notify(relay);
      if (replaced) {
        // Every other relay still holds the old log: drop them all at once (their
        // readers resubscribe and get new relays), so the views are rebuilt once.
        for (const other of [...relays.values()]) if (other !== relay) stopRelay(other, new HubError('SUBSCRIPTION_RESET', RESET_MESSAGE));
        for (const l of [...newLog]) l();
      }
      return;
    }
    // Same log, maybe further on: send what changed as live events, keep everything else.
    const diff: CatalogEvent[] = [];
    for (const [id, event] of next) {
      const old = relay.state.get(id);
      if (old === undefined || JSON.stringify(old.payload) !== JSON.stringify(event.payload)) diff.push({ ...event, index });
    }
    for (const [id, event] of relay.state) if (!next.has(id)) diff.push(removal(event, index));
    if (diff.length > 0) deliver(relay, { kind: 'events', index, events: diff });
    else if (index > relay.index) {
      relay.index = index;
      notify(relay);
    }
  }

  /** One upstream stream, until it fails or the relay stops. Returns the error to retry on. */
  async function attempt(relay: Relay, backoff: Backoff): Promise<HubError | undefined> {
    const resume = relay.ready && !relay.fresh ? relay.index : 0n;
    relay.fresh = false;
    let collecting: Map<string, CatalogEvent> | undefined = resume === 0n ? new Map() : undefined;
    const controller = new AbortController();
    const stop = () => controller.abort();
    relay.controller.signal.addEventListener('abort', stop, { once: true });
    try {
      for await (const item of options.source.subscribe({ ...relay.request, index: resume }, controller.signal)) {
        backoff.reset();
        if (item.kind === 'new-snapshot-to-follow') collecting = new Map();
        else if (item.kind === 'end-of-snapshot') {
          if (!collecting) throw new HubError('INTERNAL', `EndOfSnapshot at index ${item.index} outside a snapshot`);
          install(relay, collecting, item.index);
          collecting = undefined;
        } else if (collecting) for (const e of item.events) fold(collecting, e);
        else deliver(relay, item);
      }
      return relay.controller.signal.aborted ? undefined : new HubError('SHUTTING_DOWN', 'subscription ended by the upstream');
    } catch (err) {
      return relay.controller.signal.aborted ? undefined : toHubError(err);
    } finally {
      relay.controller.signal.removeEventListener('abort', stop);
      controller.abort();
    }
  }

  async function run(relay: Relay): Promise<void> {
    const backoff = options.backoff?.() ?? createBackoff({ maxMs: UPSTREAM_RETRY_MAX_MS });
    const signal = relay.controller.signal;
    while (!signal.aborted) {
      const err = await attempt(relay, backoff);
      if (err === undefined || signal.aborted) break;
      const kind = classifyError(err);
      if (kind === 'terminal') {
        logger.warn({ relay: relay.key, err }, 'upstream refused the subscription');
        stopRelay(relay, err);
        return;
      }
      // A reset upstream: ask for a fresh snapshot (diffed in by install()); keep serving the old state meanwhile.
      if (kind === 'reset') relay.fresh = true;
      const delay = backoff.next();
      logger.debug({ relay: relay.key, err, kind, failures: backoff.failures, delay }, 'upstream stream failed; reconnecting');
      await sleep(delay, signal);
    }
  }

  function stopRelay(relay: Relay, err: HubError): void {
    relay.failed ??= err;
    if (relays.get(relay.key) === relay) relays.delete(relay.key);
    if (relay.idleTimer) clearTimeout(relay.idleTimer);
    relay.controller.abort();
    for (const sub of [...relay.subs]) end(relay, sub, err);
    notify(relay);
  }

  function acquire(request: SubscribeRequest): Relay {
    if (closed) throw new HubError('SHUTTING_DOWN', SHUTDOWN_MESSAGE);
    const subject = resolveSubject(request.topic, request.subject); // INVALID_ARGUMENT before anything starts
    const key = `${request.topic}|${subject}`;
    let relay = relays.get(key);
    if (!relay) {
      const created: Relay = {
        key,
        topic: request.topic,
        request: { topic: request.topic, subject: request.subject, token: '', index: 0n },
        state: new Map(),
        index: 0n,
        ready: false,
        history: [],
        floor: 0n,
        subs: new Set(),
        watchers: new Set(),
        failed: undefined,
        fresh: false,
        controller: new AbortController(),
        idleTimer: undefined,
      };
      relay = created;
      relays.set(key, created);
      void run(created);
    }
    if (relay.idleTimer) clearTimeout(relay.idleTimer);
    relay.idleTimer = undefined;
    return relay;
  }

  function release(relay: Relay): void {
    if (relay.subs.size > 0 || relay.watchers.size > 0 || relays.get(relay.key) !== relay) return;
    relay.idleTimer ??= setTimeout(() => {
      relay.idleTimer = undefined;
      if (relay.subs.size === 0 && relay.watchers.size === 0) stopRelay(relay, new HubError('SHUTTING_DOWN', SHUTDOWN_MESSAGE));
    }, idleTtlMs);
    relay.idleTimer.unref();
  }

  /** Resolves when `done()` holds, re-checked on every change of the relay, or when `signal` aborts. */
  function until(relay: Relay, done: () => boolean, signal: AbortSignal): Promise<void> {
    if (done() || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (!done() && !signal.aborted && relay.failed === undefined && !closed) return;
        relay.watchers.delete(check);
        signal.removeEventListener('abort', check);
        resolve();
      };
      relay.watchers.add(check);
      signal.addEventListener('abort', check, { once: true });
    });
  }

  function snapshotItems(relay: Relay): StreamItem[] {
    const index = relay.index;
    const events = [...relay.state.values()].map((e) => (e.index === index ? e : { ...e, index }));
    const items: StreamItem[] = isHealthTopic(relay.topic)
      ? events.map((e) => ({ kind: 'events', index, events: [e] }))
      : events.length > 0
        ? [{ kind: 'events', index, events }]
        : [];
    items.push({ kind: 'end-of-snapshot', index });
    return items;
  }

  function subscribe(request: SubscribeRequest, signal: AbortSignal): Subscription {
    const relay = acquire(request);
    const sub: Sub = { queue: [], error: undefined, wake: undefined };
    relay.watchers.add(noop); // holds the relay while this subscriber waits for its first snapshot
    async function* stream(): AsyncGenerator<StreamItem> {
      try {
        await until(relay, () => relay.ready, signal);
        relay.watchers.delete(noop);
        if (signal.aborted) return;
        if (relay.failed) throw relay.failed;
        if (closed) throw new HubError('SHUTTING_DOWN', SHUTDOWN_MESSAGE);
        const i = request.index;
        if (i > 0n && i >= relay.floor && i <= relay.index) {
          counters.resumes++;
          sub.queue = relay.history.filter((item) => item.kind === 'events' && item.index > i);
        } else {
          sub.queue = i > 0n ? [NEW_SNAPSHOT, ...snapshotItems(relay)] : snapshotItems(relay);
        }
        relay.subs.add(sub);
        const onAbort = () => sub.wake?.();
        signal.addEventListener('abort', onAbort, { once: true });
        try {
          let pos = 0;
          while (!signal.aborted) {
            if (pos < sub.queue.length) {
              const item = sub.queue[pos++]!;
              if (pos > 256) {
                sub.queue = sub.queue.slice(pos);
                pos = 0;
              }
              yield item;
              continue;
            }
            if (sub.error) throw sub.error;
            await new Promise<void>((resolve) => (sub.wake = resolve));
            sub.wake = undefined;
          }
        } finally {
          signal.removeEventListener('abort', onAbort);
        }
      } finally {
        relay.watchers.delete(noop);
        relay.subs.delete(sub);
        release(relay);
      }
    }
    return stream();
  }

  return {
    subscribe,
    lastIndex: () => newest,
    onNewLog(listener) {
      newLog.add(listener);
      return () => newLog.delete(listener);
    },
    lastChangeIndex(request: Pick<SubscribeRequest, 'topic' | 'subject'>): bigint {
      try {
        return relays.get(`${request.topic}|${resolveSubject(request.topic, request.subject)}`)?.index ?? 0n;
      } catch {
        return 0n;
      }
    },
    async waitApplied(keys, index, signal) {
      const waits: Promise<void>[] = [];
      for (const key of keys) {
        const [topic] = key.split('|', 1);
        for (const k of [key, `${topic}|${SUBJECT_WILDCARD}`]) {
          const relay = relays.get(k);
          if (relay && (k === key || supportsWildcard(relay.topic))) waits.push(until(relay, () => relay.ready && relay.index >= index, signal));
        }
      }
      await Promise.all(waits);
    },
    stats(): PublisherStats {
      let subscribers = 0;
      for (const r of relays.values()) subscribers += r.subs.size;
      return { subscribers, buffers: relays.size, snapshotCacheHits: 0, snapshotCacheMisses: counters.snapshots, resumes: counters.resumes, slowConsumers: counters.slowConsumers };
    },
    close() {
      closed = true;
      for (const relay of [...relays.values()]) stopRelay(relay, new HubError('SHUTTING_DOWN', SHUTDOWN_MESSAGE));
    },
  };
}

function noop(): void {}
