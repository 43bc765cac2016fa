// The one behaviour suite every Log store must pass (memory, sqlite, redis).
// Each test gets a fresh, empty log from makeLog and cleans it up afterwards.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isHubError } from '../../src/errors';
import { PAGE_SIZE } from '../../src/log/common';
import type { Log, LogEntry } from '../../src/log/log';

export interface LogFixture {
  log: Log;
  /** A new Log over the same storage; the suite closes `log` before calling it. */
  reopen?: () => Promise<Log>;
  cleanup(): Promise<void>;
}

const payloadsFor = (from: number, n: number) => Array.from({ length: n }, (_, i) => `p${from + i}`);

/** Pulls exactly n entries from a tail, then aborts it and checks that it ends cleanly. */
export async function takeFromTail(log: Log, from: bigint, n: number, afterEach?: (e: LogEntry) => Promise<void>) {
  const ac = new AbortController();
  const got: LogEntry[] = [];
  if (n === 0) return got;
  for await (const entry of log.tail(from, ac.signal)) {
    got.push(entry);
    if (afterEach) await afterEach(entry);
    if (got.length === n) ac.abort();
  }
  return got;
}

function hubCode(code: string) {
  return (err: unknown) => {
    assert.ok(isHubError(err), `expected a HubError, got ${String(err)}`);
    assert.equal(err.code, code);
    return true;
  };
}

