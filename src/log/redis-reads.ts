// Reads of the Redis log (see redis.ts) and how any one Redis call fails: the
// state one log's parts share, the bounded `call`, pages with the checks that
// notice a compacted or rewound log, snapshots and compaction.
import type pino from 'pino';
import { HubError } from '../errors';
import { checkCompaction, closedError, compactedError, compactionCut, PAGE_SIZE } from './common';
import type { GroupCommitter } from './group-commit';
import type { LogEntry, LogSnapshot } from './log';
import type { ChangeNotifier } from './notifier';
import type { Appender } from './redis-append';
import { answeredWithin, LinkDown, type RedisLink } from './redis-link';
import { idToIndex, type OwnEntries, toEntry } from './redis-tail';
import type { RedisConnection } from './redis-target';

/** Longest the reads of a just-opened log wait for its first connection. */
const FIRST_CONNECT_MS = 10_000;

/**
 * Longest a read (a page, a snapshot, a compaction step) may go unanswered on an open
 * connection before the connection is dropped as stalled. Generous: a page can be large.
 */
export const SILENT_READ_MS = 10_000;

type StreamRecord = [id: string, fields: string[]];

export interface Scripts {
  xdshubAppend(
    counter: string,
    stream: string,
    snap: string,
    writer: string,
    ttl: string,
    seq: string,
    ...payloads: string[]
  ): Promise<string>;
  xdshubFence(writer: string, ttl: string, seq: string): Promise<string>;
  xdshubCompact(
    counter: string,
    stream: string,
    snap: string,
    index: string,
    state: string,
    cut: string,
  ): Promise<'OK'>;
  xdshubBounds(counter: string, stream: string, snap: string): Promise<[string, string]>;
  xdshubRead(
    counter: string,
    stream: string,
    snap: string,
    start: string,
    count: string,
  ): Promise<[string, string, StreamRecord[]]>;
}

/** What the parts of one Redis log share. */
export interface RedisLogBase {
  keys: readonly [counter: string, stream: string, snapshot: string];
  stream: string;
  snapshotKey: string;
  writerKey: string;
  compactLock: string;
  writeTimeoutMs: number;
  waitReplicas: number;
  connection: RedisConnection;
  label: string;
  logger: pino.Logger | undefined;
  link: RedisLink;
  scripts: Scripts;
  closed: boolean;
  tailLinks: Set<RedisLink>;
  own: OwnEntries;
  changes: ChangeNotifier;
}

export interface RedisLogState extends RedisLogBase {
  appender: Appender;
  committer: GroupCommitter;
}

export function unavailable(s: RedisLogBase, why: string, cause?: unknown): HubError {
  const last = s.link.state() === 'ready' ? undefined : s.link.lastError();
  return new HubError('LOG_UNAVAILABLE', `${s.label} is unavailable: ${why}${last ? ` (${last.message})` : ''}`, {
    cause,
  });
}

// Same wording up to the outcome, so a reader of either sees that the log is what failed.
export function outcomeUnknown(s: RedisLogBase, why: string, cause?: unknown): HubError {
  return new HubError('LOG_OUTCOME_UNKNOWN', `${s.label} is unavailable: ${why}`, { cause });
}

/**
 * Until the first connection is up, calls wait for it instead of failing: the log was
 * just opened (and Redis may still be loading its data). Bounded like ioredis's connect.
 */
async function firstConnect(s: RedisLogBase): Promise<void> {
  if (s.link.state() === 'connecting')
    await s.link.whenReady(undefined, Date.now() + Math.max(s.writeTimeoutMs, FIRST_CONNECT_MS));
}

/**
 * Runs one Redis read (or compaction step); a down connection becomes LOG_UNAVAILABLE
 * (or LOG_CLOSED), anything else INTERNAL naming the step. Reads wait out a short drop
 * (up to the write timeout, e.g. a failover being announced) before they fail; with
 * `answerWithinWriteTimeout`, an open connection that answers nothing within the write
 * timeout fails too (LOG_UNAVAILABLE), as an append does; any other call after
 * SILENT_READ_MS. Either way the silent connection is dropped and opened again.
 */
export async function call<T>(
  s: RedisLogBase,
  what: string,
  run: () => Promise<T>,
  answerWithinWriteTimeout = false,
): Promise<T> {
  const { link } = s;
  try {
    await firstConnect(s);
    if (link.state() === 'down') await link.whenReady(undefined, Date.now() + s.writeTimeoutMs);
    // A connection that stays open while Redis answers nothing (stalled, half-open) must not hold the caller.
    return await answeredWithin(link, what, run(), answerWithinWriteTimeout ? s.writeTimeoutMs : SILENT_READ_MS);
  } catch (err) {
    if (s.closed) throw closedError();
    if (err instanceof LinkDown) {
      if (err.sent && /^no answer/.test(err.reason)) throw unavailable(s, `${what}: ${err.reason}`, err);
      throw unavailable(s, `${what} ${err.sent ? 'lost with the connection' : 'not sent: not connected'}`, err);
    }
    if (err instanceof HubError) throw err;
    throw new HubError('INTERNAL', `${s.label}: ${what} failed: ${String(err)}`, { cause: err });
  }
}

