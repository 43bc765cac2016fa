// A stalled Redis: the hub's connection stays open and no reply comes back, for 8 s
// and for 17 s, two ways: a proxy swallows the replies (requests reach redis-server,
// which runs them at once), or redis-server is SIGSTOPped (requests wait in its socket
// and run when it is SIGCONTed, replies then arriving late). A write starts every
// 150 ms throughout. Every write must be answered within the write timeout (plus
// slack for a loaded machine): the first one sent into the stall, those queued
// behind it, the ones that arrive while the connection is being re-established.
// Afterwards the log (read by a fresh client straight from Redis) holds every write
// answered 200 and none answered "the write was not applied".
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRedisLog, DEFAULT_WRITE_TIMEOUT_MS } from '../../src/log/redis';
import { startHub } from '../helpers/hub';
import { startRedis } from '../helpers/redis';
import { startProxy } from '../helpers/tcp-proxy';

/** Generous: the machine is loaded; the promise is the write timeout. */
const BOUND_MS = DEFAULT_WRITE_TIMEOUT_MS + 1_500;
/** A request without an answer after this long is a hang (ends the fetch so the test can report it). */
const HANG_MS = 40_000;
const EVERY_MS = 150;
const NOT_APPLIED = /^redis log redis:\/\/127\.0\.0\.1:\d+ is unavailable: .*the write was not applied/;
const MAY_HAVE = /the write may have been applied/;

interface Outcome {
  node: string;
  status: number | 'hang';
  body: string;
  ms: number;
  code: string | undefined;
}

async function write(base: string, node: string): Promise<Outcome> {
  const started = performance.now();
  try {
    const res = await fetch(`${base}/v1/catalog/register`, {
      method: 'PUT',
      body: JSON.stringify({ Node: node, Address: '10.0.0.1' }),
      signal: AbortSignal.timeout(HANG_MS),
    });
    const body = await res.text();
    const code = res.headers.get('x-xdshub-error') ?? undefined;
    return { node, status: res.status, body, ms: performance.now() - started, code };
  } catch (err) {
    return { node, status: 'hang', body: String(err), ms: performance.now() - started, code: undefined };
  }
}

/** Node names the log holds, read page by page by a fresh client on Redis itself. */
async function nodesInLog(url: string): Promise<Set<string>> {
  const log = createRedisLog({ url });
  try {
    const nodes = new Set<string>();
    for (const entry of await log.read(1n)) {
      for (const m of entry.payload.matchAll(/"Node":"([^"]+)"/g)) nodes.add(m[1]!);
    }
    return nodes;
  } finally {
    await log.close();
  }
}

type Stall = 'swallow-replies' | 'sigstop';

async function stallCase(t: TestContext, how: Stall, stallMs: number): Promise<void> {
  const redis = await startRedis();
  const proxy = await startProxy(redis.port);
  const hub = await startHub({ store: { kind: 'redis', url: `redis://127.0.0.1:${proxy.port}` }, nodeName: 'hub-stall' });
  const writes: Array<Promise<Outcome>> = [];
  let stopped = false;
  try {
    const first = await write(hub.httpUrl, `warm-${stallMs}`);
    assert.equal(first.status, 200, first.body);
    let n = 0;
    const next = () => writes.push(write(hub.httpUrl, `stall${stallMs}-${String(n++).padStart(4, '0')}`));
    const stall = (on: boolean) => {
      if (how === 'swallow-replies') proxy.mode(on ? 'swallow-replies' : 'pass');
      else process.kill(redis.pid, on ? 'SIGSTOP' : 'SIGCONT');
    };
    stall(true);
    stopped = how === 'sigstop';
    const stallStart = Date.now();
    while (Date.now() - stallStart < stallMs) {
      next();
      await sleep(EVERY_MS);
    }
    stall(false);
    stopped = false;
    // A little past the stall, then until a write succeeds again (writing resumes by itself).
    const resumeBy = Date.now() + 30_000;
    let resumed: Outcome | undefined;
    while (Date.now() < resumeBy) {
      next();
      const o = await Promise.race([writes[writes.length - 1]!, sleep(Math.max(0, resumeBy - Date.now())).then(() => undefined)]);
      if (o?.status === 200) {
        resumed = o;
        break;
      }
      await sleep(EVERY_MS);
    }
    const outcomes = await Promise.all(writes);

    const max = Math.max(...outcomes.map((o) => o.ms));
    const slowest = outcomes.reduce((a, b) => (b.ms > a.ms ? b : a));
    const counts = new Map<string, number>();
    for (const o of outcomes) {
      const kind = o.status === 200 ? 'ok' : NOT_APPLIED.test(o.body) ? 'not-applied' : MAY_HAVE.test(o.body) ? 'may-have' : `other ${o.status}`;
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
    }
    const figure = `${how} stall ${stallMs} ms: ${outcomes.length} writes, max latency ${Math.round(max)} ms (${slowest.status} ${slowest.body.slice(0, 120)}), ${JSON.stringify(Object.fromEntries(counts))}`;
    t.diagnostic(figure);
    process.stderr.write(`${figure}\n`);
    assert.ok(resumed, `writing resumed after the stall: ${outcomes.slice(-3).map((o) => `${o.status} ${o.body}`).join(' | ')}`);

    for (const o of outcomes) {
      assert.ok(o.ms < BOUND_MS, `${o.node} answered within ${BOUND_MS} ms: took ${Math.round(o.ms)} ms (${o.status} ${o.body})`);
      if (o.status === 200) continue;
      assert.equal(o.status, 503, `${o.node}: ${o.body}`);
      assert.ok(NOT_APPLIED.test(o.body) || MAY_HAVE.test(o.body), `${o.node}: the 503 says whether it was applied: ${o.body}`);
      assert.equal(o.code, NOT_APPLIED.test(o.body) ? 'LOG_UNAVAILABLE' : 'LOG_OUTCOME_UNKNOWN', `${o.node}: the code matches: ${o.body}`);
    }
    const inLog = await nodesInLog(redis.url);
    for (const o of outcomes) {
      if (o.status === 200) assert.ok(inLog.has(o.node), `${o.node} was acknowledged, so it is in the log`);
      else if (NOT_APPLIED.test(o.body)) assert.ok(!inLog.has(o.node), `${o.node} was answered "not applied", so it is not in the log`);
    }
  } finally {
    proxy.mode('pass');
    if (stopped) process.kill(redis.pid, 'SIGCONT');
    await Promise.allSettled(writes);
    await hub.close();
    await proxy.close();
    await redis.stop();
  }
}

describe('a stalled Redis (connection open, no replies)', { concurrency: true }, () => {
  for (const how of ['swallow-replies', 'sigstop'] as const) {
    for (const stallMs of [8_000, 17_000]) {
      test(`${how}, ${stallMs / 1000} s: every write answers within the write timeout, and none answered "not applied" is ever in the log`, (t) =>
        stallCase(t, how, stallMs));
    }
  }
});
