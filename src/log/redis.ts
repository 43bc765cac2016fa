// The shared log: several hub processes append to one Redis stream. Indexes come
// from a Lua script (INCRBY + XADD with ID "<index>-1"), so they are gap-free and
// strictly increasing across processes; one script call carries all the appends
// of an event-loop turn (group commit). Each tail gets its own connection for
// XREAD BLOCK and is stopped by disconnecting it.
import Redis from 'ioredis';
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
import type { Log, LogEntry, LogSnapshot } from './log';
import { APPEND_LUA, BOUNDS_LUA, COMPACT_LUA, READ_LUA } from './redis-scripts';

export interface RedisLogOptions {
  url: string;
  /** Prefix of every key; the "{...}" hash tag keeps all keys in one cluster slot. Default "xdshub:{log}:". */
  keyPrefix?: string;
}

/** Longest a caught-up tail blocks in XREAD before it re-checks the log's bounds. */
const TAIL_BLOCK_MS = 1_000;

/** Payloads per append script: a script blocks the Redis server (and every other hub) while it runs. */
const MAX_SCRIPT_BATCH = 2_000;

interface Scripts {
  xdshubAppend(counter: string, stream: string, snap: string, ...payloads: string[]): Promise<string>;
  xdshubCompact(counter: string, stream: string, snap: string, index: string, state: string, cut: string): Promise<'OK'>;
  xdshubBounds(counter: string, stream: string, snap: string): Promise<[string, string]>;
  xdshubRead(counter: string, stream: string, snap: string, start: string, count: string): Promise<[string, string, StreamRecord[]]>;
}

type StreamRecord = [id: string, fields: string[]];

/** Stream IDs are "<index>-1". */
const idToIndex = (id: string): bigint => BigInt(id.slice(0, id.indexOf('-')));

function toEntry([id, fields]: StreamRecord): LogEntry {
  const at = fields.indexOf('p');
  return Object.freeze({ index: idToIndex(id), payload: at >= 0 ? fields[at + 1]! : '' });
}

