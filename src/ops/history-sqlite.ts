// The xDS history kept in its own SQLite file beside the log (history.db in the
// data directory): never in the log, so recording pushes never moves the
// catalog's index and never contends with the log's exclusive lock. Writes are
// buffered and committed in one transaction every `flushMs` (a push not answered
// yet waits one period more); a crash loses at most two periods of history,
// never a catalog write.
//
// Name → version maps are stored once per content (by hash) in `sets`: a push
// that reached a thousand nodes stores one map and a thousand small rows.
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { makePrivateDir, securePrivateFile } from '../data-dir';
import { HubError } from '../errors';
import {
  createSetHasher,
  type HistoryPersistence,
  type HistoryRecord,
  type KnownNode,
  sameIdentity,
  type TypeShort,
} from './history';

// A record is a narrow row in `records` (its node's integer key, seq, time,
// stream, nonce, answer) pointing at a `pushes` row that holds what a fleet
// push shares (log index, type, variant, version, map, hub): a push to a
// thousand nodes writes one `pushes` row and a thousand short rows.
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
  CREATE TABLE IF NOT EXISTS records (
    node INTEGER NOT NULL, seq INTEGER NOT NULL, push INTEGER NOT NULL, at INTEGER NOT NULL,
    stream INTEGER NOT NULL, nonce TEXT NOT NULL, answer TEXT
  );
  CREATE UNIQUE INDEX IF NOT EXISTS records_node_seq ON records (node, seq);
`;

const columnsOf = (db: Database.Database, table: string) =>
  (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);

/**
 * A file written before the narrow rows (one wide row per record keyed by the
 * node's id; before that without `hub`) is rewritten once, in one transaction:
 * each distinct push becomes a `pushes` row.
 */
function migrate(db: Database.Database): void {
  const old = columnsOf(db, 'records');
  if (old.length === 0 || old.includes('push')) return void db.exec(SCHEMA);
  const hub = old.includes('hub') ? 'w.hub' : "''";
  db.transaction(() => {
    db.exec(`
      ALTER TABLE records RENAME TO records_wide;
      ALTER TABLE nodes RENAME TO nodes_old;
      ${SCHEMA}
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

/**
 * Records past the limit before a node is trimmed again: a node has at most
 * perNode + trimStep(perNode) − 1 rows in the file (reads return perNode).
 */
export function trimStep(perNode: number): number {
  return Math.max(1, Math.min(100, Math.ceil(perNode / 10)));
}

interface WrittenNode {
  /** The identity last written to `nodes`. */
  node: KnownNode;
  /** Its row's key (what `records.node` holds). */
  key: number;
  /** The seq below which (inclusive) records were last deleted; undefined = not trimmed by this process yet. */
  trimmed: number | undefined;
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

interface Row {
  seq: number;
  hub: string;
  at: number;
  log_index: string;
  stream: number;
  type: string;
  nonce: string;
  variant: string;
  version: string;
  resources: string;
  answer: string | null;
}

/** An answer as stored: an ACK (nearly every row) written without JSON.stringify's walk; the same text. */
function answerText(a: HistoryRecord['answer']): string | null {
  if (!a) return null;
  return a.ack && a.code === undefined && a.message === undefined ? `{"ack":true,"at":${a.at}}` : JSON.stringify(a);
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
    lastSeq: db.prepare('SELECT MAX(r.seq) AS seq FROM nodes n JOIN records r ON r.node = n.key WHERE n.id = ?'),
    lastSeqs: db.prepare(
      'SELECT n.id AS node, MAX(r.seq) AS seq FROM records r JOIN nodes n ON n.key = r.node GROUP BY r.node',
    ),
    load: db.prepare(
      `SELECT * FROM (SELECT r.seq, r.at, r.stream, r.nonce, r.answer,
         p.log_index, p.type, p.variant, p.version, p.hub, s.resources
       FROM nodes n JOIN records r ON r.node = n.key JOIN pushes p ON p.id = r.push JOIN sets s ON s.hash = p.set_hash
       WHERE n.id = ? ORDER BY r.seq DESC LIMIT ?) ORDER BY seq`,
    ),
    nodes: db.prepare('SELECT id, cluster, user_agent, config_source FROM nodes'),
    // An upsert, never a replace: the row keeps its key, which the node's records hold.
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
    answer: db.prepare('UPDATE records SET answer = ? WHERE node = ? AND seq = ?'),
    trim: db.prepare('DELETE FROM records WHERE node = ? AND seq <= ?'),
    orphanPushes: db.prepare('DELETE FROM pushes WHERE id NOT IN (SELECT push FROM records)'),
    orphanSets: db.prepare('DELETE FROM sets WHERE hash NOT IN (SELECT set_hash FROM pushes) RETURNING hash').pluck(),
  };
}

