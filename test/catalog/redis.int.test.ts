// Two hub "processes" (two Redis log clients, two catalogs) sharing one real redis-server;
// one of them cut off by a TCP proxy while the other compacts past it; and a write
// whose apply waits for Redis while Redis is unreachable.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import type { Command } from '../../src/catalog/commands';
import { createCatalog } from '../../src/catalog/store';
import { startTtlScheduler } from '../../src/catalog/ttl';
import { isHubError } from '../../src/errors';
import type { Log, LogEntry } from '../../src/log/log';
import { createRedisLog } from '../../src/log/redis';
import { type RunningRedis, startRedis } from '../helpers/redis';
import { startProxy } from '../helpers/tcp-proxy';
import { until } from '../helpers/until';
import { checkInput, register, serviceInput } from './fixtures';

const logger = pino({ level: process.env.DEBUG_LOG ?? 'silent' });
let redis: RunningRedis;
before(async () => {
  redis = await startRedis();
});
after(async () => {
  await redis.stop();
});

test("catalogs on two Redis clients apply each other's writes, converge, and expire a TTL check once", async () => {
  const keyPrefix = 'test:{converge}:';
  const logA = createRedisLog({ url: redis.url, keyPrefix });
  const logB = createRedisLog({ url: redis.url, keyPrefix });
  const a = await createCatalog({ log: logA, logger });
  const b = await createCatalog({ log: logB, logger });
  // Both schedulers' expiry submits are kept, so the test knows when both are settled.
  const expirySubmits: Promise<unknown>[] = [];
  let bothSubmitted!: () => void;
  const submitted = new Promise<void>((resolve) => (bothSubmitted = resolve));
  const tracked = (c: typeof a): typeof a => ({
    ...c,
    submit(cmd) {
      const p = c.submit(cmd);
      if (cmd.type === 'check-ttl-expire' && expirySubmits.push(p) === 2) bothSubmitted();
      return p;
    },
  });
  const sa = startTtlScheduler({ catalog: tracked(a), logger });
  const sb = startTtlScheduler({ catalog: tracked(b), logger });
  try {
    const writes: Command[] = [];
    for (let i = 0; i < 20; i++) {
      writes.push(
        register(`n${i % 4}`, {
          service: serviceInput(`s${i}`, `svc${i % 3}`),
          checks: [checkInput(`c${i}`, { ServiceID: `s${i}` })],
        }),
      );
    }
    const results = await Promise.all(writes.map((c, i) => (i % 2 === 0 ? a : b).submit(c)));
    assert.ok(results.every((r) => r.ok));
    assert.equal(new Set(results.map((r) => r.index)).size, 20, 'every write got its own index');

    const critical = new Promise<bigint>((resolve) => {
      const off = b.onApplied((index) => {
        if (b.ttlCheck('n0', 'ttl')?.check.Status === 'critical') {
          off();
          resolve(index);
        }
      });
    });
    const reg = await a.submit(
      register('n0', { checks: [checkInput('ttl', { Definition: { TTL: '150ms' }, Output: 'ok' })] }),
    );
    const at = await critical;
    // Both schedulers submit an expiry naming the same refresh. The second is
    // appended and changes nothing, or (when its hub already applied the first)
    // is found to be a no-op before append and never logged.
    await submitted;
    await Promise.all(expirySubmits);
    const expiries = (await logA.read(reg.index + 1n)).map((e) => JSON.parse(e.payload) as Command);
    assert.ok(expiries.length === 1 || expiries.length === 2, `one or two expiries, got ${expiries.length}`);
    assert.ok(expiries.every((c) => c.type === 'check-ttl-expire'));
    const last = reg.index + BigInt(expiries.length);
    await a.waitForIndex(last - 1n);
    await b.waitForIndex(last - 1n);
    assert.equal(at, reg.index + 1n);
    assert.equal(a.ttlCheck('n0', 'ttl')!.check.ModifyIndex, Number(at), 'the duplicate changed nothing');
    assert.equal(a.snapshot().state, b.snapshot().state);
  } finally {
    sa.stop();
    sb.stop();
    await a.close();
    await b.close();
    await logA.close();
    await logB.close();
  }
});

test('a catalog on Redis reopened after another compacted the log loads the snapshot and converges', async () => {
  const keyPrefix = 'test:{compact}:';
  const logA = createRedisLog({ url: redis.url, keyPrefix });
  // A tail of 2 behind each snapshot: with 0, b's own write (entry 15) can be
  // compacted away by a before b reads it, and b's submit then has no known outcome.
  const a = await createCatalog({ log: logA, logger, compactEvery: 5, compactKeepTail: 2 });
  try {
    for (let i = 0; i < 12; i++)
      await a.submit(register(`n${i % 3}`, { service: serviceInput(`s${i}`, 'web', { Port: i }) }));
    await a.submit({ type: 'config-set', entry: { Kind: 'service-defaults', Name: 'web', Protocol: 'http' } });
    assert.ok((await logA.firstIndex()) > 1n, 'compaction dropped early entries');
    const logB = createRedisLog({ url: redis.url, keyPrefix });
    const b = await createCatalog({ log: logB, logger });
    try {
      assert.equal(b.snapshot().state, a.snapshot().state);
      await b.submit({ type: 'deregister', node: 'n1' });
      await a.waitForIndex(14n);
      assert.equal(a.snapshot().state, b.snapshot().state);
    } finally {
      await b.close();
      await logB.close();
    }
  } finally {
    await a.close();
    await logA.close();
  }
});

