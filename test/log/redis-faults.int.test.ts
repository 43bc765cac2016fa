// Connection faults placed exactly, between the Redis log and a real redis-server
// (a loopback TCP proxy cuts, refuses or swallows): what an append in flight
// becomes, what an append during an outage becomes, that a batch given up on can
// never land later, that tails ride out an outage, and that close() always ends.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import Redis from 'ioredis';
import { isHubError } from '../../src/errors';
import type { Log, LogEntry } from '../../src/log/log';
import { createRedisLog } from '../../src/log/redis';
import { APPEND_LUA, WRITER_TTL_MS } from '../../src/log/redis-scripts';
import { type RunningRedis, startRedis } from '../helpers/redis';
import { startProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { until } from '../helpers/until';

let redis: RunningRedis;
let admin: Redis;
before(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url);
});
after(async () => {
  admin.disconnect();
  await redis.stop();
});

interface Rig {
  prefix: string;
  proxy: TcpProxy;
  /** A log that reaches Redis through the proxy. */
  log: Log;
}

async function withRig(body: (rig: Rig) => Promise<void>, writeTimeoutMs?: number): Promise<void> {
  const prefix = `fault:{${randomUUID()}}:`;
  const proxy = await startProxy(redis.port);
  const log = createRedisLog({ url: `redis://127.0.0.1:${proxy.port}`, keyPrefix: prefix, writeTimeoutMs });
  try {
    assert.deepEqual(await log.append(['warm']), [1n]);
    await body({ prefix, proxy, log });
  } finally {
    await log.close();
    await proxy.close();
  }
}

/** Asks Redis (directly) until `check` holds; each ask is a round trip, so no timers are involved. */
/** Redis answers in well under a ms on loopback: poll without a pause. */
const untilRedis = (check: () => Promise<boolean>, what: string) => until(check, { what, interval: 0 });

/** Until the log itself has noticed that its connection is down (a read fails with LOG_UNAVAILABLE). */
async function untilDown(log: Log): Promise<void> {
  await until(
    () =>
      log.lastIndex().then(
        () => false,
        (err: unknown) => {
          if (isHubError(err, 'LOG_UNAVAILABLE')) return true;
          throw err;
        },
      ),
    { what: 'the log to notice the outage', interval: 5 },
  );
}

async function untilAppends(log: Log, payload: string): Promise<bigint[]> {
  return until(
    () =>
      log.append([payload]).catch((err: unknown) => {
        if (!isHubError(err, 'LOG_UNAVAILABLE')) throw err;
        return undefined;
      }),
    { what: `an append of ${payload} to succeed`, interval: 20 },
  );
}

const payloads = async (log: Log) => (await log.read(1n)).map((e) => e.payload);

test('an append whose reply was lost with the connection is resent after the reconnect and lands once', () =>
  withRig(async ({ prefix, proxy, log }) => {
    proxy.mode('swallow-replies');
    const pending = log.append(['once']);
    // Redis has run the script (the counter moved); the reply never reaches the log.
    await untilRedis(async () => (await admin.get(`${prefix}last`)) === '2', 'the append ran in Redis');
    proxy.mode('pass');
    proxy.cut();
    assert.deepEqual(await pending, [2n], 'acknowledged with the index the first send got');
    assert.deepEqual(await payloads(log), ['warm', 'once'], 'and appended once, not twice');
    assert.deepEqual(await log.append(['next']), [3n]);
  }));

test('while the connection is down an append is refused at once with a 503 naming the log, and appends nothing', () =>
  withRig(async ({ proxy, log }) => {
    proxy.mode('refuse');
    proxy.cut();
    await untilDown(log);
    await assert.rejects(log.append(['refused']), (err) => {
      assert.ok(isHubError(err, 'LOG_UNAVAILABLE'), String(err));
      assert.equal(err.httpStatus, 503);
      assert.match(
        err.message,
        /^redis log redis:\/\/127\.0\.0\.1:\d+ is unavailable: not connected; the write was not applied/,
      );
      return true;
    });
    await assert.rejects(log.read(1n), (err) => isHubError(err, 'LOG_UNAVAILABLE'));
    proxy.mode('pass');
    assert.deepEqual(await untilAppends(log, 'after'), [2n], 'writing resumes by itself');
    assert.deepEqual(await payloads(log), ['warm', 'after']);
  }));

test('an append that Redis does not answer in time is refused, fenced on reconnect, and a late copy of it appends nothing', () =>
  withRig(async ({ prefix, proxy, log }) => {
    proxy.mode('blackhole');
    await assert.rejects(log.append(['lost']), (err) => {
      assert.ok(isHubError(err, 'LOG_OUTCOME_UNKNOWN'), String(err));
      assert.match(err.message, /no answer within 300 ms; the write may have been applied/);
      return true;
    });
    // The partition ends as partitions do: the connection breaks. On the new one the
    // log fences batch 2 ('lost') before anything else.
    proxy.mode('pass');
    proxy.cut();
    const [writerKey] = await admin.keys(`${prefix}writer:*`);
    assert.ok(writerKey);
    await untilRedis(async () => (await admin.hget(writerKey, 'seq')) === '2', 'the abandoned batch is fenced');
    assert.equal(await admin.hget(writerKey, 'first'), '', 'fenced as never applied');
    // A copy of that batch arriving late (e.g. delayed on the network) is refused by the script.
    await assert.rejects(
      admin.eval(
        APPEND_LUA,
        4,
        `${prefix}last`,
        `${prefix}stream`,
        `${prefix}snapshot`,
        writerKey,
        String(WRITER_TTL_MS),
        '2',
        'lost',
      ),
      /STALE_BATCH/,
    );
    assert.deepEqual(await log.append(['next']), [2n]);
    assert.deepEqual(await payloads(log), ['warm', 'next']);
  }, 300));

test('a tail rides out an outage: it waits, then delivers what was appended meanwhile, in order', () =>
  withRig(async ({ prefix, proxy, log }) => {
    const writer = createRedisLog({ url: redis.url, keyPrefix: prefix });
    const ac = new AbortController();
    const got: LogEntry[] = [];
    let wake: (() => void) | undefined;
    const reading = (async () => {
      for await (const entry of log.tail(1n, ac.signal)) {
        got.push(entry);
        wake?.();
      }
    })();
    const until = (n: number) =>
      new Promise<void>((resolve) => {
        wake = () => {
          if (got.length >= n) resolve();
        };
        wake();
      });
    try {
      await until(1);
      proxy.mode('refuse');
      proxy.cut();
      await untilDown(log);
      await writer.append(['b']);
      await writer.append(['c', 'd']);
      proxy.mode('pass');
      await until(4);
      assert.deepEqual(
        got.map((e) => [e.index, e.payload]),
        [
          [1n, 'warm'],
          [2n, 'b'],
          [3n, 'c'],
          [4n, 'd'],
        ],
      );
    } finally {
      ac.abort();
      await reading;
      await writer.close();
    }
  }));

test('close() ends while Redis is unreachable with an append in flight: the append is refused, nothing hangs', () =>
  withRig(async ({ proxy, log }) => {
    proxy.mode('blackhole');
    const pending = log.append(['in-flight']);
    const outcome = pending.then(
      () => 'acknowledged',
      // It went out, so the answer cannot be "not applied".
      (err: unknown) => (isHubError(err, 'LOG_OUTCOME_UNKNOWN') ? 'outcome unknown' : String(err)),
    );
    await log.close();
    assert.equal(await outcome, 'outcome unknown');
  }, 300));
