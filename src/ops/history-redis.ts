// The xDS history kept in Redis beside a Redis log, in keys of its own
// (`xdshub:{history}:…`, never the log's stream): recording pushes never moves
// the catalog's index. Every hub on that Redis writes to the same keys, so a
// node's history is one history whichever hub it was connected to (each record
// names the hub that sent it), and any hub answers for it.
//
// Per node, one hash `n:<node id>`: `last` (newest seq), `low` (oldest kept),
// `<seq>` → set hash (32 hex) + the record's JSON, `a<seq>` → its answer. The
// seq is given by Redis as the record is written (HINCRBY), so it increases
// per node across hubs and restarts; at most `perNode` records are kept (the
// oldest go first). Name → version maps are stored once per content in `sets`
// with a reference count in `refs`. `nodes` holds each node's identity and
// `recent` when it was last written; past `maxNodes` the least recently
// written node is forgotten whole.
//
// Writes are buffered and sent every `flushMs` as one script call per batch
// (at most BATCH items): a crash loses at most that much history, never a
// catalog write. A batch is idempotent per writer and batch number (as the
// log's appends are): one resent after a dropped connection is not written
// twice. While Redis is unreachable the batch is retried and new records wait,
// at most MAX_PENDING of them (the oldest are dropped past that, counted in
// the warning).
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import type { Logger } from 'pino';
import { HubError } from '../errors';
import {
  createSetHasher,
  type HistoryPersistence,
  type HistoryRecord,
  type KnownNode,
  type TypeShort,
} from './history';

export const HISTORY_KEY_PREFIX = 'xdshub:{history}:';

/** Items (records and answers) per script call: a script blocks Redis, and every hub on it, while it runs. */
const BATCH = 1_000;
const MAX_PENDING = 100_000;
/** How long Redis remembers a writer's last batch: far longer than any resend. */
const WRITER_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * KEYS: nodes, recent, sets, refs, writer. ARGV: node key prefix, perNode,
 * maxNodes, now (ms), writer TTL (ms), batch number, payload JSON
 * {nodes: {id: identity JSON}, sets: {hash: JSON}, records: [[node, hash,
 * record JSON, answer JSON or '']], answers: [[node, seq, answer JSON]]}.
 * Returns the seqs given to the records, comma-separated, in order.
 */
export const WRITE_LUA = `
local w = redis.call('HMGET', KEYS[5], 'batch', 'seqs')
local batch = tonumber(ARGV[6])
if w[1] and tonumber(w[1]) >= batch then
  if tonumber(w[1]) == batch then return w[2] end
  return redis.error_reply('STALE_BATCH ' .. w[1])
end
local prefix, perNode, maxNodes, now = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local p = cjson.decode(ARGV[7])
local function drop(key, seq)
  local v = redis.call('HGET', key, seq)
  if v then
    local h = string.sub(v, 1, 32)
    if redis.call('HINCRBY', KEYS[4], h, -1) <= 0 then
      redis.call('HDEL', KEYS[4], h)
      redis.call('HDEL', KEYS[3], h)
    end
  end
  redis.call('HDEL', key, seq, 'a' .. seq)
end
for id, known in pairs(p.nodes) do
  redis.call('HSET', KEYS[1], id, known)
  redis.call('ZADD', KEYS[2], now, id)
end
for h, json in pairs(p.sets) do redis.call('HSETNX', KEYS[3], h, json) end
local seqs = {}
for i, r in ipairs(p.records) do
  local key = prefix .. r[1]
  local seq = redis.call('HINCRBY', key, 'last', 1)
  redis.call('HSET', key, seq, r[2] .. r[3])
  if r[4] ~= '' then redis.call('HSET', key, 'a' .. seq, r[4]) end
  redis.call('HINCRBY', KEYS[4], r[2], 1)
  local low = tonumber(redis.call('HGET', key, 'low') or '1')
  while seq - low + 1 > perNode do
    drop(key, low)
    low = low + 1
  end
  redis.call('HSET', key, 'low', low)
  seqs[i] = seq
end
for _, a in ipairs(p.answers) do
  local key = prefix .. a[1]
  if redis.call('HEXISTS', key, a[2]) == 1 then redis.call('HSET', key, 'a' .. a[2], a[3]) end
end
local over = redis.call('ZCARD', KEYS[2]) - maxNodes
if over > 0 then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, over - 1)) do
    local key = prefix .. id
    local last = tonumber(redis.call('HGET', key, 'last') or '0')
    for s = tonumber(redis.call('HGET', key, 'low') or '1'), last do drop(key, s) end
    redis.call('DEL', key)
    redis.call('HDEL', KEYS[1], id)
    redis.call('ZREM', KEYS[2], id)
  end
end
local out = table.concat(seqs, ',')
redis.call('HSET', KEYS[5], 'batch', ARGV[6], 'seqs', out)
redis.call('PEXPIRE', KEYS[5], ARGV[5])
return out
`;