export function createRedisLog(options: RedisLogOptions): Log {
  const prefix = options.keyPrefix ?? 'xdshub:{log}:';
  const keys = [`${prefix}last`, `${prefix}stream`, `${prefix}snapshot`] as const;
  const [, stream] = keys;
  // An append in flight when the connection drops has an unknown outcome: resending
  // it could append the same payloads twice under new indexes, so it fails instead.
  // Commands queued while offline were never sent and still go out on reconnect.
  const client = new Redis(options.url, { autoResendUnfulfilledCommands: false });
  // ioredis reports every failed (re)connect as an 'error' event and retries on its
  // own; the commands that fail because of it reject, and carry this as their cause.
  let connectionError: Error | undefined;
  const onConnectionError = (err: Error) => {
    connectionError = err;
  };
  client.on('error', onConnectionError);
  client.defineCommand('xdshubAppend', { numberOfKeys: 3, lua: APPEND_LUA });
  client.defineCommand('xdshubCompact', { numberOfKeys: 3, lua: COMPACT_LUA });
  client.defineCommand('xdshubBounds', { numberOfKeys: 3, lua: BOUNDS_LUA });
  client.defineCommand('xdshubRead', { numberOfKeys: 3, lua: READ_LUA });
  const scripts = client as unknown as Scripts;

  const redisFailure = (what: string, err: unknown): unknown => {
    if (err instanceof HubError) return err;
    const why = connectionError ? ` (last connection error: ${connectionError.message})` : '';
    return new HubError('INTERNAL', `redis log: ${what} failed: ${String(err)}${why}`, { cause: err });
  };

  let closed = false;
  /** Dedicated connections of running tails, disconnected on close. */
  const tailConnections = new Set<Redis>();

  const committer = createGroupCommitter(
    async (payloads) => BigInt(await call('append', () => scripts.xdshubAppend(...keys, ...payloads))),
    MAX_SCRIPT_BATCH,
  );

  /** Runs one Redis call, turning transport failures into a HubError that names the step. */
  async function call<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      throw redisFailure(what, err);
    }
  }

  async function bounds(): Promise<{ first: bigint; last: bigint }> {
    const [headId, lastText] = await call('bounds', () => scripts.xdshubBounds(...keys));
    const last = BigInt(lastText);
    // Empty stream: nothing yet (first = 1) or everything compacted (first = last + 1).
    const first = headId === '' ? last + 1n : idToIndex(headId);
    return { first, last };
  }

  /** Entries from `start` (at most `count`); LOG_COMPACTED if `start` is below the oldest retained entry. */
  async function readPage(start: bigint, count: number): Promise<LogEntry[]> {
    const [headId, lastText, records] = await call('read', () =>
      scripts.xdshubRead(...keys, `${start}-1`, String(count)),
    );
    const first = headId === '' ? BigInt(lastText) + 1n : idToIndex(headId);
    if (start < first) throw compactedError(start, first);
    return records.map(toEntry);
  }

  async function* tail(from: bigint, signal: AbortSignal): AsyncGenerator<LogEntry> {
    let next = effectiveFrom(from);
    let conn: Redis | undefined;
    const stop = () => conn?.disconnect();
    signal.addEventListener('abort', stop, { once: true });
    try {
      while (!signal.aborted && !closed) {
        // Catch up (or notice a compaction that overtook us) with plain reads on the shared connection.
        let page: LogEntry[];
        try {
          page = await readPage(next, PAGE_SIZE);
        } catch (err) {
          if (closed) return;
          throw err;
        }
        for (const entry of page) {
          if (signal.aborted || closed) return;
          yield entry;
          next = entry.index + 1n;
        }
        if (page.length === PAGE_SIZE) continue;
        // The abort may have come while the page was in flight, before there was a connection to drop.
        if (signal.aborted || closed) return;

        // Caught up: block for newer entries on this tail's own connection, never the shared one.
        // XREAD only reads, so resending it after a reconnect is safe and keeps the tail alive.
        if (conn === undefined) {
          conn = client.duplicate({ autoResendUnfulfilledCommands: true });
          conn.on('error', onConnectionError);
          tailConnections.add(conn);
        }
        let reply: [string, StreamRecord[]][] | null;
        try {
          // IDs are "<index>-1": entries after "<next-1>-1" start at index `next`.
          // The block is bounded: an entry appended and then compacted away between
          // the page read above and this XREAD would leave nothing to wake it, so
          // it returns now and then to re-read the page (which reports LOG_COMPACTED).
          reply = (await conn.xread('COUNT', PAGE_SIZE, 'BLOCK', TAIL_BLOCK_MS, 'STREAMS', stream, `${next - 1n}-1`)) as
            | [string, StreamRecord[]][]
            | null;
        } catch (err) {
          if (signal.aborted || closed) return; // our own disconnect interrupted the block
          throw redisFailure('tail', err);
        }
        for (const entry of (reply?.[0]?.[1] ?? []).map(toEntry)) {
          // Another hub's compaction overtook this reader: say so instead of skipping.
          if (entry.index !== next) throw compactedError(next, entry.index);
          if (signal.aborted || closed) return;
          yield entry;
          next = entry.index + 1n;
        }
      }
    } finally {
      signal.removeEventListener('abort', stop);
      if (conn !== undefined) {
        tailConnections.delete(conn);
        conn.disconnect();
      }
    }
  }

  return {
    kind: 'redis',

    async append(payloads) {
      checkPayloads(payloads);
      if (closed) throw closedError();
      if (payloads.length === 0) return [];
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
        const page = await readPage(next, want);
        out.push(...page);
        if (page.length < want || (limit !== undefined && out.length >= limit)) return out;
        next = page[page.length - 1]!.index + 1n;
      }
    },

    tail(from, signal) {
      checkFrom(from);
      return tail(from, signal);
    },

    async lastIndex() {
      if (closed) throw closedError();
      return (await bounds()).last;
    },

    async firstIndex() {
      if (closed) throw closedError();
      return (await bounds()).first;
    },

    async loadSnapshot(): Promise<LogSnapshot | undefined> {
      if (closed) throw closedError();
      const saved = await call('loadSnapshot', () => client.hgetall(keys[2]));
      if (saved.index === undefined || saved.state === undefined) return undefined;
      return Object.freeze({ index: BigInt(saved.index), state: saved.state });
    },

    async compact(snapshot, keepTail) {
      if (closed) throw closedError();
      const [{ last }, current] = await Promise.all([bounds(), this.loadSnapshot()]);
      checkCompaction(snapshot, keepTail, last, current);
      const cut = compactionCut(snapshot, keepTail);
      try {
        await scripts.xdshubCompact(...keys, String(snapshot.index), snapshot.state, String(cut));
      } catch (err) {
        // Lost a race with another hub's newer snapshot: the same refusal as the local check.
        if (/OLDER_SNAPSHOT|BEYOND_LAST/.test(String(err))) {
          throw new HubError('INVALID_ARGUMENT', `snapshot.index: ${String(err)}`, { field: 'snapshot.index' });
        }
        throw redisFailure('compact', err);
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      await committer.flushNow();
      for (const conn of tailConnections) conn.disconnect();
      // QUIT lets queued replies arrive; a client that never connected has nothing to wait for.
      if (client.status === 'ready') await client.quit();
      else client.disconnect();
    },
  };
}
