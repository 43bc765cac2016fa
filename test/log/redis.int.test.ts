// The Redis log against a real redis-server: the shared contract, plus what only a
// shared log promises (several hub processes, dedicated blocking connections, AOF).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { getEventListeners } from 'node:events';
import { after, before, describe, test } from 'node:test';
import Redis from 'ioredis';
import type { Log, LogEntry } from '../../src/log/log';
import { createRedisLog } from '../../src/log/redis';
import { type RunningRedis, startRedis } from '../helpers/redis';
import { tmpDir } from '../helpers/tmp';
import { logContract, takeFromTail } from './contract';

let redis: RunningRedis;
before(async () => {
  redis = await startRedis();
});
after(async () => {
  await redis.stop();
});

/** A fresh key prefix per test keeps tests on one server independent. */
const freshPrefix = () => `test:{${randomUUID()}}:`;

logContract('redis', async () => {
  const keyPrefix = freshPrefix();
  return {
    log: createRedisLog({ url: redis.url, keyPrefix }),
    reopen: async () => createRedisLog({ url: redis.url, keyPrefix }),
    cleanup: async () => {},
  };
});

/** Connections currently running XREAD (blocked tails), across the whole server. */
async function blockedReaders(): Promise<number> {
  const admin = new Redis(redis.url);
  try {
    return String(await admin.client('LIST'))
      .split('\n')
      .filter((line) => / cmd=xread /.test(` ${line} `)).length;
  } finally {
    admin.disconnect();
  }
}

/**
 * Redis notices a closed socket, and a tail issues its XREAD, on their own schedule:
 * ask again (each ask is a round trip, no timers) until the count is as expected, and
 * fail with the last count if it never gets there.
 */
async function expectBlockedReaders(expected: number): Promise<void> {
  let count = -1;
  for (let attempt = 0; attempt < 200 && count !== expected; attempt++) count = await blockedReaders();
  assert.equal(count, expected);
}