/** What the parts of the store share. */
interface Store {
  db: Database.Database;
  st: ReturnType<typeof statements>;
  rows: RecordRows;
  perNode: number;
  trimEvery: number;
  hashOf: ReturnType<typeof createSetHasher>;
  // What this process knows the file holds, so that a batch writes only what changed.
  // A miss (evicted, or a new process) only costs the write it would have saved.
  written: Map<string, WrittenNode>;
  storedSets: Set<string>;
  /** The `pushes` rows written, per map (replaced whole when the sweep may have deleted some). */
  pushes: WeakMap<ReadonlyMap<string, string | null>, PushRow[]>;
  /** Pending answers to records already written (saved again once out of `pending`): an update of the row. */
  answers: Set<HistoryRecord>;
  /** Records to write (an answered record saved again stays one entry), in the order they were first saved. */
  pending: Map<HistoryRecord, KnownNode>;
  /**
   * Per node, the highest seq in the file or in `pending`: read once when the file opens (one pass over the
   * (node, seq) key), then kept up to date by `save`. Asking the file per new node, and scanning `pending`
   * for it, cost a burst of new streams (5,000 Envoys reconnecting) a query each and O(pending) each.
   * Past MAX_KNOWN nodes the oldest entries are forgotten (`allSeqs` false) and a miss asks the file again.
   */
  seqs: Map<string, number>;
  allSeqs: boolean;
  flushes: number;
  /** Unanswered records the last timer flush held back: the next one writes them, answered or not. */
  heldBack: Set<HistoryRecord>;
}

function rememberSeq(s: Store, id: string, seq: number): void {
  s.seqs.set(id, seq);
  if (s.seqs.size > MAX_KNOWN) {
    s.seqs.delete(s.seqs.keys().next().value!);
    s.allSeqs = false;
  }
}

/** The node's row, written when this process has not written this identity (the upsert gives its key). */
function nodeRow(s: Store, node: KnownNode): WrittenNode {
  let w = s.written.get(node.id);
  if (w && sameIdentity(w.node, node)) return w;
  const key = s.st.node.get(node.id, node.cluster, node.userAgent, node.configSource ?? null) as number;
  w = { node, key, trimmed: w?.trimmed };
  s.written.delete(node.id); // past MAX_KNOWN, the node whose identity was written longest ago is forgotten
  s.written.set(node.id, w);
  if (s.written.size > MAX_KNOWN) s.written.delete(s.written.keys().next().value!);
  return w;
}

/** What a `pushes` row holds besides its map. */
type PushKey = Pick<PushRow, 'index' | 'type' | 'variant' | 'version' | 'hub'>;
/** Whether two pushes of the same map share one `pushes` row. */
const samePush = (a: PushKey, b: PushKey): boolean =>
  a.index === b.index && a.type === b.type && a.version === b.version && a.variant === b.variant && a.hub === b.hub;

/** The `pushes` row a record shares with the rest of its fleet push, written (with its map) on first use. */
function pushOf(s: Store, r: HistoryRecord): number {
  let rows = s.pushes.get(r.resources);
  const hit = rows?.find((p) => samePush(r, p));
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

/**
 * Record rows go ROWS_PER_INSERT to one INSERT statement: a push to a fleet is
 * a batch of a thousand rows, and each statement run is a call into SQLite
 * with its own binding and step; one per row cost about as much as the row.
 */
const ROWS_PER_INSERT = 64;
const RECORD_COLUMNS = 7;

/** The rows collected for one multi-row INSERT, and the statements by row count (prepared on first use). */
class RecordRows {
  private readonly params: unknown[] = [];
  private readonly inserts = new Map<number, Database.Statement>();
  constructor(private readonly db: Database.Database) {}
  add(node: number, seq: number, push: number, at: number, stream: number, nonce: string, answer: string | null): void {
    this.params.push(node, seq, push, at, stream, nonce, answer);
    if (this.params.length >= ROWS_PER_INSERT * RECORD_COLUMNS) this.write();
  }
  write(): void {
    const rows = this.params.length / RECORD_COLUMNS;
    if (rows === 0) return;
    let insert = this.inserts.get(rows);
    if (!insert) {
      const values = Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?, ?)').join(', ');
      insert = this.db.prepare(
        `INSERT OR REPLACE INTO records (node, seq, push, at, stream, nonce, answer) VALUES ${values}`,
      );
      this.inserts.set(rows, insert);
    }
    try {
      insert.run(this.params);
    } finally {
      this.params.length = 0;
    }
  }
  /** Drops rows not written (their transaction rolled back). */
  clear(): void {
    this.params.length = 0;
  }
}

/** One row per record (or an update of its answer), each node's identity and each push when not written yet. */
function writeItems(s: Store, items: [HistoryRecord, KnownNode][]): void {
  const { st, rows } = s;
  const newest = new Map<WrittenNode, number>();
  // A fleet push's records come one after another: the previous record's push, unless this one differs.
  let last: HistoryRecord | undefined;
  let lastPush = 0;
  for (const [r, node] of items) {
    const w = nodeRow(s, node);
    // No row (a record first saved with its answer, or one trimmed meanwhile): written whole below.
    if (s.answers.has(r) && st.answer.run(answerText(r.answer), w.key, r.seq).changes > 0) continue;
    if (!last || last.resources !== r.resources || !samePush(last, r)) lastPush = pushOf(s, r);
    last = r;
    rows.add(w.key, r.seq, lastPush, r.at, r.stream, r.nonce, answerText(r.answer));
    newest.set(w, Math.max(newest.get(w) ?? 0, r.seq));
  }
  rows.write();
  // A node is trimmed when this process first writes it, then every `trimEvery` records past the limit.
  for (const [w, seq] of newest) {
    const below = seq - s.perNode;
    if (w.trimmed !== undefined && below - w.trimmed < s.trimEvery) continue;
    if (below >= 1) st.trim.run(w.key, below);
    w.trimmed = Math.max(below, 0);
  }
  if (++s.flushes % 50 === 0) sweep(s);
  if (s.storedSets.size > MAX_KNOWN) s.storedSets.clear();
}