test('a running catalog that fell behind the trimmed tail restores the snapshot exactly, resets its subscribers, and follows on', async () => {
  const keyPrefix = 'test:{behind}:';
  // Catalog a reaches Redis through a proxy, so it can be cut off while b writes and compacts.
  const proxy = await startProxy(redis.port);
  const logA = createRedisLog({ url: `redis://127.0.0.1:${proxy.port}`, keyPrefix });
  const logB = createRedisLog({ url: redis.url, keyPrefix });
  const a = await createCatalog({ log: logA, logger });
  const b = await createCatalog({ log: logB, logger });
  const resets: bigint[] = [];
  a.onReset((index) => resets.push(index));
  try {
    await a.submit(register('n0', { service: serviceInput('s0', 'web') }));
    await b.waitForIndex(a.lastIndex() - 1n);
    const behind = a.lastIndex();
    proxy.mode('refuse');
    proxy.cut();
    for (let i = 1; i < 6; i++)
      await b.submit(register(`n${i}`, { service: serviceInput(`s${i}`, 'web', { Port: i }) }));
    await b.submit({ type: 'deregister', node: 'n0' });
    const snapshot = b.snapshot();
    await logB.compact(snapshot, 0);
    assert.ok((await logB.firstIndex()) > behind + 1n, 'what a has not read yet is gone from the log');
    const woken = a.waitForIndex(behind);
    proxy.mode('pass');
    await woken;
    assert.equal(a.lastIndex(), snapshot.index);
    assert.deepEqual(resets, [snapshot.index], 'subscribers were told to reset, at the snapshot index');
    assert.equal(a.snapshot().state, snapshot.state, 'the same state as every other hub, blocking indexes included');
    assert.deepEqual(
      a.serviceInstances('web').value.map((i) => i.Node.Node),
      ['n1', 'n2', 'n3', 'n4', 'n5'],
    );
    const next = await a.submit(register('n9', { service: serviceInput('s9', 'web') }));
    await b.waitForIndex(next.index - 1n);
    assert.equal(a.snapshot().state, b.snapshot().state, 'and it follows the log again');
  } finally {
    await a.close();
    await b.close();
    await logA.close();
    await logB.close();
    await proxy.close();
  }
});

test("a write Redis acknowledged but this hub has not applied yet ends with the log's 503 once Redis stays unreachable, and is applied when it is back", async () => {
  const keyPrefix = 'test:{apply-wait}:';
  const proxy = await startProxy(redis.port);
  const real = createRedisLog({ url: `redis://127.0.0.1:${proxy.port}`, keyPrefix, writeTimeoutMs: 300 });
  // The tail's entries are held back while the gate is shut: as when the entries
  // before this hub's write are another hub's and were not read yet when Redis went
  // away, so applying the write has to wait for Redis.
  let gate: Promise<void> = Promise.resolve();
  let open = (): void => undefined;
  async function* gated(source: AsyncIterable<LogEntry>): AsyncGenerator<LogEntry> {
    for await (const entry of source) {
      await gate;
      yield entry;
    }
  }
  const log: Log = { ...real, tail: (from, signal) => gated(real.tail(from, signal)) };
  const a = await createCatalog({ log, logger });
  const reader = createRedisLog({ url: redis.url, keyPrefix });
  try {
    gate = new Promise<void>((resolve) => (open = resolve));
    const write = a.submit(register('held', { service: serviceInput('held-1', 'web') }));
    write.catch(() => undefined);
    // The append is in Redis: only applying it here is left.
    const target = a.lastIndex() + 1n;
    await until(async () => (await reader.lastIndex()) >= target, 'the held append in Redis');
    proxy.mode('refuse');
    proxy.cut();
    // Before the fix this waited for the whole outage (here: for ever). 15 s is a hang guard only.
    const refusal = await Promise.race([
      write.then(
        () => new Error('acknowledged while this hub could not apply it'),
        (err: unknown) => err,
      ),
      new Promise<Error>((resolve) => setTimeout(() => resolve(new Error('no answer within 15 s')), 15_000).unref()),
    ]);
    assert.ok(isHubError(refusal, 'LOG_OUTCOME_UNKNOWN'), String(refusal));
    assert.match(
      refusal.message,
      /^redis log redis:\/\/127\.0\.0\.1:\d+ is unavailable: .*the write is in the log at index \d+ and takes effect/,
    );
    proxy.mode('pass');
    open();
    await a.waitForIndex(target - 1n);
    assert.equal(a.node('held').value?.Node.Node, 'held', 'the write took effect once the log was back');
  } finally {
    open();
    await a.close();
    await real.close();
    await reader.close();
    await proxy.close();
  }
});
