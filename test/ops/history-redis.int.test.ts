// The xDS history beside a Redis log (a real redis-server): kept in keys of its
// own (the log's stream and index never move for it), across a hub restart, one
// history per node shared by every hub on that Redis, bounded per node.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Redis from 'ioredis';
import { createHistory } from '../../src/ops/history';
import { createRedisHistory, HISTORY_KEY_PREFIX, WRITE_LUA } from '../../src/ops/history-redis';
import { TypeUrl } from '../../src/xds/transport/type-urls';
import { call } from '../helpers/hub';
import { type RunningRedis, startRedis } from '../helpers/redis';
import { autoClient, type OpsHub, register, startOpsHub, until } from './helpers';

let redis: RunningRedis;
let r: Redis;
before(async () => {
  redis = await startRedis();
  r = new Redis(redis.url);
});
after(async () => {
  r?.disconnect();
  await redis?.stop();
});

const LOG_STREAM = 'xdshub:{log}:stream';
const hubOn = (nodeName: string, extra: Record<string, unknown> = {}) =>
  startOpsHub({ nodeName, store: { kind: 'redis', url: redis.url }, ...extra });
const history = async (h: OpsHub, node: string) =>
  (await call(h.hub, 'GET', `/v1/xds/history/${node}`)).json.records as any[];

test('history in Redis: kept apart from the log, across a restart, shared by the hubs on that Redis', async () => {
  let a = await hubOn('hub-a');
  await register(a.hub, 'web', 8080);
  const c = autoClient(a.hub.grpcPort, 'envoy-1', {
    nack: (_t, res) => (res.some((x) => x.name === 'bad') ? 'cluster bad: rejected' : undefined),
  });
  await until(() => c.seen.length >= 1, 'first push');
  await register(a.hub, 'bad', 9090);
  await until(() => c.seen.some((s) => s.nacked), 'the NACK');
  const records = await until(async () => {
    const rs = await history(a, 'envoy-1');
    return rs.some((x) => x.answer?.ack === true) && rs.some((x) => x.answer?.ack === false) ? rs : undefined;
  }, 'an ACK and a NACK in the history');
  assert.ok(records.every((x) => x.hub === 'hub-a'));
  assert.deepEqual(
    records.map((x) => x.seq),
    records.map((_, i) => i + 1),
    'Redis numbers the records 1, 2, …',
  );
  const nacked = records.find((x) => x.answer?.ack === false);
  assert.equal(nacked.answer.message, 'cluster bad: rejected');
  assert.ok('bad' in nacked.resources);

  // Recording pushes and answers never touched the log: its stream holds the catalog's entries only.
  const index = a.hub.catalog.lastIndex();
  const streamLength = await r.xlen(LOG_STREAM);
  await a.ops.history.flush();
  assert.equal(await r.xlen(LOG_STREAM), streamLength);
  assert.equal(a.hub.catalog.lastIndex(), index);
  assert.ok((await r.keys(`${HISTORY_KEY_PREFIX}*`)).length > 0);
  assert.ok((await r.keys('xdshub:{log}:*')).every((k) => !k.startsWith(HISTORY_KEY_PREFIX)));
  c.close();
  await a.close();

  // A new process on the same Redis: the history is there, the node offline.
  a = await hubOn('hub-a');
  assert.deepEqual(await history(a, 'envoy-1'), records, 'every record and answer survived the restart');
  assert.deepEqual(
    (await call(a.hub, 'GET', '/v1/xds/nodes')).json.map((n: any) => [n.id, n.connected]),
    [['envoy-1', false]],
  );

  // A second hub on the same Redis: the node moves there; its history is one history, read from either hub.
  const b = await hubOn('hub-b');
  try {
    const c2 = autoClient(b.hub.grpcPort, 'envoy-1');
    const more = await until(async () => {
      const rs = await history(a, 'envoy-1');
      return rs.some((x) => x.hub === 'hub-b' && x.answer?.ack) ? rs : undefined;
    }, "hub-b's push, read on hub-a");
    assert.deepEqual(more.slice(0, records.length), records);
    assert.deepEqual(
      more.map((x) => x.seq),
      more.map((_, i) => i + 1),
      'one sequence across hubs',
    );
    assert.deepEqual(await history(b, 'envoy-1'), more);
    // Each hub tells its own streams: connected on hub-b, not on hub-a.
    assert.deepEqual(
      (await call(b.hub, 'GET', '/v1/xds/nodes')).json.map((n: any) => [n.id, n.connected]),
      [['envoy-1', true]],
    );
    assert.deepEqual(
      (await call(a.hub, 'GET', '/v1/xds/nodes')).json.map((n: any) => [n.id, n.connected]),
      [['envoy-1', false]],
    );
    c2.close();
  } finally {
    await b.close();
    await a.close();
  }
});