/**
 * KEYS: the node's hash, sets. ARGV: limit.
 * Returns {{seq, record JSON, answer JSON or '', set hash}...}, {hash, set JSON, ...}.
 */
const READ_LUA = `
local last = tonumber(redis.call('HGET', KEYS[1], 'last') or '0')
local low = tonumber(redis.call('HGET', KEYS[1], 'low') or '1')
local out, sets, seen = {}, {}, {}
for s = math.max(low, last - tonumber(ARGV[1]) + 1), last do
  local v = redis.call('HGET', KEYS[1], s)
  if v then
    local h = string.sub(v, 1, 32)
    out[#out + 1] = { s, string.sub(v, 33), redis.call('HGET', KEYS[1], 'a' .. s) or '', h }
    if not seen[h] then
      seen[h] = true
      sets[#sets + 1] = h
      sets[#sets + 1] = redis.call('HGET', KEYS[2], h) or '{}'
    end
  end
end
return { out, sets }
`;

interface Scripts {
  xdshubHistoryWrite(
    nodes: string,
    recent: string,
    sets: string,
    refs: string,
    writer: string,
    ...argv: string[]
  ): Promise<string>;
  xdshubHistoryRead(node: string, sets: string, limit: string): Promise<[[number, string, string, string][], string[]]>;
}

export interface RedisHistoryOptions {
  url: string;
  perNode: number;
  maxNodes: number;
  keyPrefix?: string;
  flushMs?: number;
  logger?: Logger;
}

interface Batch {
  number: number;
  argv: string[];
  /** The records the script numbers, in order. */
  records: HistoryRecord[];
}

/** The stored form of a record (without seq, resources and answer: those have their own fields). */
function storedJson(r: HistoryRecord): string {
  return JSON.stringify({
    hub: r.hub,
    at: r.at,
    index: r.index.toString(),
    stream: r.stream,
    type: r.type,
    nonce: r.nonce,
    variant: r.variant,
    version: r.version,
  });
}

/** What the parts of the store share: the connection, the keys and the buffered records. */
interface Writer {
  options: RedisHistoryOptions;
  prefix: string;
  keys: { nodes: string; recent: string; sets: string; refs: string; writer: string };
  redis: Redis & Scripts;
  hashOf: ReturnType<typeof createSetHasher>;
  identityOf(node: KnownNode): string;
  /** Records not yet numbered are written whole (with any answer they have); numbered ones send their answer. */
  pending: Map<HistoryRecord, KnownNode>;
  retry: Batch | undefined;
  batches: number;
  dropped: number;
  failing: boolean;
  running: Promise<void> | undefined;
  closed: boolean;
}

function connect(url: string): Redis & Scripts {
  // Commands wait while the connection is down (the offline queue) and fail after a few reconnects;
  // the batch is then retried.
  const client = new Redis(url, { maxRetriesPerRequest: 3, lazyConnect: false });
  client.on('error', () => undefined); // reported through the failed batch, once per outage
  client.defineCommand('xdshubHistoryWrite', { numberOfKeys: 5, lua: WRITE_LUA });
  client.defineCommand('xdshubHistoryRead', { numberOfKeys: 2, lua: READ_LUA });
  return client as unknown as Redis & Scripts;
}

function openWriter(options: RedisHistoryOptions): Writer {
  const prefix = options.keyPrefix ?? HISTORY_KEY_PREFIX;
  // The recorder keeps one KnownNode object per node while its identity is unchanged: its JSON is built once.
  const identities = new WeakMap<KnownNode, string>();
  return {
    options,
    prefix,
    keys: {
      nodes: `${prefix}nodes`,
      recent: `${prefix}recent`,
      sets: `${prefix}sets`,
      refs: `${prefix}refs`,
      writer: `${prefix}w:${randomUUID()}`,
    },
    redis: connect(options.url),
    hashOf: createSetHasher(),
    identityOf(node) {
      let json = identities.get(node);
      if (json === undefined) identities.set(node, (json = JSON.stringify(node)));
      return json;
    },
    pending: new Map(),
    retry: undefined,
    batches: 0,
    dropped: 0,
    failing: false,
    running: undefined,
    closed: false,
  };
}

