// `GET /v1/xds/proxy-status` (`xdshub proxy-status`): per connected stream and
// type, whether the client holds what the hub serves it now — the pinned state
// for a node a rollout holds, the live one otherwise:
// - `synced`: every name it is offered, at the offered version, and nothing pending;
// - `nacked`: it holds something else, nothing is in flight, and it refused a response
//   (the last NACK); a later state that equals what it holds (a rollback) is `synced` again;
// - `stale`: it holds something else and a response is in flight or still to go.
// The state is worked out when asked, from the stream's ACKed versions, so a NACK
// stops counting the moment what the node holds is what it is offered again.
import type { ResourceProvider, XdsNode } from '../xds/transport/provider';
import { RESOURCE_TYPES } from '../xds/transport/resource-types';
import { coveredNames } from '../xds/transport/rules/subscription';
import type { XdsServer } from '../xds/transport/server';
import type { TypeState } from '../xds/transport/stream-state';

export type SyncState = 'synced' | 'stale' | 'nacked';

export interface TypeStatus {
  type: string;
  state: SyncState;
  /** SotW: the set version the client ACKed last ('' for Delta, which has none). */
  version: string;
  /** The log index the last ACKed response was built from (null: none ACKed on this stream yet). */
  index: string | null;
  /** How many resources the client holds / is offered. */
  held: number;
  offered: number;
  lastAckAt: string | null;
  lastNack: { message: string; at: string } | null;
}

export interface ProxyStatus {
  node: { id: string; cluster: string; userAgent: string };
  stream: number;
  transport: string;
  variant: string;
  connectedAt: string;
  /** Set while a rollout serves this node the state pinned before its change. */
  pinned: { rollout: string; index: string } | null;
  types: TypeStatus[];
}

/** Per stream and type, updated in place: every response and every ACK of every stream comes through here. */
interface LastAck {
  nonce: string;
  /** The index the response in flight stood for (turned into text only when read). */
  index: bigint;
  ackAt: number | undefined;
  ackIndex: bigint | null;
}

/** The most streams whose last ACK is remembered; the oldest go first (closed streams are dropped when read). */
const MAX_TRACKED = 100_000;

/** What the tracker reads of the transport's sent/answered reports (src/xds/transport/observer.ts). */
interface Sent {
  stream: number;
  typeUrl: string;
  nonce: string;
}

export interface StatusTracker {
  sent(e: Sent): void;
  answered(e: Sent & { error: unknown; at: number }): void;
  lastAck(stream: number, typeUrl: string): { at: number; index: string } | undefined;
  /** Forgets streams that are no longer live. */
  prune(live: ReadonlySet<number>): void;
}

/** Keeps, per stream and type, when the client last ACKed and the index that response stood for. */
export function createStatusTracker(index: () => bigint): StatusTracker {
  const byStream = new Map<number, Map<string, LastAck>>();
  return {
    sent(e) {
      let types = byStream.get(e.stream);
      if (!types) {
        if (byStream.size >= MAX_TRACKED) byStream.delete(byStream.keys().next().value!);
        byStream.set(e.stream, (types = new Map()));
      }
      const t = types.get(e.typeUrl);
      if (t) {
        t.nonce = e.nonce;
        t.index = index();
      } else types.set(e.typeUrl, { nonce: e.nonce, index: index(), ackAt: undefined, ackIndex: null });
    },
    answered(e) {
      const t = byStream.get(e.stream)?.get(e.typeUrl);
      if (!t || t.nonce !== e.nonce || e.error) return;
      t.ackAt = e.at;
      t.ackIndex = t.index;
    },
    lastAck(stream, typeUrl) {
      const t = byStream.get(stream)?.get(typeUrl);
      return t?.ackAt === undefined || t.ackIndex === null ? undefined : { at: t.ackAt, index: String(t.ackIndex) };
    },
    prune(live) {
      for (const id of byStream.keys()) if (!live.has(id)) byStream.delete(id);
    },
  };
}

/** synced / stale / nacked for one type of one stream, against what `provider` serves the node now. */
export function typeSync(
  st: TypeState,
  provider: ResourceProvider,
  typeUrl: string,
  node: XdsNode,
): { state: SyncState; held: number; offered: number } {
  const set = provider.get(typeUrl, node);
  const offered = coveredNames(st.sub, set).filter((n) => set.byName.has(n));
  let held = 0;
  let same = true;
  for (const [name, version] of st.acked) {
    held++;
    if (set.byName.get(name)?.version !== version || !(st.sub.wildcard || st.sub.names.has(name))) same = false;
  }
  if (held !== offered.length) same = false;
  const state: SyncState = same && !st.pending ? 'synced' : !st.pending && st.lastNack ? 'nacked' : 'stale';
  return { state, held, offered: offered.length };
}

export interface StatusDeps {
  xds(): XdsServer | undefined;
  /** What the xDS server serves: held nodes get the pinned state. */
  provider(): ResourceProvider;
  tracker: StatusTracker;
  /** The rollout holding `node`, if any. */
  pinnedFor(node: XdsNode): { rollout: string; index: string } | null;
}

export function proxyStatus(deps: StatusDeps): ProxyStatus[] {
  const streams = (deps.xds()?.streams() ?? []).filter((s) => s.node && !s.isClosed);
  deps.tracker.prune(new Set(streams.map((s) => s.id)));
  const provider = deps.provider();
  const out = streams.map((s): ProxyStatus => {
    const node = s.node!;
    const types = RESOURCE_TYPES.flatMap((t): TypeStatus[] => {
      const st = s.types.get(t.typeUrl);
      if (!st?.started) return [];
      const ack = deps.tracker.lastAck(s.id, t.typeUrl);
      const sync = typeSync(st, provider, t.typeUrl, node);
      const nack =
        sync.state === 'nacked' && st.lastNack
          ? { message: st.lastNack.message, at: new Date(st.lastNack.at).toISOString() }
          : null;
      return [
        {
          type: t.short,
          ...sync,
          version: st.ackedVersion,
          index: ack?.index ?? null,
          lastAckAt: ack ? new Date(ack.at).toISOString() : null,
          lastNack: nack,
        },
      ];
    });
    return {
      node: { id: node.id, cluster: node.cluster, userAgent: node.userAgent },
      stream: s.id,
      transport: s.transport,
      variant: s.variant,
      connectedAt: s.openedAt.toISOString(),
      pinned: deps.pinnedFor(node),
      types,
    };
  });
  return out.sort((a, b) => (a.node.id < b.node.id ? -1 : a.node.id > b.node.id ? 1 : a.stream - b.stream));
}
