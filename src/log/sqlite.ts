// The embedded, durable log: one SQLite file in WAL mode, owned by one process.
// Appends are group-committed (one transaction per event-loop turn), indexes are
// assigned here (not by SQLite's rowid allocator) so they never repeat after a
// compaction that emptied the table.
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { makePrivateDir, securePrivateFile } from '../data-dir';
import { HubError } from '../errors';
import { checkCompaction, checkPayloads, closedError, compactionCut } from './common';
import { createGroupCommitter, type GroupCommitter } from './group-commit';
import { localReads } from './local-reads';
import type { Log, LogSnapshot } from './log';
import { type ChangeNotifier, createChangeNotifier } from './notifier';

export interface SqliteLogOptions {
  path: string;
  /**
   * NORMAL (default): a commit is in the WAL file before append resolves, so it
   * survives a SIGKILL of this process; a power loss may drop the last commits.
   * FULL: the WAL is fsynced at every commit, which also covers power loss.
   * See docs/log.md for the measurements behind the default.
   */
  synchronous?: 'FULL' | 'NORMAL';
}

export const DEFAULT_SQLITE_SYNCHRONOUS = 'NORMAL' as const;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS entries (
    "index" INTEGER PRIMARY KEY,
    payload TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS snapshot (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    "index" INTEGER NOT NULL,
    state TEXT NOT NULL
  );
`;

function openDatabase(path: string, synchronous: 'FULL' | 'NORMAL'): Database.Database {
  // The log holds the CA's keys: 0700 directory, 0600 files (src/data-dir.ts); SQLite's WAL files take the file's mode.
  makePrivateDir(dirname(path));
  securePrivateFile(path);
  const db = new Database(path, { timeout: 1_000 });
  try {
    db.defaultSafeIntegers(true); // INTEGER columns come back as bigint
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${synchronous}`);
    // One writer per file: the process caches lastIndex, so a second writer would
    // hand out duplicate indexes. Exclusive locking makes a second opener fail fast.
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec(SCHEMA);
    db.exec('BEGIN EXCLUSIVE; COMMIT');
    // SQLite opens a file it may not write (read-only, immutable) read-only
    // without a word, and the first append would fail. Write the header now
    // (the same user_version again) so such a log refuses to start instead.
    const version = db.pragma('user_version', { simple: true }) as bigint;
    db.pragma(`user_version = ${version}`);
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') {
      throw new HubError('CONFLICT', `sqlite log ${path} is already open in another process`, { cause: err });
    }
    throw storeError(path, err, 'open');
  }
  return db;
}

/**
 * SQLite's errors about the file or the disk, as LOG_UNAVAILABLE (HTTP 503)
 * naming the file: a full disk, a file or mount that is read-only, I/O errors.
 * Anything else is returned as it is.
 */