function nextBatch(w: Writer): Batch | undefined {
  if (w.pending.size === 0) return undefined;
  const nodes: Record<string, string> = {};
  const sets: Record<string, string> = {};
  const records: [string, string, string, string][] = [];
  const answers: [string, number, string][] = [];
  const numbered: HistoryRecord[] = [];
  const rest = new Map<HistoryRecord, KnownNode>();
  let n = 0;
  for (const [record, node] of w.pending) {
    if (n++ >= BATCH) {
      rest.set(record, node);
      continue;
    }
    if (record.seq > 0) {
      if (record.answer) answers.push([node.id, record.seq, JSON.stringify(record.answer)]);
      continue;
    }
    nodes[node.id] = w.identityOf(node);
    const { hash, json } = w.hashOf(record.resources);
    sets[hash] = json;
    records.push([node.id, hash, storedJson(record), record.answer ? JSON.stringify(record.answer) : '']);
    numbered.push(record);
  }
  w.pending = rest;
  // cjson reads an empty table as an object; the script iterates both kinds alike.
  const payload = JSON.stringify({ nodes, sets, records, answers });
  const number = ++w.batches;
  const { perNode, maxNodes } = w.options;
  return {
    number,
    records: numbered,
    argv: [
      `${w.prefix}n:`,
      String(perNode),
      String(maxNodes),
      String(Date.now()),
      String(WRITER_TTL_MS),
      String(number),
      payload,
    ],
  };
}

async function send(w: Writer, batch: Batch): Promise<void> {
  const { keys } = w;
  const out = await w.redis.xdshubHistoryWrite(
    keys.nodes,
    keys.recent,
    keys.sets,
    keys.refs,
    keys.writer,
    ...batch.argv,
  );
  const seqs = out === '' ? [] : out.split(',').map(Number);
  batch.records.forEach((r, i) => (r.seq = seqs[i]!));
}

/** Writes batches until nothing is buffered; one at a time, in order. */
async function drain(w: Writer): Promise<void> {
  const logger = w.options.logger;
  for (;;) {
    const batch = w.retry ?? nextBatch(w);
    if (!batch) return;
    w.retry = batch;
    try {
      await send(w, batch);
      w.retry = undefined;
      if (w.failing) logger?.info('xDS history: writing to Redis again');
      w.failing = false;
    } catch (err) {
      if (!w.failing)
        logger?.warn(
          { err: (err as Error).message },
          'xDS history: cannot write to Redis; retrying (records wait in memory)',
        );
      w.failing = true;
      if (w.pending.size > MAX_PENDING) {
        const over = w.pending.size - MAX_PENDING;
        w.dropped += over;
        w.pending = new Map([...w.pending].slice(over));
        logger?.warn({ dropped: w.dropped }, 'xDS history: Redis unreachable, oldest unwritten records dropped');
      }
      throw err;
    }
  }
}

function flush(w: Writer): Promise<void> {
  w.running ??= drain(w).finally(() => (w.running = undefined));
  return w.running;
}

/** A read; Redis unreachable is LOG_UNAVAILABLE (503), as for the log. */
async function read<T>(w: Writer, f: () => Promise<T>): Promise<T> {
  await flush(w).catch(() => undefined); // what is buffered first; if Redis is down, the read says so
  try {
    return await f();
  } catch (err) {
    throw new HubError('LOG_UNAVAILABLE', `the xDS history in Redis cannot be read: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

async function load(w: Writer, node: string, limit: number): Promise<HistoryRecord[]> {
  const [rows, setList] = await read(w, () =>
    w.redis.xdshubHistoryRead(`${w.prefix}n:${node}`, w.keys.sets, String(limit)),
  );
  const sets = new Map<string, Map<string, string | null>>();
  for (let i = 0; i < setList.length; i += 2)
    sets.set(setList[i]!, new Map(Object.entries(JSON.parse(setList[i + 1]!) as Record<string, string | null>)));
  return rows.map(([seq, json, answer, hash]) => {
    const r = JSON.parse(json) as {
      hub: string;
      at: number;
      index: string;
      stream: number;
      type: TypeShort;
      nonce: string;
      variant: 'sotw' | 'delta';
      version: string;
    };
    return {
      ...r,
      seq: Number(seq),
      index: BigInt(r.index),
      resources: sets.get(hash) ?? new Map(),
      answer: answer ? JSON.parse(answer) : undefined,
    };
  });
}

export function createRedisHistory(options: RedisHistoryOptions): HistoryPersistence {
  const w = openWriter(options);
  const timer = setInterval(() => void flush(w).catch(() => undefined), options.flushMs ?? 200);
  timer.unref();
  return {
    load: (node, limit) => load(w, node, limit),
    async nodes() {
      const all = await read(w, () => w.redis.hgetall(w.keys.nodes));
      return Object.values(all).map((v) => JSON.parse(v) as KnownNode);
    },
    save(node, record) {
      if (w.closed) return;
      w.pending.delete(record); // re-added last: answers follow their record
      w.pending.set(record, node);
    },
    flush: () => flush(w),
    async close() {
      if (w.closed) return;
      w.closed = true;
      clearInterval(timer);
      // Shutdown must not hang on an unreachable Redis: what is not written by then is lost.
      let cap: NodeJS.Timeout | undefined;
      await Promise.race([flush(w).catch(() => undefined), new Promise((r) => (cap = setTimeout(r, 2_000)))]);
      clearTimeout(cap);
      w.redis.disconnect();
    },
  };
}