describe('redis log: several hubs on one log', () => {
  test('two instances appending concurrently interleave without gaps or duplicates', async () => {
    const keyPrefix = freshPrefix();
    const a = createRedisLog({ url: redis.url, keyPrefix });
    const b = createRedisLog({ url: redis.url, keyPrefix });
    try {
      const writes: Promise<bigint[]>[] = [];
      for (let i = 0; i < 200; i++) {
        writes.push(a.append([`a${i}`]), b.append([`b${i}`, `b${i}+`]));
      }
      const results = await Promise.all(writes);
      const all = results.flat().sort((x, y) => (x < y ? -1 : 1));
      assert.deepEqual(
        all,
        Array.from({ length: 600 }, (_, i) => BigInt(i + 1)),
      );
      for (const r of results) if (r.length === 2) assert.equal(r[1], r[0]! + 1n);
      // Both instances read the same log; every payload sits at its returned index.
      const fromA = await a.read(1n);
      assert.deepEqual(await b.read(1n), fromA);
      const payloads = new Map(fromA.map((e) => [e.index, e.payload]));
      results.forEach((r, i) => {
        const w = Math.floor(i / 2);
        const expected = i % 2 === 0 ? [`a${w}`] : [`b${w}`, `b${w}+`];
        assert.deepEqual(
          r.map((ix) => payloads.get(ix)),
          expected,
        );
      });
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('a burst larger than one script batch still gets contiguous blocks per call', async () => {
    const log = createRedisLog({ url: redis.url, keyPrefix: freshPrefix() });
    try {
      // 10 × 700 = 7,000 payloads in one turn: split over several scripts, never inside a call.
      const calls = Array.from({ length: 10 }, (_, c) => Array.from({ length: 700 }, (_, i) => `c${c}-${i}`));
      const results = await Promise.all(calls.map((p) => log.append(p)));
      results.forEach((r) => r.forEach((ix, i) => assert.equal(ix, r[0]! + BigInt(i))));
      assert.deepEqual(
        results.map((r) => r[0]),
        Array.from({ length: 10 }, (_, c) => BigInt(c * 700 + 1)),
      );
      const stored = await log.read(1n);
      assert.equal(stored.length, 7_000);
      assert.equal(stored[6_999]!.payload, 'c9-699');
    } finally {
      await log.close();
    }
  });

  test("a tail on one instance sees another instance's appends, in order", async () => {
    const keyPrefix = freshPrefix();
    const writer = createRedisLog({ url: redis.url, keyPrefix });
    const reader = createRedisLog({ url: redis.url, keyPrefix });
    try {
      await writer.append(['x1']);
      const got = await takeFromTail(reader, 1n, 4, async (e: LogEntry) => {
        if (e.index < 4n) await writer.append([`x${e.index + 1n}`]);
      });
      assert.deepEqual(
        got.map((e) => e.payload),
        ['x1', 'x2', 'x3', 'x4'],
      );
    } finally {
      await writer.close();
      await reader.close();
    }
  });

  test("a tail fed only by another instance's appends leaves nothing behind per round", async () => {
    const keyPrefix = freshPrefix();
    const writer = createRedisLog({ url: redis.url, keyPrefix });
    const reader = createRedisLog({ url: redis.url, keyPrefix });
    const ac = new AbortController();
    try {
      await writer.append(['e1']);
      const it = reader.tail(1n, ac.signal)[Symbol.asyncIterator]();
      assert.equal(((await it.next()).value as LogEntry).payload, 'e1');
      const listenersAfterFirst = getEventListeners(ac.signal, 'abort').length;
      // Each round blocks in XREAD and is ended by the other instance's entry.
      for (let i = 2; i <= 40; i++) {
        const next = it.next();
        await writer.append([`e${i}`]);
        assert.equal(((await next).value as LogEntry).payload, `e${i}`);
      }
      // Waits for own appends that never came used to pile up, one per round.
      assert.ok(
        getEventListeners(ac.signal, 'abort').length <= listenersAfterFirst + 1,
        `abort listeners: ${getEventListeners(ac.signal, 'abort').length}`,
      );
      ac.abort();
      assert.deepEqual(await it.next(), { done: true, value: undefined });
    } finally {
      await writer.close();
      await reader.close();
    }
  });

  test('each blocked tail holds its own connection, released on abort and on close', async () => {
    const keyPrefix = freshPrefix();
    const log = createRedisLog({ url: redis.url, keyPrefix });
    try {
      await log.append(['a']);
      const aborts = [new AbortController(), new AbortController(), new AbortController()];
      const iterators = aborts.map((ac) => log.tail(1n, ac.signal)[Symbol.asyncIterator]());
      // First next() yields the existing entry; the second blocks in XREAD on its own connection.
      for (const it of iterators) assert.equal((await it.next()).done, false);
      const blocked = iterators.map((it) => it.next());
      // The shared connection is not blocked: appends and reads still go through.
      assert.deepEqual(await log.append(['b']), [2n]);
      for (const p of blocked) assert.equal(((await p).value as LogEntry).payload, 'b');
      const waiting = iterators.map((it) => it.next());
      await expectBlockedReaders(3);
      aborts[0]!.abort();
      assert.deepEqual(await waiting[0], { done: true, value: undefined });
      await expectBlockedReaders(2);
      await log.close();
      for (const p of waiting.slice(1)) assert.deepEqual(await p, { done: true, value: undefined });
      await expectBlockedReaders(0);
    } finally {
      await log.close();
    }
  });

  test('one compacts at a time: a claim excludes the other instances until its compact()', async () => {
    const keyPrefix = freshPrefix();
    const a = createRedisLog({ url: redis.url, keyPrefix });
    const b = createRedisLog({ url: redis.url, keyPrefix });
    try {
      await a.append(['x', 'y', 'z']);
      assert.equal(await a.claimCompaction!(), true);
      assert.equal(await b.claimCompaction!(), false, 'a is compacting');
      assert.equal(await a.claimCompaction!(), false, 'a claim is not re-entrant');
      await a.compact({ index: 2n, state: 's2' }, 0);
      assert.equal(await b.claimCompaction!(), true, 'free again once a compacted');
      await b.compact({ index: 3n, state: 's3' }, 0);
      assert.deepEqual(await a.loadSnapshot(), { index: 3n, state: 's3' });
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('the default key prefix keeps all keys in one cluster hash slot', async () => {
    const log = createRedisLog({ url: redis.url });
    const admin = new Redis(redis.url);
    try {
      await log.append(['slot']);
      const found = (await admin.keys('xdshub:*')).sort();
      // The counter, the stream, and this writer's batch record (see docs/log.md, "Outages").
      assert.deepEqual(found.slice(0, 2), ['xdshub:{log}:last', 'xdshub:{log}:stream']);
      assert.equal(found.length, 3);
      assert.match(found[2]!, /^xdshub:\{log\}:writer:[0-9a-f-]{36}$/);
    } finally {
      const leftovers = await admin.keys('xdshub:{log}:*');
      if (leftovers.length > 0) await admin.del(...leftovers);
      admin.disconnect();
      await log.close();
    }
  });
});

test('redis log with appendonly + appendfsync always keeps acknowledged appends across a redis SIGKILL', async () => {
  const dir = await tmpDir('xdshub-redis-log-aof');
  let server = await startRedis({ appendonly: true, dir: dir.path });
  let log: Log | undefined;
  try {
    log = createRedisLog({ url: server.url });
    const acked = await Promise.all(Array.from({ length: 64 }, (_, i) => log!.append([`w${i}`])));
    await log.compact({ index: 10n, state: 'state@10' }, 2);
    await log.close();
    await server.stop(); // SIGKILL: redis gets no chance to flush on the way out
    server = await startRedis({ appendonly: true, dir: dir.path });
    log = createRedisLog({ url: server.url });
    const stored = new Map((await log.read(9n)).map((e) => [e.index, e.payload]));
    acked.forEach((indexes, i) => indexes[0]! >= 9n && assert.equal(stored.get(indexes[0]!), `w${i}`));
    assert.equal(await log.lastIndex(), 64n);
    assert.equal(await log.firstIndex(), 9n);
    assert.deepEqual(await log.loadSnapshot(), { index: 10n, state: 'state@10' });
    assert.deepEqual(await log.append(['after']), [65n]);
  } finally {
    await log?.close();
    await server.stop();
    await dir.cleanup();
  }
});
