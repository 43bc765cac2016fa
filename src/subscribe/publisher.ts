// The event publisher: fed synchronously by the catalog's applied entries, it
// appends each entry's events to the (topic, subject) buffers that have
// readers, serves snapshots (cached per subject for a TTL) and decides between
// resume and a new snapshot for returning clients.
//
// Resume rule. A client presenting index i > 0 resumes (live events only, no
// framing) when no event for its subject can lie in (i, now]: i ≤ the catalog's
// last index and the subject's last change ≤ i. The publisher records the last
// change index of every (topic, subject) it sees applied; for a subject it has
// not seen change since it started (or since a reset) it uses that starting
// index as an upper bound, which errs towards a new snapshot, never towards a
// missed event. Consul resumes only when i equals the newest item in a live
// buffer; this rule accepts that case and also a client whose index is a
// snapshot index newer than the subject's last change.
import type { Logger } from 'pino';
import type { Catalog } from '../catalog/catalog';
import { SUBJECT_WILDCARD, type CatalogEvent, type Topic } from '../catalog/types';
import { HubError } from '../errors';
import { moduleLogger } from '../logger';
import { append, createBuffer, type BufferNode, type Reader, type TopicBuffer } from './buffer';
import { buildSnapshot, type Snapshot } from './snapshots';
import { resolveSubject, supportsWildcard, topicName } from './subjects';
import type { Publisher, StreamItem, SubscribeRequest, Subscription } from './types';
import type { Authorizer } from '../acl/authorizer';
import { canReadEvent } from '../acl/catalog-rules';
import type { AclResolver } from '../acl/resolver';

export const RESET_MESSAGE = 'subscription closed by server, client must reset state and resubscribe';
export const SHUTDOWN_MESSAGE = 'subscription closed by server, server is shutting down';
export const SLOW_MESSAGE = 'subscriber too slow';
export const DEFAULT_MAX_LAG = 4096;
/** Past this many tracked subjects the change map is dropped and its floor raised (safe: only costs snapshots). */
const MAX_TRACKED_SUBJECTS = 200_000;

export interface PublisherOptions {
  catalog: Catalog;
  snapshotCacheTtlMs: number;
  logger: Logger;
  /** Items a subscriber may fall behind its buffer's newest item before it is ended with SLOW_CONSUMER. */
  maxLag?: number;
  /** Token changes: subscriptions whose token's rights may have moved end with SUBSCRIPTION_RESET (the client resubscribes and is checked again). */
  acl?: Pick<AclResolver, 'onChange'>;
}

export interface PublisherStats {
  subscribers: number;
  buffers: number;
  snapshotCacheHits: number;
  snapshotCacheMisses: number;
  resumes: number;
  slowConsumers: number;
}

export interface HubPublisher extends Publisher {
  stats(): PublisherStats;
  /**
   * The index a caught-up subscriber of this request holds at least: the last
   * change to its (topic, subject), or the index tracking started from. Readers
   * use it for read-your-writes on views fed by this publisher.
   */
  lastChangeIndex(request: Pick<SubscribeRequest, 'topic' | 'subject'>): bigint;
}

const NEW_SNAPSHOT: StreamItem = Object.freeze({ kind: 'new-snapshot-to-follow' });

interface Sub extends Reader {
  buffer: TopicBuffer;
  /** AccessorID of the subscription's token, when it has one (ACL changes end it). */
  accessor: string | undefined;
  done: boolean;
  error: HubError | undefined;
  parked: (() => void) | undefined;
  resolveClosed: (err: HubError) => void;
  detach: () => void;
}

interface CacheEntry {
  snapshot: Snapshot;
  /** The buffer's tail when the snapshot was built: live items continue from here. */
  pos: BufferNode;
  buffer: TopicBuffer;
  timer: NodeJS.Timeout | undefined;
}

