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
import { type CatalogEvent, SUBJECT_WILDCARD } from '../catalog/types';
import { HubError } from '../errors';
import { type Backoff, createBackoff, sleep } from '../materializer/backoff';
import type { MaterializerLogger } from '../materializer/materializer';
import { classifyError, type Source, toHubError } from '../materializer/source';
import { DEFAULT_MAX_LAG, type HubPublisher, type PublisherStats, SHUTDOWN_MESSAGE } from '../subscribe/publisher';
import { isHealthTopic, resolveSubject, supportsWildcard } from '../subscribe/subjects';
import type { StreamItem, SubscribeRequest, Subscription } from '../subscribe/types';
import { deliver, fold, install, type Relay, type RelayHub, type Sub, stopRelay } from './relay-state';

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

const silent: MaterializerLogger = { debug() {}, info() {}, warn() {}, error() {} };
const NEW_SNAPSHOT: StreamItem = Object.freeze({ kind: 'new-snapshot-to-follow' });

/** One upstream stream, until it fails or the relay stops. Returns the error to retry on. */
async function attempt(hub: RelayHub, relay: Relay, backoff: Backoff): Promise<HubError | undefined> {
  const resume = relay.ready && !relay.fresh ? relay.index : 0n;
  relay.fresh = false;
  let collecting: Map<string, CatalogEvent> | undefined = resume === 0n ? new Map() : undefined;
  const controller = new AbortController();
  const stop = () => controller.abort();
  relay.controller.signal.addEventListener('abort', stop, { once: true });
  try {
    for await (const item of hub.source.subscribe({ ...relay.request, index: resume }, controller.signal)) {
      backoff.reset();
      if (item.kind === 'new-snapshot-to-follow') collecting = new Map();
      else if (item.kind === 'end-of-snapshot') {
        if (!collecting) throw new HubError('INTERNAL', `EndOfSnapshot at index ${item.index} outside a snapshot`);
        install(hub, relay, collecting, item.index);
        collecting = undefined;
      } else if (collecting) for (const e of item.events) fold(collecting, e);
      else deliver(hub, relay, item);
    }
    return relay.controller.signal.aborted
      ? undefined
      : new HubError('SHUTTING_DOWN', 'subscription ended by the upstream');
  } catch (err) {
    return relay.controller.signal.aborted ? undefined : toHubError(err);
  } finally {
    relay.controller.signal.removeEventListener('abort', stop);
    controller.abort();
  }
}

async function run(hub: RelayHub, relay: Relay): Promise<void> {
  const backoff = hub.backoff?.() ?? createBackoff({ maxMs: UPSTREAM_RETRY_MAX_MS });
  const signal = relay.controller.signal;
  while (!signal.aborted) {
    const err = await attempt(hub, relay, backoff);
    if (err === undefined || signal.aborted) break;
    const kind = classifyError(err);
    if (kind === 'terminal') {
      hub.logger.warn({ relay: relay.key, err }, 'upstream refused the subscription');
      stopRelay(hub, relay, err);
      return;
    }
    // A reset upstream: ask for a fresh snapshot (diffed in by install()); keep serving the old state meanwhile.
    if (kind === 'reset') relay.fresh = true;
    const delay = backoff.next();
    hub.logger.debug(
      { relay: relay.key, err, kind, failures: backoff.failures, delay },
      'upstream stream failed; reconnecting',
    );
    await sleep(delay, signal);
  }
}

