// The xDS history kept in its own SQLite file beside the log (history.db in the
// data directory): never in the log, so recording pushes never moves the
// catalog's index and never contends with the log's exclusive lock. Writes are
// buffered and committed in one transaction every `flushMs` (a push not fully
// answered yet waits one period more); a crash loses at most two periods of
// history, never a catalog write.
//
// A fleet push is one row. The records a push made (the transport reports
// each stream's copy in turn: same map, index, type, version and hub) form a
// batch, written as one `batches` row whose `members` blob packs, per node, the
// record's own part (node key, seq, stream, time, answer); what they share is
// its `pushes` row, and the name → version map is stored once per content in
// `sets`. A row per record cost 3–6 µs of SQLite time on a fresh file and
// 15–21 µs once the file held 200,000 records (the (node, seq) index grows
// and every insert lands on another page); a member costs a fraction of a
// microsecond (bench/NOTES.md, "Session 15").
//
// Reads go by node: this process keeps, per node, the batches holding its
// newest `perNode` records (built from the file as it opens), and a batch is
// deleted once none of its members is among its node's newest any more.
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { makePrivateDir, securePrivateFile } from '../data-dir';
import { HubError } from '../errors';
import {
  type Answer,
  createSetHasher,
  type HistoryPersistence,
  type HistoryRecord,
  type KnownNode,
  type PushKey,
  type RecordedBatch,
  sameIdentity,
  type TypeShort,
} from './history';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS nodes (
    key INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, cluster TEXT NOT NULL, user_agent TEXT NOT NULL,
    config_source TEXT
  );
  CREATE TABLE IF NOT EXISTS sets (hash TEXT PRIMARY KEY, resources TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS pushes (
    id INTEGER PRIMARY KEY, log_index TEXT NOT NULL, type TEXT NOT NULL, variant TEXT NOT NULL,
    version TEXT NOT NULL, set_hash TEXT NOT NULL, hub TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS batches (
    id INTEGER PRIMARY KEY, push INTEGER NOT NULL, nonce TEXT NOT NULL, members BLOB NOT NULL, extra TEXT
  );
  CREATE TABLE IF NOT EXISTS late_answers (
    batch INTEGER NOT NULL, node INTEGER NOT NULL, seq INTEGER NOT NULL, answer TEXT NOT NULL,
    PRIMARY KEY (batch, node, seq)
  ) WITHOUT ROWID;
`;

/**
 * A member's bytes in `batches.members` (little-endian), sorted by node key
 * then seq: node key (u32), seq (u32), stream (u32), answer (u8: 0 none, 1
 * ACK, 2 NACK; NACK code and message in `extra`), 3 bytes unused, sent at (f64,
 * ms since the epoch), answered at (f64).
 */
const MEMBER_BYTES = 32;
const NO_ANSWER = 0;
const ACK = 1;
const NACK = 2;

const columnsOf = (db: Database.Database, table: string) =>
  (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);

/** A row of the records table of an older file (narrow, or wide before that): what a migration reads. */
interface OldRow {
  node: number;
  seq: number;
  push: number;
  at: number;
  stream: number;
  nonce: string;
  answer: string | null;
}

/** Migrated rows carry their push's row id and node keys already: the batch's own fields are not read. */
const MIGRATED: PushKey = { resources: new Map(), index: 0n, type: 'EDS', variant: 'delta', version: '', hub: '' };
const MIGRATED_NODE: KnownNode = { id: '', cluster: '', userAgent: '', configSource: undefined };

/**
 * Files of earlier layouts are rewritten once, in one transaction: wide rows
 * (one per record keyed by the node's id; before that without `hub`) first
 * become pushes and narrow rows, as they did before batches; narrow rows
 * (one per record) then become one batch per push.
 */
function migrate(db: Database.Database): void {
  const old = columnsOf(db, 'records');
  if (old.length === 0) return void db.exec(SCHEMA);
  db.transaction(() => {
    if (!old.includes('push')) {
      const hub = old.includes('hub') ? 'w.hub' : "''";
      db.exec(`
        ALTER TABLE records RENAME TO records_wide;
        ALTER TABLE nodes RENAME TO nodes_old;
        CREATE TABLE nodes (
          key INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, cluster TEXT NOT NULL, user_agent TEXT NOT NULL,
          config_source TEXT
        );
        CREATE TABLE pushes (
          id INTEGER PRIMARY KEY, log_index TEXT NOT NULL, type TEXT NOT NULL, variant TEXT NOT NULL,
          version TEXT NOT NULL, set_hash TEXT NOT NULL, hub TEXT NOT NULL
        );
        CREATE TABLE records (
          node INTEGER NOT NULL, seq INTEGER NOT NULL, push INTEGER NOT NULL, at INTEGER NOT NULL,
          stream INTEGER NOT NULL, nonce TEXT NOT NULL, answer TEXT
        );
        INSERT INTO nodes (id, cluster, user_agent, config_source)
          SELECT id, cluster, user_agent, config_source FROM nodes_old;
        INSERT INTO pushes (log_index, type, variant, version, set_hash, hub)
          SELECT DISTINCT log_index, type, variant, version, set_hash, ${hub} FROM records_wide w;
        INSERT INTO records (node, seq, push, at, stream, nonce, answer)
          SELECT n.key, w.seq, p.id, w.at, w.stream, w.nonce, w.answer FROM records_wide w
          JOIN nodes n ON n.id = w.node
          JOIN pushes p ON p.log_index = w.log_index AND p.type = w.type AND p.variant = w.variant
            AND p.version = w.version AND p.set_hash = w.set_hash AND p.hub = ${hub};
        DROP TABLE records_wide;
        DROP TABLE nodes_old;
      `);
    }
    db.exec(SCHEMA);
    const insert = db.prepare('INSERT INTO batches (push, nonce, members, extra) VALUES (?, ?, ?, ?)');
    let group: OldRow[] = [];
    const flushGroup = () => {
      if (group.length === 0) return;
      const b = new OpenBatch(MIGRATED);
      for (const r of group) {
        const answer = r.answer ? (JSON.parse(r.answer) as Answer) : undefined;
        b.add(MIGRATED_NODE, r.seq, r.stream, r.nonce, r.at, answer);
      }
      const { blob, nonce, extra } = encodeMembers(
        b,
        group.map((r) => r.node),
      );
      insert.run(group[0]!.push, nonce, blob, extra);
      group = [];
    };
    for (const r of db.prepare('SELECT * FROM records ORDER BY push, node, seq').all() as OldRow[]) {
      if (group.length > 0 && group[0]!.push !== r.push) flushGroup();
      group.push(r);
    }
    flushGroup();
    db.exec('DROP TABLE records');
  })();
}

export interface SqliteHistoryOptions {
  path: string;
  /** Records kept per node in the file. */
  perNode: number;
  flushMs?: number;
}

/** How many nodes and sets this process remembers as written (past that, forgetting costs one write each). */
const MAX_KNOWN = 100_000;

/** A node's row as this process last wrote it. */
interface WrittenNode {
  /** The identity last written to `nodes`. */
  node: KnownNode;
  /** Its row's key (what the batches' members hold). */
  key: number;
}

/** A `pushes` row this process wrote: what a record must match to share it. */
interface PushRow {
  index: bigint;
  type: string;
  variant: string;
  version: string;
  hub: string;
  id: number;
}

/** Pushes remembered per name → version map (the newest last): a map pushed at a few indexes, few types. */
const PUSHES_PER_MAP = 8;

/** Packs a batch's members, sorted by node key, then seq; their nonce when they share one, else per member in `extra`. */
function encodeMembers(b: OpenBatch, keys: readonly number[]): { blob: Buffer; nonce: string; extra: string | null } {
  const n = b.size;
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => keys[x]! - keys[y]! || b.seqs[x]! - b.seqs[y]!);
  const blob = Buffer.allocUnsafe(n * MEMBER_BYTES);
  const nonce = n > 0 ? b.nonces[0]! : '';
  let shared = true;
  let nacks: Record<number, { code?: number; message?: string }> | undefined;
  for (let j = 0; j < n; j++) {
    const i = order[j]!;
    const o = j * MEMBER_BYTES;
    blob.writeUInt32LE(keys[i]!, o);
    blob.writeUInt32LE(b.seqs[i]!, o + 4);
    blob.writeUInt32LE(b.streams[i]!, o + 8);
    blob.writeUInt32LE(b.kinds[i]!, o + 12);
    blob.writeDoubleLE(b.ats[i]!, o + 16);
    blob.writeDoubleLE(b.answerAts[i]!, o + 24);
    const nack = b.kinds[i] === NACK ? b.nacks?.get(i) : undefined;
    if (nack) (nacks ??= {})[j] = nack;
    if (b.nonces[i] !== nonce) shared = false;
  }
  const nonces = shared ? undefined : order.map((i) => b.nonces[i]!);
  const extra = nonces || nacks ? JSON.stringify({ ...(nonces ? { nonces } : {}), ...(nacks ? { nacks } : {}) }) : null;
  return { blob, nonce: shared ? nonce : '', extra };
}

/** The members of node `key` in a batch's blob, in seq order (binary search: the blob is sorted by key). */
function membersOf(blob: Buffer, key: number): number[] {
  const n = blob.length / MEMBER_BYTES;
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (blob.readUInt32LE(mid * MEMBER_BYTES) < key) lo = mid + 1;
    else hi = mid;
  }
  const out: number[] = [];
  for (let i = lo; i < n && blob.readUInt32LE(i * MEMBER_BYTES) === key; i++) out.push(i);
  return out;
}

/**
 * Per node, the batches holding its newest records (oldest first, at most
 * `cap`; a batch twice when it holds two of them) and its newest seq.
 */
class NodeLog {
  private refs: Int32Array = new Int32Array(4);
  private start = 0;
  count = 0;
  lastSeq = 0;
  constructor(private readonly cap: number) {}
  /** Adds a batch; returns the batch that fell out (the cap was reached), else undefined. */
  add(batch: number): number | undefined {
    let out: number | undefined;
    if (this.count === this.cap) {
      out = this.refs[this.start]!;
      this.refs[this.start] = batch;
      this.start = (this.start + 1) % this.cap;
      return out;
    }
    if (this.count === this.refs.length) {
      const grown = new Int32Array(Math.min(this.cap, this.refs.length * 2));
      for (let i = 0; i < this.count; i++) grown[i] = this.refs[(this.start + i) % this.refs.length]!;
      this.refs = grown;
      this.start = 0;
    }
    this.refs[(this.start + this.count) % this.refs.length] = batch;
    this.count++;
    return undefined;
  }
  /** The newest `n` batches, newest last (repeats removed). */
  newest(n: number): number[] {
    const out: number[] = [];
    for (let i = Math.max(0, this.count - n); i < this.count; i++) {
      const b = this.refs[(this.start + i) % this.refs.length]!;
      if (out.at(-1) !== b) out.push(b);
    }
    return out;
  }
}

/**
 * The records of one fleet push being collected, column by column, in the
 * order the transport sent them: a record is an entry in each array, not an
 * object (a fleet push to N streams makes no N objects that live until the
 * write). A member is addressed by its batch and index.
 */
export class OpenBatch implements RecordedBatch {
  readonly nodes: KnownNode[] = [];
  readonly seqs: number[] = [];
  readonly streams: number[] = [];
  readonly nonces: string[] = [];
  readonly ats: number[] = [];
  /** NO_ANSWER, ACK or NACK. */
  readonly kinds: number[] = [];
  readonly answerAts: number[] = [];
  /** NACK codes and messages, by member index. */
  nacks: Map<number, { code?: number; message?: string }> | undefined;
  unanswered = 0;
  /** Held back once by the timer (a member still had no answer). */
  heldBack = false;
  /** Once written: its row, and each member's node key (where a late answer goes). */
  id: number | undefined;
  keys: number[] | undefined;
  constructor(readonly push: PushKey) {}
  get size(): number {
    return this.seqs.length;
  }
  add(node: KnownNode, seq: number, stream: number, nonce: string, at: number, answer: Answer | undefined): number {
    const i = this.seqs.length;
    this.nodes.push(node);
    this.seqs.push(seq);
    this.streams.push(stream);
    this.nonces.push(nonce);
    this.ats.push(at);
    this.kinds.push(NO_ANSWER);
    this.answerAts.push(0);
    this.unanswered++;
    if (answer) this.answer(i, answer.ack, answer.at, answer.code, answer.message);
    return i;
  }
  answer(i: number, ack: boolean, at: number, code?: number, message?: string): void {
    if (this.kinds[i] === NO_ANSWER) this.unanswered--;
    this.kinds[i] = ack ? ACK : NACK;
    this.answerAts[i] = at;
    if (ack) this.nacks?.delete(i);
    else
      (this.nacks ??= new Map()).set(i, {
        ...(code === undefined ? {} : { code }),
        ...(message === undefined ? {} : { message }),
      });
  }
  /** Member i's answer as a record holds it. */
  answerOf(i: number): Answer | undefined {
    const kind = this.kinds[i];
    if (kind === ACK) return { ack: true, at: this.answerAts[i]! };
    if (kind === NACK) return { ack: false, at: this.answerAts[i]!, ...this.nacks?.get(i) };
    return undefined;
  }
  /** Member i as a record (for readers and the event stream: the push path makes none). */
  recordOf(i: number): HistoryRecord {
    const p = this.push;
    return {
      seq: this.seqs[i]!,
      hub: p.hub,
      at: this.ats[i]!,
      index: p.index,
      stream: this.streams[i]!,
      type: p.type,
      nonce: this.nonces[i]!,
      variant: p.variant,
      version: p.version,
      resources: p.resources,
      answer: this.answerOf(i),
    };
  }
}

function openDb(path: string): Database.Database {
  // Beside the log in the data directory, with the same modes (0700 directory, 0600 files: src/data-dir.ts).
  makePrivateDir(dirname(path));
  try {
    securePrivateFile(path);
    const db = new Database(path, { timeout: 1_000 });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    migrate(db);
    return db;
  } catch (err) {
    throw new HubError('INTERNAL', `cannot open the xDS history at ${path}: ${(err as Error).message}`, { cause: err });
  }
}

function statements(db: Database.Database) {
  return {
    nodeKey: db.prepare('SELECT key FROM nodes WHERE id = ?').pluck(),
    keys: db.prepare('SELECT key, id FROM nodes'),
    nodes: db.prepare('SELECT id, cluster, user_agent, config_source FROM nodes'),
    // An upsert, never a replace: the row keeps its key, which the batches' members hold.
    node: db
      .prepare(
        `INSERT INTO nodes (id, cluster, user_agent, config_source) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE
         SET cluster = excluded.cluster, user_agent = excluded.user_agent, config_source = excluded.config_source
         RETURNING key`,
      )
      .pluck(),
    set: db.prepare('INSERT OR IGNORE INTO sets (hash, resources) VALUES (?, ?)'),
    push: db
      .prepare(
        'INSERT INTO pushes (log_index, type, variant, version, set_hash, hub) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
      )
      .pluck(),
    batch: db.prepare('INSERT INTO batches (push, nonce, members, extra) VALUES (?, ?, ?, ?) RETURNING id').pluck(),
    allBatches: db.prepare('SELECT id, members FROM batches ORDER BY id'),
    read: db.prepare(
      `SELECT b.id, b.nonce, b.members, b.extra, p.log_index, p.type, p.variant, p.version, p.hub, s.resources
       FROM batches b JOIN pushes p ON p.id = b.push JOIN sets s ON s.hash = p.set_hash
       WHERE b.id IN (SELECT value FROM json_each(?))`,
    ),
    lateAnswer: db.prepare('INSERT OR REPLACE INTO late_answers (batch, node, seq, answer) VALUES (?, ?, ?, ?)'),
    lateAnswers: db.prepare(
      'SELECT batch, seq, answer FROM late_answers WHERE node = ? AND batch IN (SELECT value FROM json_each(?))',
    ),
    dropBatches: db.prepare('DELETE FROM batches WHERE id IN (SELECT value FROM json_each(?))'),
    dropLate: db.prepare('DELETE FROM late_answers WHERE batch IN (SELECT value FROM json_each(?))'),
    orphanPushes: db.prepare('DELETE FROM pushes WHERE id NOT IN (SELECT push FROM batches)'),
    orphanSets: db.prepare('DELETE FROM sets WHERE hash NOT IN (SELECT set_hash FROM pushes) RETURNING hash').pluck(),
  };
}

/** What the parts of the store share. */
interface Store {
  db: Database.Database;
  st: ReturnType<typeof statements>;
  perNode: number;
  hashOf: ReturnType<typeof createSetHasher>;
  // What this process knows the file holds, so that a batch writes only what changed.
  // A miss (evicted, or a new process) only costs the write it would have saved.
  written: Map<string, WrittenNode>;
  storedSets: Set<string>;
  /** The `pushes` rows written, per map (replaced whole when the sweep may have deleted some). */
  pushes: WeakMap<ReadonlyMap<string, string | null>, PushRow[]>;
  /** Per node key, the batches of its newest records (built from the file as it opens). */
  logs: Map<number, NodeLog>;
  /** Per node id, its newest seq (in the file or buffered): one entry per node the file knows. */
  seqs: Map<string, number>;
  /** Per batch in the file, how many of its members are still among their node's newest. */
  live: Map<number, number>;
  /** Batches no member needs any more: deleted with the next write. */
  dead: number[];
  /** Records collected, in the order first saved. */
  open: OpenBatch[];
  /** Per name → version map, the batch still open to more records of its push (streams of other pushes interleave). */
  collecting: Map<ReadonlyMap<string, string | null>, OpenBatch>;
  /** Answers to records already written, to write with the next batch. */
  late: { batch: number; key: number; seq: number; answer: Answer }[];
  flushes: number;
}

/** The node's row, written when this process has not written this identity (the upsert gives its key). */
function nodeRow(s: Store, node: KnownNode): WrittenNode {
  let w = s.written.get(node.id);
  if (w && sameIdentity(w.node, node)) return w;
  const key = s.st.node.get(node.id, node.cluster, node.userAgent, node.configSource ?? null) as number;
  w = { node, key };
  s.written.delete(node.id); // past MAX_KNOWN, the node whose identity was written longest ago is forgotten
  s.written.set(node.id, w);
  if (s.written.size > MAX_KNOWN) s.written.delete(s.written.keys().next().value!);
  return w;
}

/** The `pushes` row a batch shares with its push's other batches, written (with its map) on first use. */
function pushOf(s: Store, r: PushKey): number {
  let rows = s.pushes.get(r.resources);
  const hit = rows?.find(
    (p) =>
      p.index === r.index && p.type === r.type && p.version === r.version && p.variant === r.variant && p.hub === r.hub,
  );
  if (hit) return hit.id;
  const { hash, json } = s.hashOf(r.resources);
  if (!s.storedSets.has(hash)) {
    s.st.set.run(hash, json);
    s.storedSets.add(hash);
  }
  const id = s.st.push.get(r.index.toString(), r.type, r.variant, r.version, hash, r.hub) as number;
  if (!rows) s.pushes.set(r.resources, (rows = []));
  if (
    rows.push({ index: r.index, type: r.type, variant: r.variant, version: r.version, hub: r.hub, id }) > PUSHES_PER_MAP
  )
    rows.shift();
  return id;
}

function logOf(s: Store, key: number): NodeLog {
  let log = s.logs.get(key);
  if (!log) s.logs.set(key, (log = new NodeLog(s.perNode)));
  return log;
}

/** A member of `batch` is among node `key`'s newest records now; the batch that fell out may be dead. */
function keep(s: Store, key: number, batch: number): void {
  s.live.set(batch, (s.live.get(batch) ?? 0) + 1);
  const out = logOf(s, key).add(batch);
  if (out === undefined) return;
  const left = (s.live.get(out) ?? 1) - 1;
  if (left > 0) s.live.set(out, left);
  else {
    s.live.delete(out);
    s.dead.push(out);
  }
}

/** Writes one batch: node rows as needed, its push, one row of members; the nodes' logs learn it. */
function writeBatch(s: Store, b: OpenBatch): void {
  const keys: number[] = new Array(b.size);
  for (let i = 0; i < b.size; i++) keys[i] = nodeRow(s, b.nodes[i]!).key;
  const { blob, nonce, extra } = encodeMembers(b, keys);
  const id = s.st.batch.get(pushOf(s, b.push), nonce, blob, extra) as number;
  for (let i = 0; i < b.size; i++) keep(s, keys[i]!, id);
  b.id = id;
  b.keys = keys;
}

function writeAll(s: Store, batches: OpenBatch[]): void {
  for (const b of batches) writeBatch(s, b);
  for (const l of s.late) s.st.lateAnswer.run(l.batch, l.key, l.seq, JSON.stringify(l.answer));
  s.late = [];
  if (s.dead.length > 0) {
    const ids = JSON.stringify(s.dead);
    s.st.dropBatches.run(ids);
    s.st.dropLate.run(ids);
    s.dead = [];
  }
  if (++s.flushes % 50 === 0) sweep(s);
  if (s.storedSets.size > MAX_KNOWN) s.storedSets.clear();
}

/** Deletes the pushes no batch holds any more, then the maps no push holds. */
function sweep(s: Store): void {
  if (s.st.orphanPushes.run().changes > 0) s.pushes = new WeakMap();
  for (const h of s.st.orphanSets.all() as string[]) s.storedSets.delete(h);
}

/**
 * Writes what is collected. The timer (`all` false) holds a batch with an
 * unanswered member back once, so that answers that come within one more
 * period are written with it rather than one by one: a push to N nodes
 * leaves the hub in one turn, and its N ACKs mostly arrive after the next
 * tick. Reads and close write everything.
 */
function flush(s: Store, write: (batches: OpenBatch[]) => void, all = true): void {
  if ((s.open.length === 0 && s.late.length === 0) || !s.db.open) return;
  let batches: OpenBatch[];
  // What is written or held back takes no more records: the next of its push starts another batch.
  s.collecting.clear();
  if (all) {
    batches = s.open;
    s.open = [];
  } else {
    batches = [];
    const kept: OpenBatch[] = [];
    for (const b of s.open) {
      if (b.heldBack || b.unanswered === 0) batches.push(b);
      else {
        b.heldBack = true;
        kept.push(b);
      }
    }
    s.open = kept;
  }
  try {
    write(batches);
  } catch (err) {
    // Rolled back: what this process thought the file holds may be wrong now.
    s.written.clear();
    s.storedSets.clear();
    s.pushes = new WeakMap();
    throw err;
  }
}

function readBatch(
  row: {
    id: number;
    nonce: string;
    members: Buffer;
    extra: string | null;
    log_index: string;
    type: string;
    variant: string;
    version: string;
    hub: string;
    resources: string;
  },
  key: number,
  resources: Map<string, Map<string, string | null>>,
): HistoryRecord[] {
  let map = resources.get(row.resources);
  if (!map) resources.set(row.resources, (map = new Map(Object.entries(JSON.parse(row.resources)))));
  const extra = row.extra
    ? (JSON.parse(row.extra) as { nonces?: string[]; nacks?: Record<number, { code?: number; message?: string }> })
    : {};
  return membersOf(row.members, key).map((i) => {
    const o = i * MEMBER_BYTES;
    const kind = row.members.readUInt32LE(o + 12);
    const answerAt = row.members.readDoubleLE(o + 24);
    const answer: Answer | undefined =
      kind === ACK
        ? { ack: true, at: answerAt }
        : kind === NACK
          ? { ack: false, at: answerAt, ...extra.nacks?.[i] }
          : undefined;
    return {
      seq: row.members.readUInt32LE(o + 4),
      hub: row.hub,
      at: row.members.readDoubleLE(o + 16),
      index: BigInt(row.log_index),
      stream: row.members.readUInt32LE(o + 8),
      type: row.type as TypeShort,
      nonce: extra.nonces?.[i] ?? row.nonce,
      variant: row.variant as 'sotw' | 'delta',
      version: row.version,
      resources: map,
      answer,
    };
  });
}

/** A node's newest `limit` records from the file (its log names the batches; late answers applied), oldest first. */
function load(s: Store, id: string, limit: number): HistoryRecord[] {
  const key = s.written.get(id)?.key ?? (s.st.nodeKey.get(id) as number | undefined);
  const log = key === undefined ? undefined : s.logs.get(key);
  if (key === undefined || !log || limit <= 0) return [];
  const ids = JSON.stringify(log.newest(limit));
  const records: HistoryRecord[] = [];
  const resources = new Map<string, Map<string, string | null>>();
  for (const row of s.st.read.all(ids) as Parameters<typeof readBatch>[0][])
    records.push(...readBatch(row, key, resources));
  const late = new Map<string, Answer>();
  for (const l of s.st.lateAnswers.all(key, ids) as { batch: number; seq: number; answer: string }[])
    late.set(`${l.seq}`, JSON.parse(l.answer) as Answer);
  for (const r of records) r.answer = late.get(`${r.seq}`) ?? r.answer;
  records.sort((a, b) => a.seq - b.seq);
  return records.slice(-limit);
}

function openStore(options: SqliteHistoryOptions): Store {
  const db = openDb(options.path);
  const s: Store = {
    db,
    st: statements(db),
    perNode: options.perNode,
    hashOf: createSetHasher(),
    written: new Map(),
    storedSets: new Set(),
    pushes: new WeakMap(),
    logs: new Map(),
    seqs: new Map(),
    live: new Map(),
    dead: [],
    open: [],
    collecting: new Map(),
    late: [],
    flushes: 0,
  };
  // Every node's log, from the batches in the order they were written (a member past its node's newest
  // `perNode` leaves it, and a batch none of whose members is left is deleted with the first write).
  const ids = new Map<number, string>();
  for (const n of s.st.keys.iterate() as Iterable<{ key: number; id: string }>) ids.set(n.key, n.id);
  for (const row of s.st.allBatches.iterate() as Iterable<{ id: number; members: Buffer }>) {
    for (let o = 0; o < row.members.length; o += MEMBER_BYTES) {
      const key = row.members.readUInt32LE(o);
      const seq = row.members.readUInt32LE(o + 4);
      keep(s, key, row.id);
      const log = logOf(s, key);
      if (seq > log.lastSeq) log.lastSeq = seq;
    }
  }
  for (const [key, log] of s.logs) {
    const id = ids.get(key);
    if (id !== undefined) s.seqs.set(id, log.lastSeq);
  }
  return s;
}

/** Whether two pushes share one batch. */
function samePush(a: PushKey, b: PushKey): boolean {
  return (
    a.resources === b.resources &&
    a.index === b.index &&
    a.type === b.type &&
    a.version === b.version &&
    a.variant === b.variant &&
    a.hub === b.hub
  );
}

export function createSqliteHistory(options: SqliteHistoryOptions): HistoryPersistence {
  const s = openStore(options);
  const write = s.db.transaction((batches: OpenBatch[]) => writeAll(s, batches));
  const timer = setInterval(() => flush(s, write, false), options.flushMs ?? 200);
  timer.unref();
  return {
    lastSeq: (node) => s.seqs.get(node) ?? 0,
    async load(node, limit) {
      flush(s, write);
      return load(s, node, limit);
    },
    async nodes() {
      flush(s, write);
      return (
        s.st.nodes.all() as { id: string; cluster: string; user_agent: string; config_source: string | null }[]
      ).map((n) => ({
        id: n.id,
        cluster: n.cluster,
        userAgent: n.user_agent,
        configSource: (n.config_source ?? undefined) as KnownNode['configSource'],
      }));
    },
    record(node, push, seq, stream, nonce, at) {
      // With the open batch of its push, or the first of a new one.
      let b = s.collecting.get(push.resources);
      if (!b || b.heldBack || !samePush(b.push, push)) {
        // `push` may be the caller's scratch value: the batch keeps a copy.
        const { resources, index, type, variant, version, hub } = push;
        b = new OpenBatch({ resources, index, type, variant, version, hub });
        s.open.push(b);
        s.collecting.set(push.resources, b);
      }
      b.add(node, seq, stream, nonce, at, undefined);
      if (seq > (s.seqs.get(node.id) ?? 0)) s.seqs.set(node.id, seq);
      return b;
    },
    answer(batch, i, ack, at, code, message) {
      const b = batch as OpenBatch;
      b.answer(i, ack, at, code, message);
      // Written already: the answer is a row of its own, written with the next batch.
      if (b.id !== undefined && b.keys)
        s.late.push({ batch: b.id, key: b.keys[i]!, seq: b.seqs[i]!, answer: b.answerOf(i)! });
    },
    save(node, record) {
      // A whole record at once (the columns are what the push path uses): the same member.
      const b = this.record!(node, record, record.seq, record.stream, record.nonce, record.at);
      const a = record.answer;
      if (a) this.answer!(b, b.size - 1, a.ack, a.at, a.code, a.message);
    },
    flush: async () => flush(s, write),
    async close() {
      clearInterval(timer);
      flush(s, write);
      s.db.close();
    },
  };
}
