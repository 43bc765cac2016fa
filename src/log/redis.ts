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
import { checkFrom, checkLimit, checkPayloads, closedError, effectiveFrom } from './common';
import { createGroupCommitter } from './group-commit';
import type { Log, LogEntry, LogSnapshot } from './log';
import { createChangeNotifier } from './notifier';
import { createAppender } from './redis-append';
import { answeredWithin, openLink } from './redis-link';
import {
  bounds,
  call,
  compactNow,
  loadSnapshot,
  outcomeUnknown,
  type RedisLogBase,
  type RedisLogState,
  readPage,
  readRange,
  type Scripts,
  SILENT_READ_MS,
  unavailable,
} from './redis-reads';
import { APPEND_LUA, BOUNDS_LUA, COMPACT_LUA, FENCE_LUA, READ_LUA, RELEASE_LUA, WRITER_TTL_MS } from './redis-scripts';
import { createOwnEntries, redisTail } from './redis-tail';
import { type RedisConnection, redisConnection } from './redis-target';

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

/** Payloads per append script: a script blocks the Redis server (and every other hub) while it runs. */
const MAX_SCRIPT_BATCH = 2_000;

/** A compaction claim ends by itself after this long, should its holder die. */
const COMPACT_CLAIM_MS = 60_000;

/** Own appends a tail may take from memory instead of Redis (see redis-tail.ts): at most this many, and characters. */
const OWN_ENTRIES = 10_000;
const OWN_CHARS = 32 * 1024 * 1024;

/** Keys, the connection and the state every part of one log shares. */
function openBase(options: RedisLogOptions): RedisLogBase {
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
  if (!options.connection && !options.url)
    throw new HubError('INVALID_ARGUMENT', 'createRedisLog: url or connection is required');
  const connection = options.connection ?? redisConnection(options.url!);
  const link = openLink(connection);
  link.client.defineCommand('xdshubAppend', { numberOfKeys: 4, lua: APPEND_LUA });
  link.client.defineCommand('xdshubFence', { numberOfKeys: 1, lua: FENCE_LUA });
  link.client.defineCommand('xdshubCompact', { numberOfKeys: 3, lua: COMPACT_LUA });
  link.client.defineCommand('xdshubBounds', { numberOfKeys: 3, lua: BOUNDS_LUA });
  link.client.defineCommand('xdshubRead', { numberOfKeys: 3, lua: READ_LUA });
  return {
    keys,
    stream,
    snapshotKey,
    writerKey,
    compactLock,
    writeTimeoutMs,
    waitReplicas,
    connection,
    label: connection.label,
    logger: options.logger,
    link,
    scripts: link.client as unknown as Scripts,
    closed: false,
    tailLinks: new Set(),
    own: createOwnEntries(OWN_ENTRIES, OWN_CHARS),
    changes: createChangeNotifier(),
  };
}

/** Appends (redis-append.ts), group-committed. */
function startAppends(s: RedisLogBase): Pick<RedisLogState, 'appender' | 'committer'> {
  const { link, keys, writerKey } = s;
  const appender = createAppender({
    link,
    label: s.label,
    writeTimeoutMs: s.writeTimeoutMs,
    waitReplicas: s.waitReplicas,
    logger: s.logger,
    unavailable: (why, cause) => unavailable(s, why, cause),
    outcomeUnknown: (why, cause) => outcomeUnknown(s, why, cause),
    appendScript: (batch, payloads) =>
      s.scripts.xdshubAppend(...keys, writerKey, String(WRITER_TTL_MS), String(batch), ...payloads),
    fenceScript: (batch) => s.scripts.xdshubFence(writerKey, String(WRITER_TTL_MS), String(batch)),
    landed(first, payloads) {
      s.own.add(first, payloads);
      s.changes.notify();
    },
  });
  link.onReady(() => {
    // What this process appended before the drop may be gone (a failover to a replica
    // that had not received it): tails read Redis again until new appends come in.
    s.own.clear();
  });
  return { appender, committer: createGroupCommitter(appender.commit, MAX_SCRIPT_BATCH) };
}

