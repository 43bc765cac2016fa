// The shared log: several hub processes append to one Redis stream. Indexes come
// from a Lua script (INCRBY + XADD with ID "<index>-1"), so they are gap-free and
// strictly increasing across processes; one script call carries all the appends
// of an event-loop turn (group commit). Each tail gets its own connection for
// XREAD BLOCK and is stopped by closing it.
//
// Outages: while the connection is down, appends are refused at once with
// LOG_UNAVAILABLE (HTTP 503) and reads fail the same way; tails wait. An append in
// flight when the connection drops is resent once it is back (the script is
// idempotent per writer and batch), or refused when it is not back within
// `writeTimeoutMs` — then fenced on reconnect so it can never land later
// (redis-append.ts).
import { randomUUID } from 'node:crypto';
import type pino from 'pino';
import { HubError } from '../errors';
import {
  PAGE_SIZE,
  checkCompaction,
  checkFrom,
  checkLimit,
  checkPayloads,
  closedError,
  compactedError,
  compactionCut,
  effectiveFrom,
} from './common';
import { createGroupCommitter } from './group-commit';
import { createAppender } from './redis-append';
import type { Log, LogEntry, LogSnapshot } from './log';
import { createChangeNotifier } from './notifier';
import { answeredWithin, LinkDown, openLink, type RedisLink } from './redis-link';
import { APPEND_LUA, BOUNDS_LUA, COMPACT_LUA, FENCE_LUA, READ_LUA, RELEASE_LUA, WRITER_TTL_MS } from './redis-scripts';
import { createOwnEntries, idToIndex, redisTail, toEntry } from './redis-tail';
import { redisConnection, type RedisConnection } from './redis-target';

export interface RedisLogOptions {
  /** redis:// or rediss:// URL (or a Sentinel URL, see redis-target.ts); or give `connection`. */
  url?: string;
  /** Where and how to connect, as built by redisConnection() from the --store URL and the --redis-* flags. */
  connection?: RedisConnection;
  /** Prefix of every key; the "{...}" hash tag keeps all keys in one cluster slot. Default "xdshub:{log}:". */
  keyPrefix?: string;
  /**
   * Longest an append waits for Redis (to connect, to answer, to come back after a
   * drop, for its replicas) before it is refused with LOG_UNAVAILABLE. Default 2,000 ms.
   */
  writeTimeoutMs?: number;
  /** Replicas that must hold an append (Redis WAIT) before it is acknowledged. Default 0. */
  waitReplicas?: number;
  /** Where outage transitions and fenced appends are reported. */
  logger?: pino.Logger;
}

export const DEFAULT_WRITE_TIMEOUT_MS = 2_000;

/** Longest the reads of a just-opened log wait for its first connection. */
const FIRST_CONNECT_MS = 10_000;

/**
 * Longest a read (a page, a snapshot, a compaction step) may go unanswered on an open
 * connection before the connection is dropped as stalled. Generous: a page can be large.
 */
const SILENT_READ_MS = 10_000;

/** Payloads per append script: a script blocks the Redis server (and every other hub) while it runs. */
const MAX_SCRIPT_BATCH = 2_000;

/** A compaction claim ends by itself after this long, should its holder die. */
const COMPACT_CLAIM_MS = 60_000;

/** Own appends a tail may take from memory instead of Redis (see redis-tail.ts): at most this many, and characters. */
const OWN_ENTRIES = 10_000;
const OWN_CHARS = 32 * 1024 * 1024;

type StreamRecord = [id: string, fields: string[]];

interface Scripts {
  xdshubAppend(counter: string, stream: string, snap: string, writer: string, ttl: string, seq: string, ...payloads: string[]): Promise<string>;
  xdshubFence(writer: string, ttl: string, seq: string): Promise<string>;
  xdshubCompact(counter: string, stream: string, snap: string, index: string, state: string, cut: string): Promise<'OK'>;
  xdshubBounds(counter: string, stream: string, snap: string): Promise<[string, string]>;
  xdshubRead(counter: string, stream: string, snap: string, start: string, count: string): Promise<[string, string, StreamRecord[]]>;
}

