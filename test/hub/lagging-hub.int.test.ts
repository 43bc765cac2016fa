// A hub behind the shared Redis log whose link to Redis stalls: a blocking query
// carrying an index another hub gave cannot learn whether the log holds it. It
// must not hang on the ask (src/http/blocking.ts, `caughtUp`): it answers with
// the hub's own, lower index once the ask's bound passes, and closing the hub
// answers one still asking at once. A write that changes nothing, which asks the
// log the same question, answers 503 naming the log after the write timeout. And
// once the stall ends, hub B catches up by itself: the replies it lost are never
// coming, so it must drop the silent connections and read again. Two in-process
// hubs on a real redis-server; hub B reaches it through a proxy that swallows its
// replies on demand.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LOG_HEAD_ASK_MS } from '../../src/http/blocking';
import { startHub } from '../helpers/hub';
import { startRedis } from '../helpers/redis';
import { startProxy } from '../helpers/tcp-proxy';
import { until } from '../helpers/until';

async function get(url: string, guardMs: number): Promise<{ status: number; index: bigint }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(guardMs) });
  await res.text();
  return { status: res.status, index: BigInt(res.headers.get('x-consul-index') ?? '0') };
}

test('a stalled link to the log: a no-op write answers 503, a query ahead of the hub answers with its own index after the ask bound, and closing the hub answers one still asking', async () => {
  const redis = await startRedis();
  const link = await startProxy(redis.port);
  const a = await startHub({ store: { kind: 'redis', url: redis.url }, nodeName: 'hub-a' });
  const b = await startHub({ store: { kind: 'redis', url: `redis://127.0.0.1:${link.port}` }, nodeName: 'hub-b' });
  let bOpen = true;
  try {
    const register = async (name: string) => {
      const res = await fetch(`${a.httpUrl}/v1/catalog/register`, {
        method: 'PUT',
        body: JSON.stringify({ Node: name, Address: '127.0.0.1' }),
      });
      assert.equal(res.status, 200, await res.text());
      return BigInt(res.headers.get('x-consul-index') ?? '0');
    };
    const first = await register('n1');
    await b.catalog.waitForIndex(first - 1n, AbortSignal.timeout(30_000));
    // B's requests still reach Redis; nothing comes back, and the connection stays open.
    link.mode('swallow-replies');
    const held = await register('n2');
    assert.ok(b.catalog.lastIndex() < held, 'B has not applied the write');

    // A write that changes nothing on B asks the log for its newest index before it answers: 503 naming the log, not a hang.
    const noop = await fetch(`${b.httpUrl}/v1/catalog/register`, {
      method: 'PUT',
      body: JSON.stringify({ Node: 'n1', Address: '127.0.0.1' }),
      signal: AbortSignal.timeout(60_000),
    });
    const noopText = await noop.text();
    assert.equal(noop.status, 503, noopText);
    assert.match(noopText, /redis log .* is unavailable: bounds: no answer within \d+ ms/);

    // Hang guards only: well past the ask's bound, far below the 5 minute wait.
    const guard = LOG_HEAD_ASK_MS * 6;
    /** Sends a query ahead of B and resolves once B's ask of the log went out through the proxy (swallowed there). */
    const askingB = async (path: string) => {
      const before = link.bytesSent();
      const answer = get(`${b.httpUrl}${path}?index=${held}&wait=5m`, guard);
      await until(() => link.bytesSent() > before, { what: `B asking the log for ${path}`, timeout: guard });
      return { answer };
    };
    const answered = await (await askingB('/v1/catalog/nodes')).answer;
    assert.equal(answered.status, 200);
    assert.equal(answered.index, b.catalog.lastIndex(), "answered with B's own index, so the client resets");
    // The stalled ask is not shared past its bound: a view read asks again, and answers too.
    const viewed = await (await askingB('/v1/health/service/none')).answer;
    assert.equal(viewed.status, 200);
    assert.ok(viewed.index < held);

    const { answer: asking } = await askingB('/v1/catalog/nodes');
    await Promise.race([
      b.close(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('closing B waited for the query')), guard).unref()),
    ]);
    bOpen = false;
    const closed = await asking;
    assert.equal(closed.status, 200);
    assert.ok(closed.index < held);
  } finally {
    link.mode('pass');
    if (bOpen) await b.close();
    await a.close();
    await link.close();
    await redis.stop();
  }
});

test('a stall of the link to the log ends: the lagging hub catches up with the other hub by itself', async () => {
  const redis = await startRedis();
  const link = await startProxy(redis.port);
  const a = await startHub({ store: { kind: 'redis', url: redis.url }, nodeName: 'hub-a' });
  const b = await startHub({ store: { kind: 'redis', url: `redis://127.0.0.1:${link.port}` }, nodeName: 'hub-b' });
  try {
    const register = async (name: string) => {
      const body = JSON.stringify({ Node: name, Address: '127.0.0.1' });
      const res = await fetch(`${a.httpUrl}/v1/catalog/register`, { method: 'PUT', body });
      assert.equal(res.status, 200, await res.text());
      return BigInt(res.headers.get('x-consul-index') ?? '0');
    };
    await b.catalog.waitForIndex((await register('n0')) - 1n, AbortSignal.timeout(30_000));
    // B's tail is blocked in XREAD (and reads pages) on a connection whose replies are now lost.
    link.mode('swallow-replies');
    const opened = link.connections();
    let last = 0n;
    for (let i = 1; i <= 20; i++) last = await register(`n${i}`);
    // The stall lasts until B has given up on a silent connection, connected again and
    // asked again there: that answer is lost too, so B must notice the silence twice.
    await until(() => link.connections() > opened, 'B dropping a silent connection and reconnecting during the stall');
    const reconnected = link.bytesSent();
    await until(() => link.bytesSent() > reconnected, 'B asking again once reconnected (the answer is swallowed too)');
    assert.ok(b.catalog.lastIndex() < last, 'B has not applied the writes made during the stall');
    link.mode('pass');
    // Lost replies are never coming: B must notice the silence, drop the connections and read again.
    // 30 s is a hang guard (the bounds are 5 s for a tail's XREAD and 10 s for a page).
    await b.catalog.waitForIndex(last - 1n, AbortSignal.timeout(30_000));
    assert.ok(b.catalog.lastIndex() >= last);
  } finally {
    link.mode('pass');
    await b.close();
    await a.close();
    await link.close();
    await redis.stop();
  }
});