function newRelay(key: string, request: SubscribeRequest): Relay {
  return {
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
}

function acquire(hub: RelayHub, request: SubscribeRequest): Relay {
  if (hub.closed) throw new HubError('SHUTTING_DOWN', SHUTDOWN_MESSAGE);
  const subject = resolveSubject(request.topic, request.subject); // INVALID_ARGUMENT before anything starts
  const key = `${request.topic}|${subject}`;
  let relay = hub.relays.get(key);
  if (!relay) {
    const created = newRelay(key, request);
    relay = created;
    hub.relays.set(key, created);
    void run(hub, created);
  }
  if (relay.idleTimer) clearTimeout(relay.idleTimer);
  relay.idleTimer = undefined;
  return relay;
}

function release(hub: RelayHub, relay: Relay): void {
  if (relay.subs.size > 0 || relay.watchers.size > 0 || hub.relays.get(relay.key) !== relay) return;
  relay.idleTimer ??= setTimeout(() => {
    relay.idleTimer = undefined;
    if (relay.subs.size === 0 && relay.watchers.size === 0)
      stopRelay(hub, relay, new HubError('SHUTTING_DOWN', SHUTDOWN_MESSAGE));
  }, hub.idleTtlMs);
  relay.idleTimer.unref();
}

/** Resolves when `done()` holds, re-checked on every change of the relay, or when `signal` aborts. */
function until(hub: RelayHub, relay: Relay, done: () => boolean, signal: AbortSignal): Promise<void> {
  if (done() || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const check = () => {
      if (!done() && !signal.aborted && relay.failed === undefined && !hub.closed) return;
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

/** What a new subscriber is sent first: the history after its index, or a snapshot. */
function firstItems(hub: RelayHub, relay: Relay, i: bigint): StreamItem[] {
  if (i > 0n && i >= relay.floor && i <= relay.index) {
    hub.counters.resumes++;
    return relay.history.filter((item) => item.kind === 'events' && item.index > i);
  }
  return i > 0n ? [NEW_SNAPSHOT, ...snapshotItems(relay)] : snapshotItems(relay);
}

/** Yields the subscriber's queue as it fills, until `signal` aborts or the relay ends it. */
async function* drain(sub: Sub, signal: AbortSignal): AsyncGenerator<StreamItem> {
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
}

function subscribe(hub: RelayHub, request: SubscribeRequest, signal: AbortSignal): Subscription {
  const relay = acquire(hub, request);
  const sub: Sub = { queue: [], error: undefined, wake: undefined };
  relay.watchers.add(noop); // holds the relay while this subscriber waits for its first snapshot
  async function* stream(): AsyncGenerator<StreamItem> {
    try {
      await until(hub, relay, () => relay.ready, signal);
      relay.watchers.delete(noop);
      if (signal.aborted) return;
      if (relay.failed) throw relay.failed;
      if (hub.closed) throw new HubError('SHUTTING_DOWN', SHUTDOWN_MESSAGE);
      sub.queue = firstItems(hub, relay, request.index);
      relay.subs.add(sub);
      yield* drain(sub, signal);
    } finally {
      relay.watchers.delete(noop);
      relay.subs.delete(sub);
      release(hub, relay);
    }
  }
  return stream();
}

async function waitApplied(hub: RelayHub, keys: readonly string[], index: bigint, signal: AbortSignal): Promise<void> {
  const waits: Promise<void>[] = [];
  for (const key of keys) {
    const [topic] = key.split('|', 1);
    for (const k of [key, `${topic}|${SUBJECT_WILDCARD}`]) {
      const relay = hub.relays.get(k);
      if (relay && (k === key || supportsWildcard(relay.topic)))
        waits.push(until(hub, relay, () => relay.ready && relay.index >= index, signal));
    }
  }
  await Promise.all(waits);
}

function stats(hub: RelayHub): PublisherStats {
  let subscribers = 0;
  for (const r of hub.relays.values()) subscribers += r.subs.size;
  const { counters } = hub;
  return {
    subscribers,
    buffers: hub.relays.size,
    snapshotCacheHits: 0,
    snapshotCacheMisses: counters.snapshots,
    resumes: counters.resumes,
    slowConsumers: counters.slowConsumers,
  };
}

export function createRelayPublisher(options: RelayPublisherOptions): RelayPublisher {
  const hub: RelayHub = {
    source: options.source,
    backoff: options.backoff,
    logger: options.logger ?? silent,
    historyMax: options.history ?? 1024,
    maxLag: options.maxLag ?? DEFAULT_MAX_LAG,
    idleTtlMs: options.idleTtlMs ?? 60_000,
    relays: new Map(),
    counters: { resumes: 0, slowConsumers: 0, snapshots: 0 },
    closed: false,
    newest: 0n,
    newLog: new Set(),
  };
  return {
    subscribe: (request, signal) => subscribe(hub, request, signal),
    lastIndex: () => hub.newest,
    onNewLog(listener) {
      hub.newLog.add(listener);
      return () => hub.newLog.delete(listener);
    },
    lastChangeIndex(request: Pick<SubscribeRequest, 'topic' | 'subject'>): bigint {
      try {
        return hub.relays.get(`${request.topic}|${resolveSubject(request.topic, request.subject)}`)?.index ?? 0n;
      } catch {
        return 0n;
      }
    },
    waitApplied: (keys, index, signal) => waitApplied(hub, keys, index, signal),
    stats: () => stats(hub),
    close() {
      hub.closed = true;
      for (const relay of [...hub.relays.values()])
        stopRelay(hub, relay, new HubError('SHUTTING_DOWN', SHUTDOWN_MESSAGE));
    },
  };
}

function noop(): void {}