export function createRedisLog(options: RedisLogOptions): Log {
  const prefix = options.keyPrefix ?? 'xdshub:{log}:';
  const keys = [`${prefix}last`, `${prefix}stream`, `${prefix}snapshot`] as const;
  const [, stream, snapshotKey] = keys;
  // This process's identity as a writer: batches are numbered per writer, so a
  // batch resent after a reconnect is recognised instead of appended twice.
  const writerKey = `${prefix}writer:${randomUUID()}`;
  // Held (SET NX, with an expiry) by the one hub that is compacting; see claimCompaction.
  const compactLock = `${prefix}compacting`;
  const writeTimeoutMs = options.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS;
  const waitReplicas = options.waitReplicas ?? 0;
  if (!options.connection && !options.url) throw new HubError('INVALID_ARGUMENT', 'createRedisLog: url or connection is required');
  const connection = options.connection ?? redisConnection(options.url!);
  const label = connection.label;
  const logger = options.logger;

  const open = (): RedisLink => {
    const link = openLink(connection);
    link.client.defineCommand('xdshubAppend', { numberOfKeys: 4, lua: APPEND_LUA });
    link.client.defineCommand('xdshubFence', { numberOfKeys: 1, lua: FENCE_LUA });
    link.client.defineCommand('xdshubCompact', { numberOfKeys: 3, lua: COMPACT_LUA });
    link.client.defineCommand('xdshubBounds', { numberOfKeys: 3, lua: BOUNDS_LUA });
    link.client.defineCommand('xdshubRead', { numberOfKeys: 3, lua: READ_LUA });
    return link;
  };
  const link = open();
  const scripts = link.client as unknown as Scripts;

  let closed = false;
  const tailLinks = new Set<RedisLink>();
  const own = createOwnEntries(OWN_ENTRIES, OWN_CHARS);
  const changes = createChangeNotifier();

  const unavailable = (why: string, cause?: unknown) => {
    const last = link.state() === 'ready' ? undefined : link.lastError();
    return new HubError('LOG_UNAVAILABLE', `${label} is unavailable: ${why}${last ? ` (${last.message})` : ''}`, { cause });
  };
  // Same wording up to the outcome, so a reader of either sees that the log is what failed.
  const outcomeUnknown = (why: string, cause?: unknown) =>
    new HubError('LOG_OUTCOME_UNKNOWN', `${label} is unavailable: ${why}`, { cause });

  /**
   * Until the first connection is up, calls wait for it instead of failing: the log was
   * just opened (and Redis may still be loading its data). Bounded like ioredis's connect.
   */
  async function firstConnect(): Promise<void> {
    if (link.state() === 'connecting') await link.whenReady(undefined, Date.now() + Math.max(writeTimeoutMs, FIRST_CONNECT_MS));
  }

  /**
   * Runs one Redis read (or compaction step); a down connection becomes LOG_UNAVAILABLE
   * (or LOG_CLOSED), anything else INTERNAL naming the step. Reads wait out a short drop
   * (up to the write timeout, e.g. a failover being announced) before they fail; with
   * `answerWithinWriteTimeout`, an open connection that answers nothing within the write
   * timeout fails too (LOG_UNAVAILABLE), as an append does; any other call after
   * SILENT_READ_MS. Either way the silent connection is dropped and opened again.
   */
  async function call<T>(what: string, run: () => Promise<T>, answerWithinWriteTimeout = false): Promise<T> {
    try {
      await firstConnect();
      if (link.state() === 'down') await link.whenReady(undefined, Date.now() + writeTimeoutMs);
      // A connection that stays open while Redis answers nothing (stalled, half-open) must not hold the caller.
      return await answeredWithin(link, what, run(), answerWithinWriteTimeout ? writeTimeoutMs : SILENT_READ_MS);
    } catch (err) {
      if (closed) throw closedError();
      if (err instanceof LinkDown) {
        if (err.sent && /^no answer/.test(err.reason)) throw unavailable(`${what}: ${err.reason}`, err);
        throw unavailable(`${what} ${err.sent ? 'lost with the connection' : 'not sent: not connected'}`, err);
      }
      if (err instanceof HubError) throw err;
      throw new HubError('INTERNAL', `${label}: ${what} failed: ${String(err)}`, { cause: err });
    }
  }

  // ── appends (redis-append.ts) ─────────────────────────────────────────────
  const appender = createAppender({
    link,
    label,
    writeTimeoutMs,
    waitReplicas,
    logger,
    unavailable,
    outcomeUnknown,
    appendScript: (batch, payloads) => scripts.xdshubAppend(...keys, writerKey, String(WRITER_TTL_MS), String(batch), ...payloads),
    fenceScript: (batch) => scripts.xdshubFence(writerKey, String(WRITER_TTL_MS), String(batch)),
    landed(first, payloads) {
      own.add(first, payloads);
      changes.notify();
    },
  });
  link.onReady(() => {
    // What this process appended before the drop may be gone (a failover to a replica
    // that had not received it): tails read Redis again until new appends come in.
    own.clear();
  });
  const committer = createGroupCommitter(appender.commit, MAX_SCRIPT_BATCH);

  // ── reads ─────────────────────────────────────────────────────────────────
  async function bounds(): Promise<{ first: bigint; last: bigint }> {
    // Asked by requests too (a write that changes nothing, a blocking query ahead of this hub): bounded.
    const [headId, lastText] = await call('bounds', () => link.run(() => scripts.xdshubBounds(...keys)), true);
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
  async function readPage(start: bigint, count: number, prev?: LogEntry): Promise<LogEntry[]> {
    await firstConnect();
    const from = prev ? prev.index : start;
    const [headId, lastText, records] = await link.run(() => scripts.xdshubRead(...keys, `${from}-1`, String(prev ? count + 1 : count)));
    const last = BigInt(lastText);
    const first = headId === '' ? last + 1n : idToIndex(headId);
    if (start < first) throw compactedError(start, first);
    const entries = records.map(toEntry);
    // The newest index went below what this reader has seen: entries it applied are gone.
    if (prev && last < prev.index) throw rewound(prev.index, `the log now ends at ${last}`, last);
    if (prev && prev.index >= first) {
      const held = entries.shift();
      if (held?.index !== prev.index || held.payload !== prev.payload) throw rewound(prev.index, 'it holds another entry there', last);
    }
    return entries;
  }

  const rewound = (index: bigint, why: string, now: bigint) => {
    appender.rewoundTo(now); // the log as it is now: later appends compare with this
    return new HubError('LOG_REWOUND', `${label}: entry ${index}, already applied here, is no longer in the log (${why}); a Redis failover lost entries`);
  };

  async function loadSnapshot(): Promise<LogSnapshot | undefined> {
    const saved = await call('loadSnapshot', () => link.run((c) => c.hgetall(snapshotKey)));
    if (saved.index === undefined || saved.state === undefined) return undefined;
    return Object.freeze({ index: BigInt(saved.index), state: saved.state });
  }

  async function compactNow(snapshot: LogSnapshot, keepTail: number): Promise<void> {
    const [{ last }, current] = await Promise.all([bounds(), loadSnapshot()]);
    checkCompaction(snapshot, keepTail, last, current);
    const cut = compactionCut(snapshot, keepTail);
    try {
      await call('compact', () => link.run(() => scripts.xdshubCompact(...keys, String(snapshot.index), snapshot.state, String(cut))));
    } catch (err) {
      // Lost a race with another hub's newer snapshot: the same refusal as the local check.
      const cause = err instanceof HubError ? err.cause : err;
      if (/OLDER_SNAPSHOT|BEYOND_LAST/.test(String(cause))) {
        throw new HubError('INVALID_ARGUMENT', `snapshot.index: ${String(cause)}`, { field: 'snapshot.index' });
      }
      throw err;
    }
  }

  return {
    kind: 'redis',

    async append(payloads) {
      checkPayloads(payloads);
      if (closed) throw closedError();
      if (payloads.length === 0) return [];
      // Refused at once during an outage rather than queued behind a batch that is waiting for the connection.
      if (link.state() === 'down') throw unavailable('not connected; the write was not applied');
      return committer.submit([...payloads]);
    },

    async read(from, limit) {
      checkFrom(from);
      checkLimit(limit);
      if (closed) throw closedError();
      const start = effectiveFrom(from);
      if (limit === 0) {
        const { first } = await bounds();
        if (start < first) throw compactedError(start, first);
        return [];
      }
      // Without a limit, fetch in pages so no single reply holds the whole log.
      const out: LogEntry[] = [];
      let next = start;
      for (;;) {
        const want = limit === undefined ? PAGE_SIZE : Math.min(PAGE_SIZE, limit - out.length);
        const page = await call('read', () => readPage(next, want));
        out.push(...page);
        if (page.length < want || (limit !== undefined && out.length >= limit)) return out;
        next = page[page.length - 1]!.index + 1n;
      }
    },

    tail(from, signal) {
      checkFrom(from);
      return redisTail(
        {
          link,
          stream,
          own,
          changes,
          isClosed: () => closed,
          // Bounded too: a tail blocked on a silent connection would wait for good.
          readPage: (start, count, prev) => answeredWithin(link, 'read', readPage(start, count, prev), SILENT_READ_MS),
          handedOut: (entry) => appender.saw(entry.index),
          openBlockingLink() {
            const blocking = openLink(connection);
            tailLinks.add(blocking);
            // Forgotten when the tail closes it (not at ioredis's 'end': the link restarts after that).
            return {
              ...blocking,
              close() {
                tailLinks.delete(blocking);
                blocking.close();
              },
            };
          },
        },
        from,
        signal,
      );
    },

    available: () => !closed && link.state() === 'ready',

    async lastIndex() {
      if (closed) throw closedError();
      return (await bounds()).last;
    },

    async firstIndex() {
      if (closed) throw closedError();
      return (await bounds()).first;
    },

    async loadSnapshot() {
      if (closed) throw closedError();
      return loadSnapshot();
    },

    async claimCompaction() {
      if (closed) throw closedError();
      const claimed = await call('claimCompaction', () => link.run((c) => c.set(compactLock, writerKey, 'PX', COMPACT_CLAIM_MS, 'NX')));
      return claimed === 'OK';
    },

    async compact(snapshot, keepTail) {
      if (closed) throw closedError();
      try {
        await compactNow(snapshot, keepTail);
      } finally {
        // Our claim (if any) ends here; another process's claim is left alone.
        await link.run((c) => c.eval(RELEASE_LUA, 1, compactLock, writerKey)).catch(() => undefined);
      }
    },

    async unreachable(signal) {
      while (!closed && !signal.aborted) {
        if (link.state() === 'ready') {
          await link.whenDown(signal);
          continue;
        }
        const until = (link.downSince() ?? Date.now()) + writeTimeoutMs;
        if (await link.whenReady(signal, until)) continue;
        if (closed || signal.aborted) break;
        return unavailable(`not reachable for ${writeTimeoutMs} ms`);
      }
      return undefined;
    },

    async close() {
      if (closed) return;
      closed = true;
      // Appends already accepted still commit (each waits at most writeTimeoutMs).
      await committer.flushNow();
      changes.notify(); // wakes tails waiting on own appends; they see `closed` and end
      for (const tailLink of tailLinks) tailLink.close();
      tailLinks.clear();
      // Every command this log sent has settled (or raced the close below): nothing to wait for.
      link.close();
    },
  };
}
