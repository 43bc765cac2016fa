// The history recorder and its SQLite store write only what changed (a node's
// identity when it differs, a name → version map when not stored yet, an answer
// as an update of its row, a trim every few records): each test reopens a real
// history.db and checks that what a skip could lose is still there.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { createHistory, type History } from '../../src/ops/history';
import { createSqliteHistory, trimStep } from '../../src/ops/history-sqlite';
import type { XdsNode } from '../../src/xds/transport/provider';
import { TypeUrl } from '../../src/xds/transport/type-urls';
import { tmpDir } from '../helpers/tmp';
import { until } from './helpers';

const node = (id: string, userAgent = 'envoy', cluster = 'edge'): XdsNode => ({
  id,
  cluster,
  clientFeatures: [],
  userAgent,
});

/** A history over the SQLite store at `path`; the store writes only when flushed. */
function open(path: string, perNode: number): History {
  return createHistory({
    perNode,
    hub: 'h1',
    index: () => 7n,
    persistence: createSqliteHistory({ path, perNode, flushMs: 3_600_000 }),
  });
}

let nonces = 0;
/** One push (and, unless `ack` is false, its ACK) to `n`; returns the nonce. */
function push(h: History, n: XdsNode, resources: ReadonlyMap<string, string | null> = new Map(), ack = true): string {
  const nonce = `n${++nonces}`;
  h.sent!({
    stream: 1,
    node: n,
    typeUrl: TypeUrl.ClusterLoadAssignment,
    nonce,
    version: '',
    resources,
    variant: 'delta',
    at: 1_000,
  });
  if (ack)
    h.answered!({ stream: 1, node: n, typeUrl: TypeUrl.ClusterLoadAssignment, nonce, error: undefined, at: 2_000 });
  return nonce;
}

async function withFile(f: (path: string) => Promise<void>): Promise<void> {
  const dir = await tmpDir('history-store');
  try {
    await f(join(dir.path, 'history.db'));
  } finally {
    await dir.cleanup();
  }
}

test('a node whose identity changes is written again (user agent, then cluster)', () =>
  withFile(async (path) => {
    let h = open(path, 10);
    const set = new Map([['web', 'v1']]);
    push(h, node('n1', 'envoy/1.30'), set);
    await h.flush();
    // A reconnect: a new node object, same id, another user agent.
    push(h, node('n1', 'envoy/1.31'), set);
    push(h, node('n2'), set);
    await h.flush();
    assert.deepEqual((await h.nodes()).find((n) => n.id === 'n1')?.userAgent, 'envoy/1.31');
    await h.close();
    h = open(path, 10);
    assert.deepEqual((await h.nodes()).map((n) => [n.id, n.userAgent, n.cluster]).sort(), [
      ['n1', 'envoy/1.31', 'edge'],
      ['n2', 'envoy', 'edge'],
    ]);
    push(h, node('n1', 'envoy/1.31', 'west'), set);
    await h.close();
    h = open(path, 10);
    assert.equal((await h.nodes()).find((n) => n.id === 'n1')?.cluster, 'west');
    await h.close();
  }));

test('a name → version map removed by the orphan sweep and pushed again is stored again', () =>
  withFile(async (path) => {
    let h = open(path, 1);
    const a = new Map([['web', 'va']]);
    push(h, node('n1'), a);
    await h.flush();
    // 60 one-record writes: `a` loses its last record (perNode 1), and the sweep (every 50 writes) deletes it.
    for (let i = 0; i < 60; i++) {
      push(h, node('n1'), new Map([['web', `v${i}`]]));
      await h.flush();
    }
    const db = new Database(path, { readonly: true });
    const stored = () =>
      (
        db.prepare('SELECT COUNT(*) AS n FROM sets WHERE resources = ?').get(JSON.stringify({ web: 'va' })) as {
          n: number;
        }
      ).n;
    assert.equal(stored(), 0, 'the sweep deleted the unused map');
    // The same map object again (the transport shares one per content).
    push(h, node('n1'), a);
    await h.flush();
    assert.equal(stored(), 1, 'stored again');
    db.close();
    await h.close();
    h = open(path, 1);
    const [r] = await h.of('n1');
    assert.deepEqual(r?.resources, a);
    await h.close();
  }));