function tail(s: RedisLogState, from: bigint, signal: AbortSignal): AsyncIterable<LogEntry> {
  const { link } = s;
  return redisTail(
    {
      link,
      stream: s.stream,
      own: s.own,
      changes: s.changes,
      isClosed: () => s.closed,
      // Bounded too: a tail blocked on a silent connection would wait for good.
      readPage: (start, count, prev) => answeredWithin(link, 'read', readPage(s, start, count, prev), SILENT_READ_MS),
      handedOut: (entry) => s.appender.saw(entry.index),
      openBlockingLink() {
        const blocking = openLink(s.connection);
        s.tailLinks.add(blocking);
        // Forgotten when the tail closes it (not at ioredis's 'end': the link restarts after that).
        return {
          ...blocking,
          close() {
            s.tailLinks.delete(blocking);
            blocking.close();
          },
        };
      },
    },
    from,
    signal,
  );
}

async function unreachable(s: RedisLogState, signal: AbortSignal): Promise<HubError | undefined> {
  const { link, writeTimeoutMs } = s;
  while (!s.closed && !signal.aborted) {
    if (link.state() === 'ready') {
      await link.whenDown(signal);
      continue;
    }
    const until = (link.downSince() ?? Date.now()) + writeTimeoutMs;
    if (await link.whenReady(signal, until)) continue;
    if (s.closed || signal.aborted) break;
    return unavailable(s, `not reachable for ${writeTimeoutMs} ms`);
  }
  return undefined;
}

async function close(s: RedisLogState): Promise<void> {
  if (s.closed) return;
  s.closed = true;
  // Appends already accepted still commit (each waits at most writeTimeoutMs).
  await s.committer.flushNow();
  s.changes.notify(); // wakes tails waiting on own appends; they see `closed` and end
  for (const tailLink of s.tailLinks) tailLink.close();
  s.tailLinks.clear();
  // Every command this log sent has settled (or raced the close below): nothing to wait for.
  s.link.close();
}

async function claimCompaction(s: RedisLogState): Promise<boolean> {
  const claimed = await call(s, 'claimCompaction', () =>
    s.link.run((c) => c.set(s.compactLock, s.writerKey, 'PX', COMPACT_CLAIM_MS, 'NX')),
  );
  return claimed === 'OK';
}

async function compact(s: RedisLogState, snapshot: LogSnapshot, keepTail: number): Promise<void> {
  try {
    await compactNow(s, snapshot, keepTail);
  } finally {
    // Our claim (if any) ends here; another process's claim is left alone.
    await s.link.run((c) => c.eval(RELEASE_LUA, 1, s.compactLock, s.writerKey)).catch(() => undefined);
  }
}

export function createRedisLog(options: RedisLogOptions): Log {
  const base = openBase(options);
  const s: RedisLogState = Object.assign(base, startAppends(base));
  const { link } = s;
  const ensureOpen = () => {
    if (s.closed) throw closedError();
  };
  return {
    kind: 'redis',

    async append(payloads) {
      checkPayloads(payloads);
      ensureOpen();
      if (payloads.length === 0) return [];
      // Refused at once during an outage rather than queued behind a batch that is waiting for the connection.
      if (link.state() === 'down') throw unavailable(s, 'not connected; the write was not applied');
      return s.committer.submit([...payloads]);
    },

    async read(from, limit) {
      checkFrom(from);
      checkLimit(limit);
      ensureOpen();
      return readRange(s, effectiveFrom(from), limit);
    },

    tail(from, signal) {
      checkFrom(from);
      return tail(s, from, signal);
    },

    available: () => !s.closed && link.state() === 'ready',

    async lastIndex() {
      ensureOpen();
      return (await bounds(s)).last;
    },

    async firstIndex() {
      ensureOpen();
      return (await bounds(s)).first;
    },

    async loadSnapshot() {
      ensureOpen();
      return loadSnapshot(s);
    },

    async claimCompaction() {
      ensureOpen();
      return claimCompaction(s);
    },

    async compact(snapshot, keepTail) {
      ensureOpen();
      await compact(s, snapshot, keepTail);
    },

    unreachable: (signal) => unreachable(s, signal),
    close: () => close(s),
  };
}
