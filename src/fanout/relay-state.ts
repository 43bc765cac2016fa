// A relay's state and how upstream items change it (src/fanout/relay.ts holds
// the streams): deliveries fold into the state and the history window, and a
// new upstream snapshot either resets everything (another log) or is diffed in.
import type { CatalogEvent, Topic } from '../catalog/types';
import { HubError } from '../errors';
import type { Backoff } from '../materializer/backoff';
import type { MaterializerLogger } from '../materializer/materializer';
import type { Source } from '../materializer/source';
import { RESET_MESSAGE, SLOW_MESSAGE } from '../subscribe/publisher';
import type { StreamItem, SubscribeRequest } from '../subscribe/types';

export interface Sub {
  queue: StreamItem[];
  error: HubError | undefined;
  wake: (() => void) | undefined;
}

export interface Relay {
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

/** Everything the relays of one publisher share. */
export interface RelayHub {
  source: Source;
  backoff: (() => Backoff) | undefined;
  logger: MaterializerLogger;
  historyMax: number;
  maxLag: number;
  idleTtlMs: number;
  relays: Map<string, Relay>;
  counters: { resumes: number; slowConsumers: number; snapshots: number };
  closed: boolean;
  /** The newest upstream index any relay holds. */
  newest: bigint;
  newLog: Set<() => void>;
}

type Events = StreamItem & { kind: 'events' };

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

export function fold(state: Map<string, CatalogEvent>, event: CatalogEvent): void {
  if (isRemoval(event)) state.delete(identity(event));
  else state.set(identity(event), event);
}

function removal(event: CatalogEvent, index: bigint): CatalogEvent {
  const p = event.payload;
  const payload = p.type === 'config-entry' ? { ...p, op: 'delete' as const } : { ...p, op: 'deregister' as const };
  return { ...event, index, payload } as CatalogEvent;
}

export function notify(hub: RelayHub, relay: Relay): void {
  if (relay.index > hub.newest) hub.newest = relay.index;
  for (const w of [...relay.watchers]) w();
}

export function end(relay: Relay, sub: Sub, err: HubError): void {
  sub.error ??= err;
  relay.subs.delete(sub);
  sub.wake?.();
}

export function deliver(hub: RelayHub, relay: Relay, item: Events): void {
  for (const e of item.events) fold(relay.state, e);
  if (item.index > relay.index) relay.index = item.index;
  relay.history.push(item);
  // A client at or past the dropped item's index still finds everything after it here.
  if (relay.history.length > hub.historyMax) relay.floor = (relay.history.shift() as Events).index;
  for (const sub of relay.subs) {
    sub.queue.push(item);
    if (sub.queue.length > hub.maxLag) {
      hub.counters.slowConsumers++;
      end(relay, sub, new HubError('SLOW_CONSUMER', SLOW_MESSAGE));
    } else sub.wake?.();
  }
  notify(hub, relay);
}

/** A complete snapshot from the upstream replaces the relay's state. */
export function install(hub: RelayHub, relay: Relay, next: Map<string, CatalogEvent>, index: bigint): void {
  hub.counters.snapshots++;
  if (!relay.ready || index < relay.index) replace(hub, relay, next, index);
  else diffIn(hub, relay, next, index);
}

/** The first snapshot, or one from another log (its index went backwards). */
function replace(hub: RelayHub, relay: Relay, next: Map<string, CatalogEvent>, index: bigint): void {
  if (relay.ready) {
    hub.logger.warn(
      { relay: relay.key, from: String(relay.index), to: String(index) },
      'upstream index went backwards: downstream streams reset',
    );
    for (const sub of [...relay.subs]) end(relay, sub, new HubError('SUBSCRIPTION_RESET', RESET_MESSAGE));
  }
  const replaced = relay.ready;
  Object.assign(relay, { state: next, index, ready: true, history: [], floor: index });
  if (replaced) hub.newest = index; // the old log's indexes mean nothing here any more
  notify(hub, relay);
  if (replaced) {
    // Every other relay still holds the old log: drop them all at once (their
    // readers resubscribe and get new relays), so the views are rebuilt once.
    for (const other of [...hub.relays.values()])
      if (other !== relay) stopRelay(hub, other, new HubError('SUBSCRIPTION_RESET', RESET_MESSAGE));
    for (const l of [...hub.newLog]) l();
  }
}

/** Same log, maybe further on: send what changed as live events, keep everything else. */
function diffIn(hub: RelayHub, relay: Relay, next: Map<string, CatalogEvent>, index: bigint): void {
  const diff: CatalogEvent[] = [];
  for (const [id, event] of next) {
    const old = relay.state.get(id);
    if (old === undefined || JSON.stringify(old.payload) !== JSON.stringify(event.payload))
      diff.push({ ...event, index });
  }
  for (const [id, event] of relay.state) if (!next.has(id)) diff.push(removal(event, index));
  if (diff.length > 0) deliver(hub, relay, { kind: 'events', index, events: diff });
  else if (index > relay.index) {
    relay.index = index;
    notify(hub, relay);
  }
}

export function stopRelay(hub: RelayHub, relay: Relay, err: HubError): void {
  relay.failed ??= err;
  if (hub.relays.get(relay.key) === relay) hub.relays.delete(relay.key);
  if (relay.idleTimer) clearTimeout(relay.idleTimer);
  relay.controller.abort();
  for (const sub of [...relay.subs]) end(relay, sub, err);
  notify(hub, relay);
}
