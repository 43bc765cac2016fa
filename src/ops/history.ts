// The per-node xDS history: every response the hub sent a node (time, the log
// index its resources were translated at, type, nonce, names and versions) and
// the node's answer (ACK, or NACK with its message). Without a store it lives
// in memory (a ring of `perNode` records per node, at most `maxNodes` nodes,
// least recently pushed forgotten first). With a store (history-sqlite.ts,
// history-redis.ts) the store holds it and reads come from there: memory keeps
// only the records still awaiting their answer, so a long-running hub does not
// hold perNode × nodes records that the store already has (and the GC does not
// trace them).
//
// Records share the transport's name → version maps (one map per response
// content, shared by every stream that got it), so a fleet that receives the
// same push costs one map, not one per node.
import { createHash } from 'node:crypto';
import type { AnswerEvent, SentEvent, XdsCallbacks } from '../xds/transport/callbacks';
import type { XdsNode } from '../xds/transport/provider';
import { type ResourceType, resourceTypeOf } from '../xds/transport/resource-types';

export type TypeShort = ResourceType['short'];

export interface Answer {
  ack: boolean;
  /** ms since the epoch. */
  at: number;
  code?: number;
  message?: string;
}

export interface HistoryRecord {
  /**
   * Per node, increasing; continues across restarts when the history is
   * stored. A store shared by several hubs numbers records as it writes them
   * (0 until then).
   */
  seq: number;
  /** The hub that sent it (its --node-name). */
  hub: string;
  at: number;
  /** The log index the pushed resources were translated at. */
  index: bigint;
  stream: number;
  type: TypeShort;
  nonce: string;
  variant: 'sotw' | 'delta';
  /** SotW set version; '' for Delta. */
  version: string;
  /** name → version; null = removed (Delta). */
  resources: ReadonlyMap<string, string | null>;
  answer: Answer | undefined;
}

export interface KnownNode {
  id: string;
  cluster: string;
  userAgent: string;
  configSource: XdsNode['configSource'];
}

/** What a fleet push's records share: its map (by identity), log index, type, variant, version and hub. */
export interface PushKey {
  resources: ReadonlyMap<string, string | null>;
  index: bigint;
  type: TypeShort;
  variant: 'sotw' | 'delta';
  version: string;
  hub: string;
}

/** The records of one push a store collects column by column (history-sqlite.ts): member i of it. */
export interface RecordedBatch {
  readonly size: number;
  readonly nonces: readonly string[];
  readonly streams: readonly number[];
  /** Member i as a record (for the event stream). */
  recordOf(i: number): HistoryRecord;
}