export async function bounds(s: RedisLogBase): Promise<{ first: bigint; last: bigint }> {
  // Asked by requests too (a write that changes nothing, a blocking query ahead of this hub): bounded.
  const [headId, lastText] = await call(s, 'bounds', () => s.link.run(() => s.scripts.xdshubBounds(...s.keys)), true);
  const last = BigInt(lastText);
  // Empty stream: nothing yet (first = 1) or everything compacted (first = last + 1).
  const first = headId === '' ? last + 1n : idToIndex(headId);
  return { first, last };
}

/**
 * Entries from `start` (at most `count`); LOG_COMPACTED if `start` is below the oldest
 * retained entry; LinkDown when down. With `prev` (the entry the reader holds just
 * before `start`), also checks that the log still holds it: LOG_REWOUND if not.
 */
export async function readPage(s: RedisLogState, start: bigint, count: number, prev?: LogEntry): Promise<LogEntry[]> {
  await firstConnect(s);
  const from = prev ? prev.index : start;
  const [headId, lastText, records] = await s.link.run(() =>
    s.scripts.xdshubRead(...s.keys, `${from}-1`, String(prev ? count + 1 : count)),
  );
  const last = BigInt(lastText);
  const first = headId === '' ? last + 1n : idToIndex(headId);
  if (start < first) throw compactedError(start, first);
  const entries = records.map(toEntry);
  // The newest index went below what this reader has seen: entries it applied are gone.
  if (prev && last < prev.index) throw rewound(s, prev.index, `the log now ends at ${last}`, last);
  if (prev && prev.index >= first) {
    const held = entries.shift();
    if (held?.index !== prev.index || held.payload !== prev.payload)
      throw rewound(s, prev.index, 'it holds another entry there', last);
  }
  return entries;
}

function rewound(s: RedisLogState, index: bigint, why: string, now: bigint): HubError {
  s.appender.rewoundTo(now); // the log as it is now: later appends compare with this
  return new HubError(
    'LOG_REWOUND',
    `${s.label}: entry ${index}, already applied here, is no longer in the log (${why}); a Redis failover lost entries`,
  );
}

/** Entries from `start` (a checked `from`), at most `limit`. */
export async function readRange(s: RedisLogState, start: bigint, limit: number | undefined): Promise<LogEntry[]> {
  if (limit === 0) {
    const { first } = await bounds(s);
    if (start < first) throw compactedError(start, first);
    return [];
  }
  // Without a limit, fetch in pages so no single reply holds the whole log.
  const out: LogEntry[] = [];
  let next = start;
  for (;;) {
    const want = limit === undefined ? PAGE_SIZE : Math.min(PAGE_SIZE, limit - out.length);
    const page = await call(s, 'read', () => readPage(s, next, want));
    out.push(...page);
    if (page.length < want || (limit !== undefined && out.length >= limit)) return out;
    next = page[page.length - 1]!.index + 1n;
  }
}

export async function loadSnapshot(s: RedisLogBase): Promise<LogSnapshot | undefined> {
  const saved = await call(s, 'loadSnapshot', () => s.link.run((c) => c.hgetall(s.snapshotKey)));
  if (saved.index === undefined || saved.state === undefined) return undefined;
  return Object.freeze({ index: BigInt(saved.index), state: saved.state });
}

export async function compactNow(s: RedisLogBase, snapshot: LogSnapshot, keepTail: number): Promise<void> {
  const [{ last }, current] = await Promise.all([bounds(s), loadSnapshot(s)]);
  checkCompaction(snapshot, keepTail, last, current);
  const cut = compactionCut(snapshot, keepTail);
  try {
    await call(s, 'compact', () =>
      s.link.run(() => s.scripts.xdshubCompact(...s.keys, String(snapshot.index), snapshot.state, String(cut))),
    );
  } catch (err) {
    // Lost a race with another hub's newer snapshot: the same refusal as the local check.
    const cause = err instanceof HubError ? err.cause : err;
    if (/OLDER_SNAPSHOT|BEYOND_LAST/.test(String(cause))) {
      throw new HubError('INVALID_ARGUMENT', `snapshot.index: ${String(cause)}`, { field: 'snapshot.index' });
    }
    throw err;
  }
}
