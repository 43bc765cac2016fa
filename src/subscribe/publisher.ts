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
import type { Authorizer } from '../acl/authorizer';
import { canReadEvent } from '../acl/catalog-rules';
import type { AclResolver } from '../acl/resolver';
import type { Catalog } from '../catalog/catalog';
import { type CatalogEvent, SUBJECT_WILDCARD, type Topic } from '../catalog/types';
import { HubError } from '../errors';
import { moduleLogger } from '../logger';
import { append, type BufferNode, createBuffer, type Reader, type TopicBuffer } from './buffer';
import { buildSnapshot, type Snapshot } from './snapshots';
import { resolveSubject, supportsWildcard, topicName } from './subjects';
import type { Publisher, StreamItem, SubscribeRequest, Subscription } from './types';

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

interface PublisherState {
  catalog: Catalog;
  snapshotCacheTtlMs: number;
  logger: Logger;
  maxLag: number;
  lagCheckEvery: number;
  buffers: Map<string, TopicBuffer>;
  cache: Map<string, CacheEntry>;
  subs: Set<Sub>;
  lastChange: Map<string, bigint>;
  trackedFrom: bigint;
  closed: boolean;
  counters: { snapshotCacheHits: number; snapshotCacheMisses: number; resumes: number; slowConsumers: number };
}

export function createPublisher(options: PublisherOptions): HubPublisher {
  const { catalog } = options;
  const maxLag = options.maxLag ?? DEFAULT_MAX_LAG;
  const p: PublisherState = {
    catalog,
    snapshotCacheTtlMs: options.snapshotCacheTtlMs,
    logger: moduleLogger(options.logger, 'subscribe'),
    maxLag,
    lagCheckEvery: Math.max(1, Math.floor(maxLag / 16)),
    buffers: new Map(),
    cache: new Map(),
    subs: new Set(),
    lastChange: new Map(),
    trackedFrom: catalog.lastIndex(),
    closed: false,
    counters: { snapshotCacheHits: 0, snapshotCacheMisses: 0, resumes: 0, slowConsumers: 0 },
  };
  const offApplied = catalog.onApplied((index, events) => applied(p, index, events));
  const offReset = catalog.onReset((index) => {
    p.logger.info({ index, subscribers: p.subs.size }, 'state replaced: ending every subscription with a reset');
    endAll(p, new HubError('SUBSCRIPTION_RESET', RESET_MESSAGE));
    p.lastChange = new Map();
    p.trackedFrom = index;
  });
  const offAcl = options.acl?.onChange((affected) => {
    const ended = [...p.subs].filter(
      (s) => s.accessor !== undefined && (affected === 'all' || affected.includes(s.accessor)),
    );
    if (ended.length === 0) return;
    p.logger.info({ subscribers: ended.length }, 'token rights changed: ending its subscriptions with a reset');
    for (const sub of ended) end(sub, new HubError('SUBSCRIPTION_RESET', RESET_MESSAGE));
  });
  return {
    subscribe: (request, signal) => subscribe(p, request, signal),
    close() {
      if (p.closed) return;
      p.closed = true;
      offApplied();
      offReset();
      offAcl?.();
      endAll(p, new HubError('SHUTTING_DOWN', SHUTDOWN_MESSAGE));
    },
    stats: () => ({ subscribers: p.subs.size, buffers: p.buffers.size, ...p.counters }),
    lastChangeIndex: (request) =>
      p.lastChange.get(`${request.topic}|${resolveSubject(request.topic, request.subject)}`) ?? p.trackedFrom,
  };
}

/** An entry the catalog applied: its events go to the buffers that have readers. */
function applied(p: PublisherState, index: bigint, events: readonly CatalogEvent[]): void {
  if (events.length === 0) return;
  const groups = new Map<TopicBuffer, CatalogEvent[]>();
  const route = (key: string, event: CatalogEvent): void => {
    p.lastChange.set(key, index);
    const buffer = p.buffers.get(key);
    if (buffer === undefined) return; // nobody listens: a later subscriber starts from a snapshot
    const group = groups.get(buffer);
    if (group === undefined) groups.set(buffer, [event]);
    else group.push(event);
  };
  for (const event of events) {
    route(`${event.topic}|${event.subject}`, event);
    if (supportsWildcard(event.topic)) route(`${event.topic}|${SUBJECT_WILDCARD}`, event);
  }
  if (p.lastChange.size > MAX_TRACKED_SUBJECTS) {
    p.lastChange = new Map();
    p.trackedFrom = index;
  }
  for (const [buffer, group] of groups) {
    const node = append(buffer, { kind: 'events', index, events: group });
    if (node.seq % p.lagCheckEvery === 0) endLaggards(p, buffer, node.seq);
  }
}

function endLaggards(p: PublisherState, buffer: TopicBuffer, headSeq: number): void {
  const { maxLag } = p;
  for (const reader of buffer.readers) {
    const sub = reader as Sub;
    const lag = headSeq - sub.pos.seq;
    if (lag > maxLag) {
      p.counters.slowConsumers++;
      p.logger.warn({ key: buffer.key, lag, maxLag }, 'ending slow subscriber');
      end(sub, new HubError('SLOW_CONSUMER', SLOW_MESSAGE));
    }
  }
}