/** Where records outlive the process. Writes are buffered by the implementation and written in batches. */
export interface HistoryPersistence {
  /**
   * Column by column (a store that can): a new record's own part, with the
   * others of its push; the record is the returned batch's last member. The
   * push path then makes no object per record. `push` may be a value the
   * caller reuses (the store copies what it keeps). Absent: `save`.
   */
  record?(node: KnownNode, push: PushKey, seq: number, stream: number, nonce: string, at: number): RecordedBatch;
  /** The answer to member `i` of a batch `record` gave. */
  answer?(batch: RecordedBatch, i: number, ack: boolean, at: number, code?: number, message?: string): void;
  /**
   * The highest seq stored for a node (0 if none): this hub numbers the node's
   * records on from it. Absent: the store numbers records as it writes them
   * (several hubs write the same node's history) and sets `seq` on the record.
   */
  lastSeq?(node: string): number;
  /** Stored records of a node, oldest first, at most `limit` (the newest ones); buffered writes first. */
  load(node: string, limit: number): Promise<HistoryRecord[]>;
  /** Known nodes and their identity (for offline nodes in dry runs and the dashboard). */
  nodes(): Promise<KnownNode[]>;
  /** Saves a record; saving it again (answered) replaces it. */
  save(node: KnownNode, record: HistoryRecord): void;
  /** Writes what is buffered. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * For stores: a name → version map's JSON and a 32-hex hash of it, memoized per
 * map object (the transport shares one map per response content, and never
 * changes it), so a push to a fleet hashes once and is stored once.
 */
export function createSetHasher(): (m: ReadonlyMap<string, string | null>) => { hash: string; json: string } {
  const hashes = new WeakMap<ReadonlyMap<string, string | null>, { hash: string; json: string }>();
  return (m) => {
    let h = hashes.get(m);
    if (!h) {
      const json = JSON.stringify(Object.fromEntries(m));
      h = { hash: createHash('sha256').update(json).digest('hex').slice(0, 32), json };
      hashes.set(m, h);
    }
    return h;
  };
}

export interface HistoryOptions {
  /** Records kept per node (0 = history off). */
  perNode: number;
  /** This hub's name, recorded with each push. */
  hub: string;
  /** Most nodes kept in memory. */
  maxNodes?: number;
  /** The log index of the state the live provider last translated (index-tracker.ts). */
  index(): bigint;
  persistence?: HistoryPersistence;
  /** Told of each record as it is added or answered (the event stream). */
  onRecord?(node: string, record: HistoryRecord): void;
  /** Whether `onRecord` has anyone to tell now; absent: always (records are built only when someone listens). */
  listening?(): boolean;
}

export interface History extends XdsCallbacks {
  /** Records of a node, oldest first (at most `limit`, the newest). */
  of(node: string, limit?: number): Promise<HistoryRecord[]>;
  /** Every node the history knows (in memory or stored). */
  nodes(): Promise<KnownNode[]>;
  /** Records held in memory (instrumentation): without a store, the rings; with one, the pushes not answered yet. */
  held(): number;
  flush(): Promise<void>;
  close(): Promise<void>;
}

interface NodeSlot {
  node: KnownNode;
  /** The transport's node object `node` was made from: a stream reports the same object on every push. */
  source: XdsNode;
  /** Without a store: the node's history. With one that takes records whole: those awaiting an answer (oldest first, at most perNode). */
  records: Ring | HistoryRecord[];
  /** With a store that records column by column: the pushes awaiting an answer, as batch and index (oldest first, at most perNode). */
  batches: RecordedBatch[];
  indexes: number[];
  nextSeq: number;
  /** Neighbours in the order of the last push (Recency). */
  older: NodeSlot | undefined;
  newer: NodeSlot | undefined;
}

/**
 * The slots in the order they were last pushed, linked through the slots
 * themselves: a push moves its node to the newest end with a few pointer writes
 * (a Map delete and re-insert per push per node cost a rehash now and then).
 */
class Recency {
  oldest: NodeSlot | undefined;
  private newest: NodeSlot | undefined;
  touch(s: NodeSlot): void {
    if (this.newest === s) return;
    this.unlink(s);
    s.older = this.newest;
    if (this.newest) this.newest.newer = s;
    this.newest = s;
    this.oldest ??= s;
  }
  unlink(s: NodeSlot): void {
    if (s.older) s.older.newer = s.newer;
    else if (this.oldest === s) this.oldest = s.newer;
    if (s.newer) s.newer.older = s.older;
    else if (this.newest === s) this.newest = s.older;
    s.older = s.newer = undefined;
  }
}

/** A node's newest records, at most `cap`: a push overwrites the oldest in place (no copying). */
class Ring {
  private readonly buf: HistoryRecord[] = [];
  private start = 0;
  constructor(private readonly cap: number) {}
  /** Returns how many it holds (never more than `cap`). */
  push(r: HistoryRecord): number {
    if (this.buf.length < this.cap) this.buf.push(r);
    else {
      this.buf[this.start] = r;
      this.start = (this.start + 1) % this.cap;
    }
    return this.buf.length;
  }
  get length(): number {
    return this.buf.length;
  }
  /** The newest record with this nonce and stream, searching from the newest. */
  byNonce(nonce: string, stream: number): HistoryRecord | undefined {
    for (let i = this.buf.length - 1; i >= 0; i--) {
      const r = this.buf[(this.start + i) % this.buf.length]!;
      if (r.nonce === nonce && r.stream === stream) return r;
    }
    return undefined;
  }
  /** The newest `n`, oldest first. */
  newest(n: number): HistoryRecord[] {
    const len = this.buf.length;
    const out: HistoryRecord[] = [];
    for (let i = Math.max(0, len - n); i < len; i++) out.push(this.buf[(this.start + i) % len]!);
    return out;
  }
}

function newRecord(e: SentEvent, seq: number, hub: string, index: bigint, type: TypeShort): HistoryRecord {
  const { at, stream, nonce, variant, version, resources } = e;
  return { seq, hub, at, index, stream, type, nonce, variant, version, resources, answer: undefined };
}

/** The record a node's answer is for: with a store, taken out of the waiting list (the store has it from now on). */
function answeredRecord(records: Ring | HistoryRecord[], nonce: string, stream: number): HistoryRecord | undefined {
  if (records instanceof Ring) return records.byNonce(nonce, stream);
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i]!;
    if (r.nonce !== nonce || r.stream !== stream) continue;
    takeOut(records, i);
    return r;
  }
  return undefined;
}