export function createPublisher(options: PublisherOptions): HubPublisher {
  const { catalog } = options;
  const logger = moduleLogger(options.logger, 'subscribe');
  const maxLag = options.maxLag ?? DEFAULT_MAX_LAG;
  const lagCheckEvery = Math.max(1, Math.floor(maxLag / 16));
  const buffers = new Map<string, TopicBuffer>();
  const cache = new Map<string, CacheEntry>();
  const subs = new Set<Sub>();
  let lastChange = new Map<string, bigint>();
  let trackedFrom = catalog.lastIndex();
  let closed = false;
  const counters = { snapshotCacheHits: 0, snapshotCacheMisses: 0, resumes: 0, slowConsumers: 0 };

  const offApplied = catalog.onApplied((index, events) => {
    if (events.length === 0) return;
    const groups = new Map<TopicBuffer, CatalogEvent[]>();
    const route = (key: string, event: CatalogEvent): void => {
      lastChange.set(key, index);
      const buffer = buffers.get(key);
      if (buffer === undefined) return; // nobody listens: a later subscriber starts from a snapshot
      const group = groups.get(buffer);
      if (group === undefined) groups.set(buffer, [event]);
      else group.push(event);
    };
    for (const event of events) {
      route(`${event.topic}|${event.subject}`, event);
      if (supportsWildcard(event.topic)) route(`${event.topic}|${SUBJECT_WILDCARD}`, event);
    }
    if (lastChange.size > MAX_TRACKED_SUBJECTS) {
      lastChange = new Map();
      trackedFrom = index;
    }
    for (const [buffer, group] of groups) {
      const node = append(buffer, { kind: 'events', index, events: group });
      if (node.seq % lagCheckEvery === 0) endLaggards(buffer, node.seq);
    }
  });

  const offReset = catalog.onReset((index) => {
    logger.info({ index, subscribers: subs.size }, 'state replaced: ending every subscription with a reset');
    endAll(new HubError('SUBSCRIPTION_RESET', RESET_MESSAGE));
    lastChange = new Map();
    trackedFrom = index;
  });

  const offAcl = options.acl?.onChange((affected) => {
    const ended = [...subs].filter((s) => s.accessor !== undefined && (affected === 'all' || affected.includes(s.accessor)));
    if (ended.length === 0) return;
    logger.info({ subscribers: ended.length }, 'token rights changed: ending its subscriptions with a reset');
    for (const sub of ended) end(sub, new HubError('SUBSCRIPTION_RESET', RESET_MESSAGE));
  });

  function endLaggards(buffer: TopicBuffer, headSeq: number): void {
    for (const reader of buffer.readers) {
      const sub = reader as Sub;
      const lag = headSeq - sub.pos.seq;
      if (lag > maxLag) {
        counters.slowConsumers++;
        logger.warn({ key: buffer.key, lag, maxLag }, 'ending slow subscriber');
        end(sub, new HubError('SLOW_CONSUMER', SLOW_MESSAGE));
      }
    }
  }

  function acquire(key: string): TopicBuffer {
    let buffer = buffers.get(key);
    if (buffer === undefined) {
      buffer = createBuffer(key);
      buffers.set(key, buffer);
    }
    buffer.refs++;
    return buffer;
  }

  function release(buffer: TopicBuffer): void {
    buffer.refs--;
    if (buffer.refs === 0 && buffers.get(buffer.key) === buffer) buffers.delete(buffer.key);
  }

  function evict(key: string): void {
    const entry = cache.get(key);
    if (entry === undefined) return;
    cache.delete(key);
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    release(entry.buffer);
  }

  function snapshotFor(key: string, topic: Topic, subject: string, buffer: TopicBuffer): CacheEntry {
    const hit = cache.get(key);
    // A cached snapshot whose catch-up tail is already half the lag window would
    // start its subscriber near the slow-consumer line: rebuild instead.
    if (hit !== undefined && buffer.tail.seq - hit.pos.seq <= maxLag / 2) {
      counters.snapshotCacheHits++;
      return hit;
    }
    evict(key);
    counters.snapshotCacheMisses++;
    const entry: CacheEntry = { snapshot: buildSnapshot(catalog, topic, subject), pos: buffer.tail, buffer, timer: undefined };
    if (options.snapshotCacheTtlMs > 0) {
      buffer.refs++; // the cached position must keep receiving items
      entry.timer = setTimeout(() => evict(key), options.snapshotCacheTtlMs);
      entry.timer.unref();
      cache.set(key, entry);
    }
    return entry;
  }

  function canResume(key: string, index: bigint): boolean {
    if (index > catalog.lastIndex()) return false; // from another log or from the future
    return (lastChange.get(key) ?? trackedFrom) <= index;
  }

  function end(sub: Sub, error: HubError | undefined): void {
    if (sub.done) return;
    sub.done = true;
    sub.error = error;
    sub.detach();
    if (error !== undefined) sub.resolveClosed(error);
    sub.wake();
  }

  function endAll(error: HubError): void {
    for (const sub of [...subs]) end(sub, error);
    for (const key of [...cache.keys()]) evict(key);
  }

  function applyFilter(item: StreamItem, authz: Authorizer | undefined): StreamItem | undefined {
    if (authz === undefined || authz.allowsAll || item.kind !== 'events') return item;
    const kept = item.events.filter((e) => canReadEvent(authz, e));
    if (kept.length === item.events.length) return item; // same object: its encoding stays shared
    return kept.length === 0 ? undefined : { kind: 'events', index: item.index, events: kept };
  }

  async function* iterate(sub: Sub, prefix: readonly (readonly StreamItem[])[], token: Authorizer | undefined): AsyncGenerator<StreamItem> {
    try {
      for (const part of prefix) {
        for (const item of part) {
          if (sub.done) break;
          const out = applyFilter(item, token);
          if (out !== undefined) yield out;
        }
      }
      while (!sub.done) {
        const next = sub.pos.next;
        if (next === undefined) {
          await new Promise<void>((resolve) => {
            sub.parked = resolve;
            sub.buffer.waiting.add(sub);
          });
          continue;
        }
        sub.pos = next;
        const out = applyFilter(next.item as StreamItem, token);
        if (out !== undefined) yield out;
      }
      if (sub.error !== undefined) throw sub.error;
    } finally {
      end(sub, undefined);
    }
  }

  function subscribe(request: SubscribeRequest, signal: AbortSignal): Subscription {
    if (closed) throw new HubError('SHUTTING_DOWN', SHUTDOWN_MESSAGE);
    const subject = resolveSubject(request.topic, request.subject);
    const key = `${request.topic}|${subject}`;
    const buffer = acquire(key);
    let prefix: (readonly StreamItem[])[];
    let pos: BufferNode;
    if (request.index > 0n && canResume(key, request.index)) {
      counters.resumes++;
      prefix = [];
      pos = buffer.tail;
    } else {
      let entry: CacheEntry;
      try {
        entry = snapshotFor(key, request.topic, subject, buffer);
      } catch (err) {
        release(buffer); // a failed snapshot must not pin the buffer
        throw err;
      }
      const framing = request.index > 0n ? [NEW_SNAPSHOT] : [];
      prefix = [framing, entry.snapshot.items, [entry.snapshot.end]];
      pos = entry.pos;
    }
    let resolveClosed: (err: HubError) => void = () => {};
    const closedPromise = new Promise<HubError>((resolve) => (resolveClosed = resolve));
    const onAbort = (): void => end(sub, undefined);
    const sub: Sub = {
      buffer,
      accessor: request.authorizer?.accessorId,
      pos,
      done: false,
      error: undefined,
      parked: undefined,
      resolveClosed,
      wake() {
        const parked = sub.parked;
        sub.parked = undefined;
        parked?.();
      },
      detach() {
        subs.delete(sub);
        buffer.readers.delete(sub);
        buffer.waiting.delete(sub);
        signal.removeEventListener('abort', onAbort);
        release(buffer);
      },
    };
    subs.add(sub);
    buffer.readers.add(sub);
    if (signal.aborted) end(sub, undefined);
    else signal.addEventListener('abort', onAbort, { once: true });
    logger.debug({ topic: topicName(request.topic), subject, index: String(request.index) }, 'subscribed');
    return Object.assign(iterate(sub, prefix, request.authorizer), { closed: closedPromise });
  }

  return {
    subscribe,
    close() {
      if (closed) return;
      closed = true;
      offApplied();
      offReset();
      offAcl?.();
      endAll(new HubError('SHUTTING_DOWN', SHUTDOWN_MESSAGE));
    },
    stats: () => ({ subscribers: subs.size, buffers: buffers.size, ...counters }),
    lastChangeIndex: (request) => lastChange.get(`${request.topic}|${resolveSubject(request.topic, request.subject)}`) ?? trackedFrom,
  };
}