function acquire(p: PublisherState, key: string): TopicBuffer {
  let buffer = p.buffers.get(key);
  if (buffer === undefined) {
    buffer = createBuffer(key);
    p.buffers.set(key, buffer);
  }
  buffer.refs++;
  return buffer;
}

function release(p: PublisherState, buffer: TopicBuffer): void {
  buffer.refs--;
  if (buffer.refs === 0 && p.buffers.get(buffer.key) === buffer) p.buffers.delete(buffer.key);
}

function evict(p: PublisherState, key: string): void {
  const entry = p.cache.get(key);
  if (entry === undefined) return;
  p.cache.delete(key);
  if (entry.timer !== undefined) clearTimeout(entry.timer);
  release(p, entry.buffer);
}

function snapshotFor(p: PublisherState, key: string, topic: Topic, subject: string, buffer: TopicBuffer): CacheEntry {
  const hit = p.cache.get(key);
  // A cached snapshot whose catch-up tail is already half the lag window would
  // start its subscriber near the slow-consumer line: rebuild instead.
  if (hit !== undefined && buffer.tail.seq - hit.pos.seq <= p.maxLag / 2) {
    p.counters.snapshotCacheHits++;
    return hit;
  }
  evict(p, key);
  p.counters.snapshotCacheMisses++;
  const entry: CacheEntry = {
    snapshot: buildSnapshot(p.catalog, topic, subject),
    pos: buffer.tail,
    buffer,
    timer: undefined,
  };
  if (p.snapshotCacheTtlMs > 0) {
    buffer.refs++; // the cached position must keep receiving items
    entry.timer = setTimeout(() => evict(p, key), p.snapshotCacheTtlMs);
    entry.timer.unref();
    p.cache.set(key, entry);
  }
  return entry;
}

function canResume(p: PublisherState, key: string, index: bigint): boolean {
  if (index > p.catalog.lastIndex()) return false; // from another log or from the future
  return (p.lastChange.get(key) ?? p.trackedFrom) <= index;
}

function end(sub: Sub, error: HubError | undefined): void {
  if (sub.done) return;
  sub.done = true;
  sub.error = error;
  sub.detach();
  if (error !== undefined) sub.resolveClosed(error);
  sub.wake();
}

function endAll(p: PublisherState, error: HubError): void {
  for (const sub of [...p.subs]) end(sub, error);
  for (const key of [...p.cache.keys()]) evict(p, key);
}

function applyFilter(item: StreamItem, authz: Authorizer | undefined): StreamItem | undefined {
  if (authz === undefined || authz.allowsAll || item.kind !== 'events') return item;
  const kept = item.events.filter((e) => canReadEvent(authz, e));
  if (kept.length === item.events.length) return item; // same object: its encoding stays shared
  return kept.length === 0 ? undefined : { kind: 'events', index: item.index, events: kept };
}

async function* iterate(
  sub: Sub,
  prefix: readonly (readonly StreamItem[])[],
  token: Authorizer | undefined,
): AsyncGenerator<StreamItem> {
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

/** Where a new subscriber starts: live from the buffer's tail (resume), or after a snapshot. */
function startOf(
  p: PublisherState,
  request: SubscribeRequest,
  key: string,
  subject: string,
  buffer: TopicBuffer,
): { prefix: (readonly StreamItem[])[]; pos: BufferNode } {
  if (request.index > 0n && canResume(p, key, request.index)) {
    p.counters.resumes++;
    return { prefix: [], pos: buffer.tail };
  }
  let entry: CacheEntry;
  try {
    entry = snapshotFor(p, key, request.topic, subject, buffer);
  } catch (err) {
    release(p, buffer); // a failed snapshot must not pin the buffer
    throw err;
  }
  const framing = request.index > 0n ? [NEW_SNAPSHOT] : [];
  return { prefix: [framing, entry.snapshot.items, [entry.snapshot.end]], pos: entry.pos };
}

function subscribe(p: PublisherState, request: SubscribeRequest, signal: AbortSignal): Subscription {
  if (p.closed) throw new HubError('SHUTTING_DOWN', SHUTDOWN_MESSAGE);
  const subject = resolveSubject(request.topic, request.subject);
  const key = `${request.topic}|${subject}`;
  const buffer = acquire(p, key);
  const { prefix, pos } = startOf(p, request, key, subject, buffer);
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
      p.subs.delete(sub);
      buffer.readers.delete(sub);
      buffer.waiting.delete(sub);
      signal.removeEventListener('abort', onAbort);
      release(p, buffer);
    },
  };
  p.subs.add(sub);
  buffer.readers.add(sub);
  if (signal.aborted) end(sub, undefined);
  else signal.addEventListener('abort', onAbort, { once: true });
  p.logger.debug({ topic: topicName(request.topic), subject, index: String(request.index) }, 'subscribed');
  return Object.assign(iterate(sub, prefix, request.authorizer), { closed: closedPromise });
}