/** Removes item `i`: nearly always the newest (one push waits per node), taken off the end without splice's array. */
function takeOut(list: unknown[], i: number): void {
  if (i === list.length - 1) list.pop();
  else list.splice(i, 1);
}

/** Nodes kept (in memory, and in a Redis store); the least recently pushed is forgotten first. */
export const MAX_HISTORY_NODES = 10_000;

export function createHistory(options: HistoryOptions): History {
  const { perNode, persistence } = options;
  const maxNodes = options.maxNodes ?? MAX_HISTORY_NODES;
  const slots = new Map<string, NodeSlot>();
  const recency = new Recency();

  function slotOf(node: XdsNode): NodeSlot {
    let slot = slots.get(node.id);
    if (!slot) {
      // A store that numbers records itself leaves them at 0 until written.
      const next = persistence ? (persistence.lastSeq ? persistence.lastSeq(node.id) + 1 : 0) : 1;
      const records = persistence ? [] : new Ring(perNode);
      slot = {
        node: known(node),
        source: node,
        records,
        batches: [],
        indexes: [],
        nextSeq: next,
        older: undefined,
        newer: undefined,
      };
      if (slots.size >= maxNodes) {
        // The least recently pushed is forgotten first.
        const oldest = recency.oldest!;
        recency.unlink(oldest);
        slots.delete(oldest.node.id);
      }
      slots.set(node.id, slot);
    }
    recency.touch(slot);
    return slot;
  }

  const listening = () => options.onRecord !== undefined && (options.listening?.() ?? true);

  function changed(slot: NodeSlot, record: HistoryRecord): void {
    persistence?.save(slot.node, record);
    if (listening()) options.onRecord!(slot.node.id, record);
  }
  // A store that records column by column gets each push through one reused key.
  const columns = persistence?.record ? persistence : undefined;
  const key: PushKey = {
    resources: new Map(),
    index: 0n,
    type: 'EDS',
    variant: 'delta',
    version: '',
    hub: options.hub,
  };

  /** A push recorded column by column: one entry per column of its push's batch, no object. */
  function recordColumns(store: HistoryPersistence, slot: NodeSlot, e: SentEvent, type: TypeShort): void {
    key.resources = e.resources;
    key.index = options.index();
    key.type = type;
    key.variant = e.variant;
    key.version = e.version;
    const seq = slot.nextSeq === 0 ? 0 : slot.nextSeq++;
    const b = store.record!(slot.node, key, seq, e.stream, e.nonce, e.at);
    const i = b.size - 1;
    slot.batches.push(b);
    slot.indexes.push(i);
    // A push never answered (the stream ended first) is dropped once perNode newer ones wait.
    if (slot.batches.length > perNode) {
      slot.batches.shift();
      slot.indexes.shift();
    }
    if (listening()) options.onRecord!(slot.node.id, b.recordOf(i));
  }

  /** An answer to a push recorded column by column: taken out of the waiting list, told to the store. */
  function answerColumns(store: HistoryPersistence, slot: NodeSlot, e: AnswerEvent): void {
    const { batches, indexes } = slot;
    for (let j = batches.length - 1; j >= 0; j--) {
      const b = batches[j]!;
      const i = indexes[j]!;
      if (b.nonces[i] !== e.nonce || b.streams[i] !== e.stream) continue;
      takeOut(batches, j);
      takeOut(indexes, j);
      store.answer!(b, i, !e.error, e.at, e.error?.code, e.error?.message);
      if (listening()) options.onRecord!(slot.node.id, b.recordOf(i));
      return;
    }
  }

  return {
    sent(e: SentEvent) {
      if (perNode <= 0) return;
      const type = resourceTypeOf(e.typeUrl);
      if (!type) return;
      const slot = slotOf(e.node);
      if (slot.source !== e.node) {
        slot.source = e.node;
        // A new node object with the same identity (a reconnect) keeps the KnownNode: the stores compare it by reference first.
        if (!sameIdentity(slot.node, e.node)) slot.node = known(e.node);
      }
      if (columns) return recordColumns(columns, slot, e, type.short);
      const record = newRecord(e, slot.nextSeq === 0 ? 0 : slot.nextSeq++, options.hub, options.index(), type.short);
      // With a store, a push that is never answered (the stream ended first) is dropped once perNode newer ones wait.
      if (slot.records.push(record) > perNode && Array.isArray(slot.records)) slot.records.shift();
      changed(slot, record);
    },
    answered(e: AnswerEvent) {
      if (perNode <= 0) return;
      const slot = slots.get(e.node.id);
      if (slot && columns) return answerColumns(columns, slot, e);
      const record = slot && answeredRecord(slot.records, e.nonce, e.stream);
      if (!slot || !record) return;
      record.answer = e.error
        ? { ack: false, at: e.at, code: e.error.code, message: e.error.message }
        : { ack: true, at: e.at };
      changed(slot, record);
    },
    async of(node, limit = perNode) {
      const n = Math.min(limit, perNode);
      if (persistence) return persistence.load(node, n);
      const records = slots.get(node)?.records;
      return records instanceof Ring ? records.newest(n) : [];
    },
    async nodes() {
      const out = new Map<string, KnownNode>();
      for (const n of (await persistence?.nodes()) ?? []) out.set(n.id, n);
      for (const s of slots.values()) out.set(s.node.id, s.node);
      return [...out.values()];
    },
    held() {
      let n = 0;
      for (const s of slots.values()) n += s.records.length + s.batches.length;
      return n;
    },
    flush: async () => persistence?.flush(),
    close: async () => persistence?.close(),
  };
}