/** Deletes the pushes no record holds any more, then the maps no push holds. */
function sweep(s: Store): void {
  if (s.st.orphanPushes.run().changes > 0) s.pushes = new WeakMap();
  for (const h of s.st.orphanSets.all() as string[]) s.storedSets.delete(h);
}

/** The timer's batch: answered records, and the unanswered ones it held back last time. */
function timerBatch(s: Store): [HistoryRecord, KnownNode][] {
  const items: [HistoryRecord, KnownNode][] = [];
  const next = new Set<HistoryRecord>();
  for (const entry of s.pending) {
    const r = entry[0];
    if (r.answer || s.heldBack.has(r)) items.push(entry);
    else next.add(r);
  }
  for (const [r] of items) s.pending.delete(r);
  s.heldBack = next;
  return items;
}

/**
 * Writes the batch. The timer (`all` false) holds an unanswered record back
 * once, so that an answer that comes within one more period is written with
 * its row instead of as an update: a push to N nodes leaves the hub in one
 * turn, and its N ACKs mostly arrive after the next tick. Reads and close
 * write everything.
 */
function flush(s: Store, write: (items: [HistoryRecord, KnownNode][]) => void, all = true): void {
  if (s.pending.size === 0 || !s.db.open) return;
  let items: [HistoryRecord, KnownNode][];
  if (all) {
    items = [...s.pending];
    s.pending.clear();
    s.heldBack.clear();
  } else {
    items = timerBatch(s);
    if (items.length === 0) return;
  }
  try {
    write(items);
  } catch (err) {
    // Rolled back: what this process thought the file holds may be wrong now.
    s.rows.clear();
    s.written.clear();
    s.storedSets.clear();
    s.pushes = new WeakMap();
    throw err;
  } finally {
    if (s.answers.size > 0) for (const [record] of items) s.answers.delete(record);
  }
}

function recordOf(row: Row): HistoryRecord {
  return {
    seq: row.seq,
    hub: row.hub,
    at: row.at,
    index: BigInt(row.log_index),
    stream: row.stream,
    type: row.type as TypeShort,
    nonce: row.nonce,
    variant: row.variant as 'sotw' | 'delta',
    version: row.version,
    resources: new Map(Object.entries(JSON.parse(row.resources) as Record<string, string | null>)),
    answer: row.answer ? JSON.parse(row.answer) : undefined,
  };
}

function openStore(options: SqliteHistoryOptions): Store {
  const db = openDb(options.path);
  const s: Store = {
    db,
    st: statements(db),
    rows: new RecordRows(db),
    perNode: options.perNode,
    trimEvery: trimStep(options.perNode),
    hashOf: createSetHasher(),
    written: new Map(),
    storedSets: new Set(),
    pushes: new WeakMap(),
    answers: new Set(),
    pending: new Map(),
    seqs: new Map(),
    allSeqs: true,
    flushes: 0,
    heldBack: new Set(),
  };
  for (const row of s.st.lastSeqs.iterate() as Iterable<{ node: string; seq: number }>)
    rememberSeq(s, row.node, row.seq);
  return s;
}

export function createSqliteHistory(options: SqliteHistoryOptions): HistoryPersistence {
  const s = openStore(options);
  const write = s.db.transaction((items: [HistoryRecord, KnownNode][]) => writeItems(s, items));
  const timer = setInterval(() => flush(s, write, false), options.flushMs ?? 200);
  timer.unref();
  return {
    lastSeq(node) {
      const known = s.seqs.get(node);
      if (known !== undefined || s.allSeqs) return known ?? 0;
      // Forgotten (or never seen, once past MAX_KNOWN nodes): what the file holds, or the batch not written yet.
      let seq = (s.st.lastSeq.get(node) as { seq: number | null }).seq ?? 0;
      for (const [r, n] of s.pending) if (n.id === node && r.seq > seq) seq = r.seq;
      return seq;
    },
    async load(node, limit) {
      flush(s, write);
      return (s.st.load.all(node, limit) as Row[]).map(recordOf);
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
    save(node, record) {
      // Every record is saved when sent; one saved again after it left `pending` was written.
      if (record.answer && !s.pending.has(record)) s.answers.add(record);
      s.pending.set(record, node);
      if (record.seq > (s.seqs.get(node.id) ?? 0)) rememberSeq(s, node.id, record.seq);
    },
    flush: async () => flush(s, write),
    async close() {
      clearInterval(timer);
      flush(s, write);
      s.db.close();
    },
  };
}