test('trimming every few records keeps at least perNode records per node, across reopening', () =>
  withFile(async (path) => {
    const perNode = 30;
    const step = trimStep(perNode);
    assert.ok(step > 1, 'the test needs a trim step above one');
    let h = open(path, perNode);
    const rows = () => {
      const db = new Database(path, { readonly: true });
      const r = db
        .prepare(
          'SELECT node, COUNT(*) AS n, MIN(seq) AS low, MAX(seq) AS high FROM records GROUP BY node ORDER BY node',
        )
        .all() as { node: string; n: number; low: number; high: number }[];
      db.close();
      return r;
    };
    for (let i = 1; i <= 100; i++) {
      push(h, node('n1'), new Map([['web', `v${i}`]]));
      if (i % 3 === 0) push(h, node('n2'), new Map([['web', `v${i}`]]));
      await h.flush();
      for (const r of rows()) {
        assert.ok(r.n >= Math.min(perNode, r.high), `${r.node}: ${r.n} rows at seq ${r.high}`);
        assert.ok(r.n <= perNode + step - 1, `${r.node}: ${r.n} rows, bound ${perNode + step - 1}`);
        assert.equal(r.high - r.low + 1, r.n, 'the newest rows, without gaps');
      }
    }
    const before = (await h.of('n1')).map((r) => r.seq);
    assert.deepEqual(
      before,
      Array.from({ length: perNode }, (_, i) => 100 - perNode + 1 + i),
    );
    await h.close();
    h = open(path, perNode);
    assert.deepEqual(
      (await h.of('n1')).map((r) => r.seq),
      before,
      'the same records after reopening',
    );
    assert.equal((await h.of('n2')).length, perNode);
    // A process with a smaller limit trims to it at its first write of the node.
    await h.close();
    h = open(path, 5);
    push(h, node('n1'), new Map([['web', 'last']]));
    await h.flush();
    assert.deepEqual(
      (await h.of('n1')).map((r) => r.seq),
      [97, 98, 99, 100, 101],
    );
    assert.equal(rows().find((r) => r.node === 'n1')?.n, 5);
    await h.close();
  }));

test('an answer that arrives after its record was written is kept (ACK and NACK)', () =>
  withFile(async (path) => {
    let h = open(path, 10);
    const set = new Map([['web', 'v1']]);
    const acked = push(h, node('n1'), set, false);
    const nacked = push(h, node('n1'), new Map([['web', 'v2']]), false);
    const early = push(h, node('n1'), set);
    await h.flush();
    h.answered!({
      stream: 1,
      node: node('n1'),
      typeUrl: TypeUrl.ClusterLoadAssignment,
      nonce: acked,
      error: undefined,
      at: 3_000,
    });
    h.answered!({
      stream: 1,
      node: node('n1'),
      typeUrl: TypeUrl.ClusterLoadAssignment,
      nonce: nacked,
      error: { code: 3, message: 'bad cluster' },
      at: 4_000,
    });
    await h.close();
    h = open(path, 10);
    const records = await h.of('n1');
    assert.deepEqual(
      records.map((r) => [r.nonce, r.answer]),
      [
        [acked, { ack: true, at: 3_000 }],
        [nacked, { ack: false, at: 4_000, code: 3, message: 'bad cluster' }],
        [early, { ack: true, at: 2_000 }],
      ],
    );
    assert.deepEqual(records[1]!.resources, new Map([['web', 'v2']]), 'the update left the rest of the row alone');
    await h.close();
  }));

test('in memory, a node keeps its newest perNode records; answers reach records still kept', async () => {
  const h = createHistory({ perNode: 3, hub: 'h1', index: () => 1n });
  const n = node('n1');
  const nonces = Array.from({ length: 7 }, (_, i) => push(h, n, new Map([['web', `v${i}`]]), false));
  assert.deepEqual(
    (await h.of('n1')).map((r) => r.nonce),
    nonces.slice(-3),
  );
  assert.deepEqual(
    (await h.of('n1', 2)).map((r) => r.nonce),
    nonces.slice(-2),
  );
  assert.equal(h.find('n1', nonces[0]!), undefined, 'the oldest are gone');
  assert.equal(h.find('n1', nonces[5]!)?.resources.get('web'), 'v5');
  h.answered!({
    stream: 1,
    node: n,
    typeUrl: TypeUrl.ClusterLoadAssignment,
    nonce: nonces[5]!,
    error: undefined,
    at: 5,
  });
  h.answered!({
    stream: 1,
    node: n,
    typeUrl: TypeUrl.ClusterLoadAssignment,
    nonce: nonces[0]!,
    error: undefined,
    at: 5,
  });
  assert.deepEqual(
    (await h.of('n1')).map((r) => r.answer?.at),
    [undefined, 5, undefined],
  );
  assert.deepEqual(
    (await h.of('n1')).map((r) => r.seq),
    [5, 6, 7],
  );
  // A reconnect with another user agent shows in nodes().
  push(h, node('n1', 'grpc-node-js'), new Map());
  assert.equal((await h.nodes())[0]?.userAgent, 'grpc-node-js');
});