/** Whether two nodes have the same identity (what KnownNode keeps besides the id). */
export function sameIdentity(a: KnownNode | XdsNode, b: KnownNode | XdsNode): boolean {
  return a === b || (a.cluster === b.cluster && a.userAgent === b.userAgent && a.configSource === b.configSource);
}

function known(node: XdsNode): KnownNode {
  return { id: node.id, cluster: node.cluster, userAgent: node.userAgent, configSource: node.configSource };
}

/** What the HTTP API and the event stream both show of a record. */
function recordFields(r: HistoryRecord) {
  return {
    hub: r.hub,
    at: new Date(r.at).toISOString(),
    index: r.index.toString(),
    stream: r.stream,
    type: r.type,
    nonce: r.nonce,
    variant: r.variant,
    version: r.version,
  };
}

const answerJson = (a: Answer | undefined) => (a ? { ...a, at: new Date(a.at).toISOString() } : null);

/** A record as JSON (the HTTP API). */
export function recordJson(r: HistoryRecord): Record<string, unknown> {
  return { seq: r.seq, ...recordFields(r), resources: Object.fromEntries(r.resources), answer: answerJson(r.answer) };
}

/**
 * A record as the event stream carries it: the resources counted, not listed
 * (a push to a fleet is one event per node), and no seq (a store shared by
 * several hubs numbers records only as it writes them).
 */
export function recordEvent(node: string, r: HistoryRecord): Record<string, unknown> {
  return { node, ...recordFields(r), resources: r.resources.size, answer: answerJson(r.answer) };
}