test('history in Redis is bounded per node; maps no record uses are removed', async () => {
  const h = await hubOn('hub-c', { xdsHistory: 3 });
  try {
    const c = autoClient(h.hub.grpcPort, 'envoy-bounded');
    for (let i = 0; i < 6; i++) {
      await register(h.hub, `b${i}`, 9100 + i);
      await until(() => c.seen.some((s) => s.resources.has(`b${i}`)), `push of b${i}`);
    }
    const records = await until(async () => {
      const rs = await history(h, 'envoy-bounded');
      return rs.at(-1)?.resources && 'b5' in rs.at(-1).resources && rs.at(-1).answer ? rs : undefined;
    }, 'the last push answered');
    assert.equal(records.length, 3);
    const last = records.at(-1).seq;
    assert.deepEqual(
      records.map((x: any) => x.seq),
      [last - 2, last - 1, last],
    );
    // In Redis: three records and their answers, nothing older; the shared maps are exactly the ones still used.
    const fields = Object.keys(await r.hgetall(`${HISTORY_KEY_PREFIX}n:envoy-bounded`)).filter((f) => /^\d+$/.test(f));
    assert.deepEqual(
      fields.map(Number).sort((x, y) => x - y),
      [last - 2, last - 1, last],
    );
    const used = new Set(
      Object.entries(await r.hgetall(`${HISTORY_KEY_PREFIX}n:envoy-bounded`))
        .filter(([f]) => /^\d+$/.test(f))
        .map(([, v]) => v.slice(0, 32)),
    );
    for (const n of Object.keys(await r.hgetall(`${HISTORY_KEY_PREFIX}nodes`))) {
      if (n === 'envoy-bounded') continue;
      for (const [f, v] of Object.entries(await r.hgetall(`${HISTORY_KEY_PREFIX}n:${n}`)))
        if (/^\d+$/.test(f)) used.add(v.slice(0, 32));
    }
    assert.deepEqual(new Set(await r.hkeys(`${HISTORY_KEY_PREFIX}sets`)), used);
    c.close();
  } finally {
    await h.close();
  }
});

test('--xds-history-persist: auto keeps the history in Redis; off keeps it in memory only', async () => {
  const h = await hubOn('hub-d', { xdsHistoryPersist: 'off' });
  try {
    const c = autoClient(h.hub.grpcPort, 'envoy-memory');
    await until(async () => (await h.ops.history.of('envoy-memory')).length > 0, 'a push');
    c.close();
    await h.ops.history.flush();
    assert.equal(await r.exists(`${HISTORY_KEY_PREFIX}n:envoy-memory`), 0, 'off: nothing in Redis');
  } finally {
    await h.close();
  }
});

test('a batch sent twice (resent after a dropped connection) is written once', async () => {
  const p = `${HISTORY_KEY_PREFIX}resend-test:`;
  const keys = [`${p}nodes`, `${p}recent`, `${p}sets`, `${p}refs`, `${p}w:writer-1`];
  const set = 'f'.repeat(32);
  const payload = JSON.stringify({
    nodes: { n1: '{"id":"n1"}' },
    sets: { [set]: '{"web":"v1"}' },
    records: [
      ['n1', set, '{"type":"CDS"}', ''],
      ['n1', set, '{"type":"CDS"}', '{"ack":true}'],
    ],
    answers: [],
  });
  const argv = [`${p}n:`, '10', '100', '1', '60000', '1', payload];
  const first = await r.eval(WRITE_LUA, 5, ...keys, ...argv);
  const again = await r.eval(WRITE_LUA, 5, ...keys, ...argv);
  assert.equal(first, '1,2');
  assert.equal(again, first, 'the resend answers what the first send wrote');
  assert.equal(await r.hget(`${p}n:n1`, 'last'), '2', 'nothing written twice');
  assert.equal(await r.hget(`${p}refs`, set), '2');
  await assert.rejects(r.eval(WRITE_LUA, 5, ...keys, ...argv.slice(0, 5), '0', payload), /STALE_BATCH/);
});

test("a node's identity is written again when it changes (its JSON is built once per identity)", async () => {
  const keyPrefix = `${HISTORY_KEY_PREFIX}identity-test:`;
  const h = createHistory({
    perNode: 5,
    hub: 'h1',
    index: () => 1n,
    persistence: createRedisHistory({ url: redis.url, perNode: 5, maxNodes: 100, keyPrefix, flushMs: 3_600_000 }),
  });
  try {
    const set = new Map([['web', 'v1']]);
    const sent = (userAgent: string, nonce: string) =>
      h.sent!({
        stream: 1,
        node: { id: 'n1', cluster: 'edge', clientFeatures: [], userAgent },
        typeUrl: TypeUrl.Cluster,
        nonce,
        version: 'v',
        resources: set,
        variant: 'sotw',
        at: 1,
      });
    sent('envoy/1.30', 'a');
    await h.flush();
    sent('envoy/1.30', 'b');
    sent('envoy/1.31', 'c');
    await h.flush();
    assert.equal(JSON.parse((await r.hget(`${keyPrefix}nodes`, 'n1'))!).userAgent, 'envoy/1.31');
    assert.deepEqual(
      (await h.of('n1')).map((x) => x.nonce),
      ['a', 'b', 'c'],
    );
  } finally {
    await h.close();
  }
});