export function logContract(name: string, makeLog: () => Promise<LogFixture>): void {
  const withLog = (title: string, body: (f: LogFixture) => Promise<void>) =>
    test(title, async () => {
      const fixture = await makeLog();
      try {
        await body(fixture);
      } finally {
        await fixture.log.close();
        await fixture.cleanup();
      }
    });

  describe(`Log contract: ${name}`, () => {
    withLog('an empty log starts before index 1', async ({ log }) => {
      assert.equal(await log.lastIndex(), 0n);
      assert.equal(await log.firstIndex(), 1n);
      assert.deepEqual(await log.read(1n), []);
      assert.deepEqual(await log.read(0n), []);
      assert.equal(await log.loadSnapshot(), undefined);
    });

    withLog('indexes start at 1 and are contiguous across calls', async ({ log }) => {
      assert.deepEqual(await log.append(['a']), [1n]);
      assert.deepEqual(await log.append(['b', 'c']), [2n, 3n]);
      assert.deepEqual(await log.append([]), []);
      assert.equal(await log.lastIndex(), 3n);
      const all = await log.read(1n);
      assert.deepEqual(
        all.map((e) => [e.index, e.payload]),
        [
          [1n, 'a'],
          [2n, 'b'],
          [3n, 'c'],
        ],
      );
    });

    withLog('payloads survive byte for byte', async ({ log }) => {
      const odd = ['', ' ', '{"a":1}', 'ü€😀\n\t\0', 'x'.repeat(100_000)];
      await log.append(odd);
      assert.deepEqual(
        (await log.read(1n)).map((e) => e.payload),
        odd,
      );
    });

    withLog('64 concurrent appends get disjoint, contiguous, gap-free blocks', async ({ log }) => {
      const sizes = Array.from({ length: 64 }, (_, i) => (i % 5) + 1);
      const results = await Promise.all(sizes.map((n, w) => log.append(payloadsFor(w * 100, n))));
      const all: bigint[] = [];
      results.forEach((indexes, w) => {
        assert.equal(indexes.length, sizes[w]);
        indexes.forEach((ix, i) => i > 0 && assert.equal(ix, indexes[i - 1]! + 1n));
        all.push(...indexes);
      });
      const total = sizes.reduce((a, b) => a + b, 0);
      assert.deepEqual(
        all.sort((a, b) => (a < b ? -1 : 1)),
        Array.from({ length: total }, (_, i) => BigInt(i + 1)),
      );
      // Each payload sits at the index its append returned.
      const byIndex = new Map((await log.read(1n)).map((e) => [e.index, e.payload]));
      results.forEach((indexes, w) =>
        indexes.forEach((ix, i) => assert.equal(byIndex.get(ix), payloadsFor(w * 100, sizes[w]!)[i])),
      );
    });

    withLog('read honours from and limit', async ({ log }) => {
      await log.append(payloadsFor(1, 10));
      assert.deepEqual(
        (await log.read(3n, 2)).map((e) => e.index),
        [3n, 4n],
      );
      assert.deepEqual(
        (await log.read(9n, 5)).map((e) => e.index),
        [9n, 10n],
      );
      assert.deepEqual(await log.read(11n), []);
      assert.deepEqual(await log.read(50n, 3), []);
      assert.deepEqual(await log.read(1n, 0), []);
      assert.equal((await log.read(0n)).length, 10);
      assert.equal((await log.read(1n)).length, 10);
    });

    withLog('bad input is rejected and changes nothing', async ({ log }) => {
      await log.append(['ok']);
      await assert.rejects(log.append(['x', 7 as unknown as string]), hubCode('INVALID_ARGUMENT'));
      await assert.rejects(log.append('nope' as unknown as string[]), hubCode('INVALID_ARGUMENT'));
      await assert.rejects(log.read(1n, -1), hubCode('INVALID_ARGUMENT'));
      await assert.rejects(log.read(1n, 1.5), hubCode('INVALID_ARGUMENT'));
      await assert.rejects(log.compact({ index: 5n, state: 's' }, 0), hubCode('INVALID_ARGUMENT'));
      await assert.rejects(log.compact({ index: 1n, state: 's' }, -1), hubCode('INVALID_ARGUMENT'));
      assert.equal(await log.lastIndex(), 1n);
      assert.equal(await log.firstIndex(), 1n);
      assert.equal(await log.loadSnapshot(), undefined);
      assert.deepEqual(await log.append(['next']), [2n]);
    });

    withLog('tail yields existing entries, then live ones, in order, and ends on abort', async ({ log }) => {
      await log.append(['a', 'b', 'c']);
      let live = 0;
      const got = await takeFromTail(log, 2n, 6, async (e) => {
        // Once caught up, each entry received triggers the next append.
        if (e.index >= 3n && live < 4) {
          live++;
          await log.append([`live${live}`]);
        }
      });
      assert.deepEqual(
        got.map((e) => e.index),
        [2n, 3n, 4n, 5n, 6n, 7n],
      );
      assert.deepEqual(
        got.map((e) => e.payload),
        ['b', 'c', 'live1', 'live2', 'live3', 'live4'],
      );
    });

    withLog('a waiting tail ends without error when aborted', async ({ log }) => {
      const ac = new AbortController();
      const it = log.tail(1n, ac.signal)[Symbol.asyncIterator]();
      const pending = it.next();
      ac.abort();
      assert.deepEqual(await pending, { done: true, value: undefined });
    });

    withLog('a tail wakes for an append from another caller while waiting', async ({ log }) => {
      const ac = new AbortController();
      const it = log.tail(1n, ac.signal)[Symbol.asyncIterator]();
      const pending = it.next();
      await log.append(['woken']);
      const first = await pending;
      assert.equal(first.done, false);
      assert.equal((first.value as LogEntry).payload, 'woken');
      ac.abort();
      assert.equal((await it.next()).done, true);
    });

    withLog('tail reads a long backlog in pages without losing order', async ({ log }) => {
      for (let i = 0; i < 5; i++) await log.append(payloadsFor(i * 500 + 1, 500));
      const got = await takeFromTail(log, 1n, 2500);
      got.forEach((e, i) => {
        assert.equal(e.index, BigInt(i + 1));
        assert.equal(e.payload, `p${i + 1}`);
      });
    });

    withLog('tail from 0 starts at the first entry of an uncompacted log', async ({ log }) => {
      await log.append(['a', 'b']);
      assert.deepEqual(
        (await takeFromTail(log, 0n, 2)).map((e) => e.index),
        [1n, 2n],
      );
    });

    withLog('compaction keeps the snapshot and at most keepTail entries at or below it', async ({ log }) => {
      await log.append(payloadsFor(1, 10));
      await log.compact({ index: 8n, state: 'state@8' }, 3);
      assert.deepEqual(await log.loadSnapshot(), { index: 8n, state: 'state@8' });
      assert.equal(await log.firstIndex(), 6n);
      assert.equal(await log.lastIndex(), 10n);
      assert.deepEqual(
        (await log.read(6n)).map((e) => e.index),
        [6n, 7n, 8n, 9n, 10n],
      );
      assert.deepEqual(await log.append(['p11']), [11n]);
      // A later snapshot replaces the earlier one.
      await log.compact({ index: 11n, state: 'state@11' }, 1);
      assert.deepEqual(await log.loadSnapshot(), { index: 11n, state: 'state@11' });
      assert.equal(await log.firstIndex(), 11n);
      // An older snapshot than the saved one would lose state: refused.
      await assert.rejects(log.compact({ index: 9n, state: 'old' }, 0), hubCode('INVALID_ARGUMENT'));
    });

    withLog('reading or tailing a compacted index throws LOG_COMPACTED', async ({ log }) => {
      await log.append(payloadsFor(1, 10));
      await log.compact({ index: 10n, state: 's' }, 2);
      assert.equal(await log.firstIndex(), 9n);
      await assert.rejects(log.read(8n), hubCode('LOG_COMPACTED'));
      await assert.rejects(log.read(0n), hubCode('LOG_COMPACTED'));
      await assert.rejects(takeFromTail(log, 1n, 1), hubCode('LOG_COMPACTED'));
      assert.deepEqual(
        (await takeFromTail(log, 9n, 2)).map((e) => e.index),
        [9n, 10n],
      );
    });

    withLog('a tail overtaken by compaction throws LOG_COMPACTED instead of skipping', async ({ log }) => {
      const total = 3 * PAGE_SIZE; // more than one page, so the tail must read again after compaction
      for (let i = 0; i < 3; i++) await log.append(payloadsFor(i * PAGE_SIZE + 1, PAGE_SIZE));
      const ac = new AbortController();
      const seen: bigint[] = [];
      await assert.rejects(async () => {
        for await (const entry of log.tail(1n, ac.signal)) {
          seen.push(entry.index);
          if (seen.length === 1) await log.compact({ index: BigInt(total), state: 'all' }, 0);
        }
      }, hubCode('LOG_COMPACTED'));
      ac.abort();
      // What was delivered is a gap-free prefix; the rest was refused, not skipped.
      assert.ok(seen.length < total);
      seen.forEach((ix, i) => assert.equal(ix, BigInt(i + 1)));
    });

    withLog('compacting everything keeps numbering going', async ({ log }) => {
      await log.append(payloadsFor(1, 5));
      await log.compact({ index: 5n, state: 'all' }, 0);
      assert.equal(await log.firstIndex(), 6n);
      assert.equal(await log.lastIndex(), 5n);
      assert.deepEqual(await log.read(6n), []);
      await assert.rejects(log.read(5n), hubCode('LOG_COMPACTED'));
      assert.deepEqual(await log.append(['p6']), [6n]);
      assert.equal(await log.firstIndex(), 6n);
    });

    withLog('close rejects later appends with LOG_CLOSED and ends waiting tails', async ({ log }) => {
      await log.append(['a']);
      const ac = new AbortController();
      const it = log.tail(1n, ac.signal)[Symbol.asyncIterator]();
      assert.equal((await it.next()).done, false);
      const pending = it.next();
      await log.close();
      assert.deepEqual(await pending, { done: true, value: undefined });
      await assert.rejects(log.append(['b']), hubCode('LOG_CLOSED'));
      await log.close(); // idempotent
    });

    withLog('reopen keeps every acknowledged entry and continues numbering', async (f) => {
      if (!f.reopen) return assert.equal(f.log.kind, 'memory'); // memory has nothing to reopen
      await Promise.all(Array.from({ length: 20 }, (_, i) => f.log.append([`w${i}`])));
      await f.log.append(payloadsFor(21, 10));
      await f.log.compact({ index: 25n, state: 'state@25' }, 5);
      await f.log.close();
      let log = await f.reopen();
      f.log = log;
      assert.equal(await log.lastIndex(), 30n);
      assert.equal(await log.firstIndex(), 21n);
      assert.deepEqual(await log.loadSnapshot(), { index: 25n, state: 'state@25' });
      assert.deepEqual(
        (await log.read(21n)).map((e) => e.payload),
        payloadsFor(21, 10),
      );
      assert.deepEqual(await log.append(['p31']), [31n]);
      // Compact everything, reopen: the next index is still fresh.
      await log.compact({ index: 31n, state: 'state@31' }, 0);
      await log.close();
      log = await f.reopen();
      f.log = log;
      assert.equal(await log.firstIndex(), 32n);
      assert.equal(await log.lastIndex(), 31n);
      assert.deepEqual(await log.append(['p32']), [32n]);
    });
  });
}