function storeError(path: string, err: unknown, step: 'open' | 'append'): unknown {
  const code = (err as { code?: string }).code ?? '';
  const detail = `${code}: ${(err as Error).message}`;
  let why: string | undefined;
  if (code === 'SQLITE_FULL') why = 'the disk is full';
  else if (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_PERM')
    why =
      'it is read-only (check the permissions of the file and its directory, the mount and the immutable attribute)';
  else if (code.startsWith('SQLITE_CANTOPEN'))
    why = 'it cannot be opened for writing (the directory must be writable too: SQLite keeps its WAL files beside it)';
  else if (code.startsWith('SQLITE_IOERR')) why = 'the disk reported an I/O error';
  if (why === undefined) return err;
  const message =
    step === 'open'
      ? `sqlite log ${path} cannot be written: ${why} (${detail})`
      : `sqlite log ${path}: write refused, ${why} (${detail})`;
  return new HubError('LOG_UNAVAILABLE', message, { cause: err });
}

/** The statements the log runs, prepared once. */
function prepare(db: Database.Database) {
  return {
    insert: db.prepare<[bigint, string]>('INSERT INTO entries ("index", payload) VALUES (?, ?)'),
    selectFrom: db.prepare<[bigint, number], { index: bigint; payload: string }>(
      'SELECT "index", payload FROM entries WHERE "index" >= ? ORDER BY "index" LIMIT ?',
    ),
    selectSnapshot: db.prepare<[], { index: bigint; state: string }>(
      'SELECT "index", state FROM snapshot WHERE id = 1',
    ),
    saveSnapshot: db.prepare<[bigint, string]>('INSERT OR REPLACE INTO snapshot (id, "index", state) VALUES (1, ?, ?)'),
    deleteBelow: db.prepare<[bigint]>('DELETE FROM entries WHERE "index" < ?'),
    bounds: db.prepare<[], { lo: bigint | null; hi: bigint | null }>(
      'SELECT MIN("index") AS lo, MAX("index") AS hi FROM entries',
    ),
  };
}

interface SqliteState {
  path: string;
  db: Database.Database;
  statements: ReturnType<typeof prepare>;
  snapshot: LogSnapshot | undefined;
  first: bigint;
  last: bigint;
  closed: boolean;
  changes: ChangeNotifier;
}

function openState(options: SqliteLogOptions): SqliteState {
  const synchronous = options.synchronous ?? DEFAULT_SQLITE_SYNCHRONOUS;
  if (synchronous !== 'FULL' && synchronous !== 'NORMAL') {
    throw new HubError('INVALID_ARGUMENT', `synchronous: expected FULL or NORMAL, got ${String(synchronous)}`, {
      field: 'synchronous',
    });
  }
  const db = openDatabase(options.path, synchronous);
  const statements = prepare(db);
  const row = statements.selectSnapshot.get();
  // Cached bounds: this process is the only writer (see openDatabase).
  const snapshot = row === undefined ? undefined : Object.freeze({ index: row.index, state: row.state });
  const { lo, hi } = statements.bounds.get()!;
  // Entries at and below the snapshot may all be gone; the snapshot still remembers their indexes.
  let last = hi ?? 0n;
  if (snapshot !== undefined && snapshot.index > last) last = snapshot.index;
  const first = lo ?? last + 1n;
  return { path: options.path, db, statements, snapshot, first, last, closed: false, changes: createChangeNotifier() };
}

function startCommits(s: SqliteState): GroupCommitter {
  const { insert } = s.statements;
  const writeBatch = s.db.transaction((payloads: readonly string[]) => {
    const start = s.last + 1n;
    for (let i = 0; i < payloads.length; i++) insert.run(start + BigInt(i), payloads[i]!);
    return start;
  });
  return createGroupCommitter((payloads) => {
    let start: bigint;
    try {
      start = writeBatch(payloads);
    } catch (err) {
      throw storeError(s.path, err, 'append');
    }
    s.last = start + BigInt(payloads.length) - 1n;
    s.changes.notify();
    return start;
  });
}

function compact(s: SqliteState, next: LogSnapshot, keepTail: number): void {
  if (s.closed) throw closedError();
  checkCompaction(next, keepTail, s.last, s.snapshot);
  const cut = compactionCut(next, keepTail);
  const { saveSnapshot, deleteBelow } = s.statements;
  s.db.transaction(() => {
    saveSnapshot.run(next.index, next.state);
    if (cut > s.first) deleteBelow.run(cut);
  })();
  s.snapshot = Object.freeze({ index: next.index, state: next.state });
  if (cut > s.first) s.first = cut;
}

export function createSqliteLog(options: SqliteLogOptions): Log {
  const s = openState(options);
  const committer = startCommits(s);
  const { selectFrom } = s.statements;
  return {
    kind: 'sqlite',
    ...localReads({
      first: () => s.first,
      isClosed: () => s.closed,
      changes: s.changes,
      fetch(start, limit) {
        if (limit === 0 || start > s.last) return [];
        return selectFrom
          .all(start, limit ?? -1)
          .map((row) => Object.freeze({ index: row.index, payload: row.payload }));
      },
    }),

    async append(payloads) {
      checkPayloads(payloads);
      if (s.closed) throw closedError();
      if (payloads.length === 0) return [];
      return committer.submit([...payloads]);
    },

    async lastIndex() {
      return s.last;
    },

    async firstIndex() {
      return s.first;
    },

    available: () => !s.closed,

    async loadSnapshot() {
      return s.snapshot;
    },

    async compact(next, keepTail) {
      compact(s, next, keepTail);
    },

    async close() {
      if (s.closed) return;
      // Appends accepted before close still commit; later ones see `closed`.
      s.closed = true;
      await committer.flushNow();
      s.changes.notify();
      s.db.close();
    },
  };
}
