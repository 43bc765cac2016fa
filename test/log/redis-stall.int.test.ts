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
import { describe, type TestContext, test } from 'node:test';
import { createRedisLog, DEFAULT_WRITE_TIMEOUT_MS } from '../../src/log/redis';
import { startHub } from '../helpers/hub';
import { startRedis } from '../helpers/redis';
import { startProxy } from '../helpers/tcp-proxy';
import { letTimePass, until } from '../helpers/until';

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
type Kind = 'ok' | 'not-applied' | 'may-have' | 'other';

function kindOf(o: Outcome): Kind {
  if (o.status === 200) return 'ok';
  if (o.status !== 503) return 'other';
  if (NOT_APPLIED.test(o.body)) return 'not-applied';
  return MAY_HAVE.test(o.body) ? 'may-have' : 'other';
}

/** Writes every EVERY_MS through the stall, then until one succeeds again; every outcome. */
async function writeThrough(base: string, stallMs: number, stall: (on: boolean) => void): Promise<Outcome[]> {
  const writes: Array<Promise<Outcome>> = [];
  let n = 0;
  const next = () => {
    writes.push(write(base, `stall${stallMs}-${String(n++).padStart(4, '0')}`));
    return writes[writes.length - 1]!;
  };
  stall(true);
  const stallStart = Date.now();
  try {
    while (Date.now() - stallStart < stallMs) {
      next();
      await letTimePass(EVERY_MS, 'writes start at a steady pace all through the stall, whatever answers they get');
    }
  } finally {
    stall(false);
  }
  // Writing resumes by itself: one write after another until one succeeds (each is bounded by HANG_MS).
  const resumed = async () => (await next()).status === 200;
  await until(resumed, { what: 'a write answered 200 after the stall', timeout: 30_000, interval: EVERY_MS });
  return Promise.all(writes);
}

function report(t: TestContext, label: string, outcomes: readonly Outcome[]): void {
  const slowest = outcomes.reduce((a, b) => (b.ms > a.ms ? b : a));
  const counts = new Map<Kind, number>();
  for (const o of outcomes) counts.set(kindOf(o), (counts.get(kindOf(o)) ?? 0) + 1);
  const figure =
    `${label}: ${outcomes.length} writes, max latency ${Math.round(slowest.ms)} ms ` +
    `(${slowest.status} ${slowest.body.slice(0, 120)}), ${JSON.stringify(Object.fromEntries(counts))}`;
  t.diagnostic(figure);
  process.stderr.write(`${figure}\n`);
}

async function stallCase(t: TestContext, how: Stall, stallMs: number): Promise<void> {
  const redis = await startRedis();
  const proxy = await startProxy(redis.port);
  const url = `redis://127.0.0.1:${proxy.port}`;
  const hub = await startHub({ store: { kind: 'redis', url }, nodeName: 'hub-stall' });
  let stopped = false;
  try {
    const first = await write(hub.httpUrl, `warm-${stallMs}`);
    assert.equal(first.status, 200, first.body);
    const outcomes = await writeThrough(hub.httpUrl, stallMs, (on) => {
      if (how === 'swallow-replies') proxy.mode(on ? 'swallow-replies' : 'pass');
      else process.kill(redis.pid, on ? 'SIGSTOP' : 'SIGCONT');
      stopped = on && how === 'sigstop';
    });
    report(t, `${how} stall ${stallMs} ms`, outcomes);
    const last = outcomes[outcomes.length - 1]!;
    assert.equal(last.status, 200, `writing resumed after the stall: ${last.body}`);

    for (const o of outcomes) {
      const what = `${o.node} (${o.status} ${o.body})`;
      assert.ok(o.ms < BOUND_MS, `${what} answered within ${BOUND_MS} ms: took ${Math.round(o.ms)} ms`);
      const kind = kindOf(o);
      assert.notEqual(kind, 'other', `${what}: a 503 that says whether the write was applied`);
      if (kind !== 'ok') assert.equal(o.code, kind === 'not-applied' ? 'LOG_UNAVAILABLE' : 'LOG_OUTCOME_UNKNOWN', what);
    }
    const inLog = await nodesInLog(redis.url);
    for (const o of outcomes) {
      if (kindOf(o) === 'ok') assert.ok(inLog.has(o.node), `${o.node} was acknowledged, so it is in the log`);
      if (kindOf(o) === 'not-applied')
        assert.ok(!inLog.has(o.node), `${o.node} was answered "not applied": not in log`);
    }
  } finally {
    proxy.mode('pass');
    if (stopped) process.kill(redis.pid, 'SIGCONT');
    await hub.close();
    await proxy.close();
    await redis.stop();
  }
}

describe('a stalled Redis (connection open, no replies)', { concurrency: true }, () => {
  for (const how of ['swallow-replies', 'sigstop'] as const) {
    for (const stallMs of [8_000, 17_000]) {
      const name = `${how}, ${stallMs / 1000} s: every write answers in the write timeout; none "not applied" is in the log`;
      test(name, (t) => stallCase(t, how, stallMs));
    }
  }
});