test('the write timer writes an unanswered push, then its answer, and an answered one with its answer', () =>
  withFile(async (path) => {
    const persistence = createSqliteHistory({ path, perNode: 10, flushMs: 20 });
    const h = createHistory({ perNode: 10, hub: 'h1', index: () => 7n, persistence });
    const db = new Database(path, { readonly: true });
    try {
      const row = (nonce: string) =>
        db.prepare('SELECT answer FROM records WHERE nonce = ?').get(nonce) as { answer: string | null } | undefined;
      const n = node('n1');
      const at = Date.now();
      const sent = (nonce: string) =>
        h.sent!({
          stream: 1,
          node: n,
          typeUrl: TypeUrl.ClusterLoadAssignment,
          nonce,
          version: '',
          resources: new Map(),
          variant: 'delta',
          at,
        });
      sent('unanswered');
      sent('acked');
      h.answered!({ stream: 1, node: n, typeUrl: TypeUrl.ClusterLoadAssignment, nonce: 'acked', error: undefined, at });
      // Nothing calls flush: only the timer writes.
      assert.deepEqual(await until(() => row('acked'), 'the answered push written'), {
        answer: JSON.stringify({ ack: true, at }),
      });
      assert.deepEqual(await until(() => row('unanswered'), 'the unanswered push written'), { answer: null });
      h.answered!({
        stream: 1,
        node: n,
        typeUrl: TypeUrl.ClusterLoadAssignment,
        nonce: 'unanswered',
        error: undefined,
        at: at + 1,
      });
      await until(() => row('unanswered')?.answer, 'its answer written');
    } finally {
      db.close();
      await h.close();
    }
  }));

test('a record first saved with its answer is written whole, not as an update of a row that is not there', () =>
  withFile(async (path) => {
    const store = createSqliteHistory({ path, perNode: 10, flushMs: 3_600_000 });
    const record = {
      seq: 1,
      hub: 'h1',
      at: 1,
      index: 3n,
      stream: 1,
      type: 'CDS' as const,
      nonce: 'x',
      variant: 'sotw' as const,
      version: 'v1',
      resources: new Map([['web', 'v1']]),
      answer: { ack: true, at: 2 },
    };
    store.save({ id: 'n1', cluster: 'edge', userAgent: 'envoy', configSource: undefined }, record);
    await store.close();
    const again = createSqliteHistory({ path, perNode: 10, flushMs: 3_600_000 });
    assert.deepEqual(await again.load('n1', 10), [record]);
    await again.close();
  }));

test('a node forgotten in memory numbers on from its records not written yet, and from the file after reopening', () =>
  withFile(async (path) => {
    const make = () =>
      createHistory({
        perNode: 10,
        hub: 'h1',
        index: () => 7n,
        maxNodes: 1,
        persistence: createSqliteHistory({ path, perNode: 10, flushMs: 3_600_000 }),
      });
    let h = make();
    push(h, node('n1'));
    push(h, node('n2')); // n1's slot is forgotten (maxNodes 1); its record is still in the unwritten batch
    push(h, node('n1'));
    await h.flush();
    assert.deepEqual(
      (await h.of('n1')).map((r) => r.seq),
      [1, 2],
    );
    await h.close();
    h = make();
    push(h, node('n2'));
    push(h, node('n1'));
    await h.flush();
    assert.deepEqual(
      (await h.of('n1')).map((r) => r.seq),
      [1, 2, 3],
    );
    assert.deepEqual(
      (await h.of('n2')).map((r) => r.seq),
      [1, 2],
    );
    await h.close();
  }));
