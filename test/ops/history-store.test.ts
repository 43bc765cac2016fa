// The history recorder and its SQLite store write only what changed (a node's
// identity when it differs, a name → version map when not stored yet, a fleet
// push as one row of members, an answer after its row as a row of its own, a
// batch once none of its members is among its node's newest): each test
// reopens a real history.db and checks that what a skip could lose is still there.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { createHistory, type History, type HistoryRecord } from '../../src/ops/history';
import { createSqliteHistory } from '../../src/ops/history-sqlite';
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

/** What the transport reports when `stream` wrote an EDS response under `nonce` to `n`. */
function sentTo(
  h: History,
  n: XdsNode,
  nonce: string,
  stream = 1,
  at = 1_000,
  resources: ReadonlyMap<string, string | null> = new Map(),
) {
  h.sent!({
    stream,
    node: n,
    typeUrl: TypeUrl.ClusterLoadAssignment,
    nonce,
    version: '',
    resources,
    variant: 'delta',
    at,
  });
}

let nonces = 0;
/** One push (and, unless `ack` is false, its ACK) to `n`; returns the nonce. */
function push(h: History, n: XdsNode, resources: ReadonlyMap<string, string | null> = new Map(), ack = true): string {
  const nonce = `n${++nonces}`;
  sentTo(h, n, nonce, 1, 1_000, resources);
  if (ack)
    h.answered!({ stream: 1, node: n, typeUrl: TypeUrl.ClusterLoadAssignment, nonce, error: undefined, at: 2_000 });
  return nonce;
}

/** The second record of node a in the migration tests: a NACK of push 9's removal. */
const A2 = [
  2,
  200,
  9n,
  1,
  'x-2',
  'delta',
  '',
  { web: null },
  { ack: false, at: 210, code: 3, message: 'bad' },
] as const;
/** A2 in `view`'s order, with its hub and its type as that file wrote them. */
const a2 = (hub: string, type: string) => {
  const [seq, at, index, stream, nonce, variant, version, resources, answer] = A2;
  return [seq, hub, at, index, stream, type, nonce, variant, version, resources, answer];
};

/** A record as plain values (what a migration must keep). */
const view = (r: HistoryRecord) => [
  r.seq,
  r.hub,
  r.at,
  r.index,
  r.stream,
  r.type,
  r.nonce,
  r.variant,
  r.version,
  Object.fromEntries(r.resources),
  r.answer ?? null,
];

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
    // The identity's row was updated in place: the records written before still belong to the node.
    assert.deepEqual(
      (await h.of('n1')).map((r) => r.seq),
      [1, 2, 3],
    );
    await h.close();
  }));

test('a push to a fleet is one pushes row and one batch row of its members, read back for each', () =>
  withFile(async (path) => {
    const h = open(path, 10);
    const set = new Map([['web', 'v1']]);
    // 150 nodes get one push (one batch), then n0 another (a second).
    for (let i = 0; i < 150; i++) push(h, node(`n${i}`), set);
    push(h, node('n0'), new Map([['web', 'v2']]), false);
    await h.close();
    const db = new Database(path, { readonly: true });
    const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    assert.deepEqual([count('pushes'), count('batches'), count('sets')], [2, 2, 2]);
    const sizes = (db.prepare('SELECT length(members) AS n FROM batches ORDER BY id').all() as { n: number }[]).map(
      (r) => r.n,
    );
    assert.deepEqual(sizes, [150 * 32, 32], 'one 32-byte member per node');
    db.close();
    const again = open(path, 10);
    const [first, second] = await again.of('n0');
    assert.deepEqual(first?.resources, set);
    assert.equal(first?.answer?.ack, true);
    assert.deepEqual(second?.resources, new Map([['web', 'v2']]));
    assert.equal(second?.answer, undefined);
    for (const id of ['n49', 'n63', 'n64', 'n127', 'n128', 'n149'])
      assert.deepEqual(
        (await again.of(id)).map((r) => [r.seq, r.hub, r.index, r.type, r.variant, r.answer?.ack, r.stream]),
        [[1, 'h1', 7n, 'EDS', 'delta', true, 1]],
        id,
      );
    await again.close();
  }));

test('narrow rows (one per record) are rewritten as one batch per push, nothing lost, numbering goes on', () =>
  withFile(async (path) => {
    const db = new Database(path);
    db.exec(`
      CREATE TABLE nodes (key INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, cluster TEXT NOT NULL,
        user_agent TEXT NOT NULL, config_source TEXT);
      CREATE TABLE sets (hash TEXT PRIMARY KEY, resources TEXT NOT NULL);
      CREATE TABLE pushes (id INTEGER PRIMARY KEY, log_index TEXT NOT NULL, type TEXT NOT NULL, variant TEXT NOT NULL,
        version TEXT NOT NULL, set_hash TEXT NOT NULL, hub TEXT NOT NULL);
      CREATE TABLE records (node INTEGER NOT NULL, seq INTEGER NOT NULL, push INTEGER NOT NULL, at INTEGER NOT NULL,
        stream INTEGER NOT NULL, nonce TEXT NOT NULL, answer TEXT);
      CREATE UNIQUE INDEX records_node_seq ON records (node, seq);
      INSERT INTO nodes VALUES (1, 'a', 'edge', 'envoy', NULL), (2, 'b', 'west', 'grpc', 'ads');
      INSERT INTO sets VALUES ('h1', '{"web":"v1"}'), ('h2', '{"web":null}');
      INSERT INTO pushes VALUES (1, '5', 'EDS', 'delta', '', 'h1', 'hub-1'), (2, '9', 'EDS', 'delta', '', 'h2', 'hub-1');
      INSERT INTO records VALUES
        (1, 1, 1, 100, 1, 'x-1', '{"ack":true,"at":110}'),
        (2, 1, 1, 101, 2, 'y-1', NULL),
        (1, 2, 2, 200, 1, 'x-2', '{"ack":false,"at":210,"code":3,"message":"bad"}');
    `);
    db.close();
    const h = open(path, 10);
    assert.deepEqual((await h.of('a')).map(view), [
      [1, 'hub-1', 100, 5n, 1, 'EDS', 'x-1', 'delta', '', { web: 'v1' }, { ack: true, at: 110 }],
      a2('hub-1', 'EDS'),
    ]);
    assert.deepEqual((await h.of('b')).map(view), [
      [1, 'hub-1', 101, 5n, 2, 'EDS', 'y-1', 'delta', '', { web: 'v1' }, null],
    ]);
    push(h, node('b'));
    await h.flush();
    assert.deepEqual(
      (await h.of('b')).map((r) => r.seq),
      [1, 2],
      'numbering goes on from the migrated rows',
    );
    await h.close();
    const check = new Database(path, { readonly: true });
    const tables = (
      check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
    ).map((t) => t.name);
    assert.ok(!tables.includes('records'), 'the narrow rows are gone');
    assert.equal(
      (check.prepare('SELECT COUNT(*) AS n FROM batches').get() as { n: number }).n,
      3,
      'one batch per push, and the new one',
    );
    check.close();
  }));

for (const withHub of [true, false])
  test(`wide rows (${withHub ? 'with' : 'no'} hub column) are rewritten as pushes and batches, nothing lost`, () =>
    withFile(async (path) => {
      const db = new Database(path);
      const hub = withHub ? ', hub' : '';
      db.exec(`
        CREATE TABLE nodes (id TEXT PRIMARY KEY, cluster TEXT NOT NULL, user_agent TEXT NOT NULL, config_source TEXT);
        CREATE TABLE sets (hash TEXT PRIMARY KEY, resources TEXT NOT NULL);
        CREATE TABLE records (
          node TEXT NOT NULL, seq INTEGER NOT NULL, at INTEGER NOT NULL, log_index TEXT NOT NULL,
          stream INTEGER NOT NULL, type TEXT NOT NULL, nonce TEXT NOT NULL, variant TEXT NOT NULL,
          version TEXT NOT NULL, set_hash TEXT NOT NULL, answer TEXT, ${withHub ? "hub TEXT NOT NULL DEFAULT ''," : ''}
          PRIMARY KEY (node, seq)
        );
        INSERT INTO nodes VALUES ('a', 'edge', 'envoy', NULL), ('b', 'west', 'grpc', 'ads');
        INSERT INTO sets VALUES ('h1', '{"web":"v1"}'), ('h2', '{"web":null}');
      `);
      const row = db.prepare(
        `INSERT INTO records (node, seq, at, log_index, stream, type, nonce, variant, version, set_hash, answer${hub})
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?${withHub ? ', ?' : ''})`,
      );
      const hubs = withHub ? ['hub-1'] : [];
      row.run('a', 1, 100, '5', 1, 'eds', 'x-1', 'delta', '', 'h1', '{"ack":true,"at":110}', ...hubs);
      row.run('b', 1, 101, '5', 2, 'eds', 'y-1', 'delta', '', 'h1', null, ...hubs);
      row.run(
        'a',
        2,
        200,
        '9',
        1,
        'eds',
        'x-2',
        'delta',
        '',
        'h2',
        '{"ack":false,"at":210,"code":3,"message":"bad"}',
        ...hubs,
      );
      row.run('b', 2, 201, '9', 2, 'cds', 'y-2', 'sotw', 'v9', 'h1', '{"ack":true,"at":220}', ...hubs);
      db.close();
      const h = open(path, 10);
      const name = withHub ? 'hub-1' : '';
      assert.deepEqual((await h.of('a')).map(view), [
        [1, name, 100, 5n, 1, 'eds', 'x-1', 'delta', '', { web: 'v1' }, { ack: true, at: 110 }],
        a2(name, 'eds'),
      ]);
      assert.deepEqual((await h.of('b')).map(view), [
        [1, name, 101, 5n, 2, 'eds', 'y-1', 'delta', '', { web: 'v1' }, null],
        [2, name, 201, 9n, 2, 'cds', 'y-2', 'sotw', 'v9', { web: 'v1' }, { ack: true, at: 220 }],
      ]);
      assert.deepEqual((await h.nodes()).map((n) => [n.id, n.cluster, n.userAgent, n.configSource]).sort(), [
        ['a', 'edge', 'envoy', undefined],
        ['b', 'west', 'grpc', 'ads'],
      ]);
      push(h, node('a'));
      await h.flush();
      assert.deepEqual(
        (await h.of('a')).map((r) => r.seq),
        [1, 2, 3],
        'numbering goes on from the migrated rows',
      );
      await h.close();
      const check = new Database(path, { readonly: true });
      assert.equal(
        (check.prepare('SELECT COUNT(*) AS n FROM pushes').get() as { n: number }).n,
        4,
        'one row per distinct push, and the new one',
      );
      check.close();
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

test('a node keeps its newest perNode records; a batch goes once none of its members is among them, across reopening', () =>
  withFile(async (path) => {
    const perNode = 30;
    let h = open(path, perNode);
    const batches = () => {
      const db = new Database(path, { readonly: true });
      const n = (db.prepare('SELECT COUNT(*) AS n FROM batches').get() as { n: number }).n;
      db.close();
      return n;
    };
    let n2 = 0;
    for (let i = 1; i <= 100; i++) {
      // n1 alone, and every third push n2 with it (one batch of two).
      const set = new Map([['web', `v${i}`]]);
      const nonce = push(h, node('n1'), set, false);
      if (i % 3 === 0) {
        push(h, node('n2'), set, false);
        n2++;
      }
      for (const id of i % 3 === 0 ? ['n1', 'n2'] : ['n1'])
        h.answered!({
          stream: 1,
          node: node(id),
          typeUrl: TypeUrl.ClusterLoadAssignment,
          nonce,
          error: undefined,
          at: 2_000,
        });
      await h.flush();
      const seqs = (await h.of('n1')).map((r) => r.seq);
      assert.deepEqual(
        seqs,
        Array.from({ length: Math.min(perNode, i) }, (_, k) => i - Math.min(perNode, i) + 1 + k),
      );
      // The batches left: pushes among n1's newest, and among n2's newest (every third push).
      const n2Pushes = Array.from({ length: Math.floor(i / 3) }, (_, k) => 3 * (k + 1)).slice(-perNode);
      const alive = new Set([...Array.from({ length: Math.min(perNode, i) }, (_, k) => i - k), ...n2Pushes]);
      assert.equal(batches(), alive.size, `push ${i}: only the batches holding a node's newest records are left`);
    }
    const before = (await h.of('n1')).map((r) => r.seq);
    await h.close();
    h = open(path, perNode);
    assert.deepEqual(
      (await h.of('n1')).map((r) => r.seq),
      before,
      'the same records after reopening',
    );
    assert.equal((await h.of('n2')).length, Math.min(perNode, n2));
    // A process with a smaller limit keeps only that many, and deletes the rest with its first write.
    await h.close();
    h = open(path, 5);
    push(h, node('n1'), new Map([['web', 'last']]));
    await h.flush();
    assert.deepEqual(
      (await h.of('n1')).map((r) => r.seq),
      [97, 98, 99, 100, 101],
    );
    assert.equal(batches(), 9, "n1's 5 newest (97–101) and n2's 5 newest (87–99, every third): push 99 is both's");
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
  assert.equal((await h.of('n1')).find((r) => r.nonce === nonces[5])?.resources.get('web'), 'v5');
  assert.equal(h.held(), 3, 'without a store the rings are the history');
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

test('past maxNodes the least recently pushed node is forgotten, not the first one seen', async () => {
  const h = createHistory({ perNode: 3, hub: 'h1', index: () => 1n, maxNodes: 3 });
  for (const id of ['n1', 'n2', 'n3', 'n1', 'n4']) push(h, node(id));
  assert.deepEqual(await h.of('n2'), [], 'n2 was pushed least recently');
  assert.equal((await h.of('n1')).length, 2, 'n1 was pushed again, so it stays');
  assert.deepEqual([...(await h.nodes()).map((n) => n.id)].sort(), ['n1', 'n3', 'n4']);
  for (const id of ['n3', 'n5']) push(h, node(id));
  assert.deepEqual(await h.of('n1'), [], 'then n1 is the oldest');
  assert.equal((await h.of('n3')).length, 2);
});

test('the write timer writes an unanswered push, then its answer, and an answered one with its answer', () =>
  withFile(async (path) => {
    const persistence = createSqliteHistory({ path, perNode: 10, flushMs: 20 });
    const h = createHistory({ perNode: 10, hub: 'h1', index: () => 7n, persistence });
    const db = new Database(path, { readonly: true });
    try {
      // A one-member batch's answer, as its blob holds it (kind at byte 12, time at 24), or as a later row.
      const answer = (nonce: string) => {
        const b = db.prepare('SELECT id, members FROM batches WHERE nonce = ?').get(nonce) as
          | { id: number; members: Buffer }
          | undefined;
        if (!b) return undefined;
        const late = db.prepare('SELECT answer FROM late_answers WHERE batch = ?').get(b.id) as
          | { answer: string }
          | undefined;
        if (late) return { late: late.answer };
        const kind = b.members.readUInt32LE(12);
        return { kind, at: kind === 0 ? null : b.members.readDoubleLE(24) };
      };
      const n = node('n1');
      const at = Date.now();
      const sent = (nonce: string) => sentTo(h, n, nonce, 1, at, new Map([[nonce, 'v1']]));
      sent('unanswered');
      sent('acked');
      h.answered!({ stream: 1, node: n, typeUrl: TypeUrl.ClusterLoadAssignment, nonce: 'acked', error: undefined, at });
      // Nothing calls flush: only the timer writes.
      assert.deepEqual(await until(() => answer('acked'), 'the answered push written'), { kind: 1, at });
      assert.deepEqual(await until(() => answer('unanswered'), 'the unanswered push written'), { kind: 0, at: null });
      h.answered!({
        stream: 1,
        node: n,
        typeUrl: TypeUrl.ClusterLoadAssignment,
        nonce: 'unanswered',
        error: undefined,
        at: at + 1,
      });
      assert.deepEqual(
        await until(() => answer('unanswered')?.late, 'its answer written'),
        JSON.stringify({ ack: true, at: at + 1 }),
      );
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

test('with a store, memory holds only the pushes awaiting an answer; the store has the rest', () =>
  withFile(async (path) => {
    const h = open(path, 5);
    const set = new Map([['web', 'v1']]);
    for (let i = 0; i < 30; i++) push(h, node(`n${i % 3}`), set);
    const waiting = [push(h, node('n0'), set, false), push(h, node('n1'), set, false)];
    assert.equal(h.held(), 2, 'the 30 answered records are not kept in memory');
    await h.flush();
    const n0 = await h.of('n0');
    assert.equal(n0.length, 5);
    assert.deepEqual(
      n0.map((r) => r.answer?.ack ?? null),
      [true, true, true, true, null],
    );
    h.answered!({
      stream: 1,
      node: node('n0'),
      typeUrl: TypeUrl.ClusterLoadAssignment,
      nonce: waiting[0]!,
      error: undefined,
      at: 3_000,
    });
    assert.equal(h.held(), 1);
    await h.flush();
    assert.deepEqual((await h.of('n0')).at(-1)?.answer, { ack: true, at: 3_000 });
    await h.close();
  }));

test('with a store, streams of one node id awaiting answers each get theirs; an unanswered backlog is bounded', () =>
  withFile(async (path) => {
    const perNode = 100;
    const h = open(path, perNode);
    const n = node('shared');
    const sent = (stream: number, nonce: string) => sentTo(h, n, nonce, stream, 1);
    // 50 Envoys under one node id, each with a push in flight under the same nonce text.
    for (let s = 1; s <= 50; s++) sent(s, 'x-1');
    for (let s = 50; s >= 1; s--)
      h.answered!({
        stream: s,
        node: n,
        typeUrl: TypeUrl.ClusterLoadAssignment,
        nonce: 'x-1',
        error: s === 7 ? { code: 3, message: 'bad' } : undefined,
        at: 100 + s,
      });
    assert.equal(h.held(), 0);
    await h.flush();
    const records = await h.of('shared');
    assert.equal(records.length, 50);
    for (const r of records)
      assert.equal(r.answer?.at, 100 + r.stream, `stream ${r.stream}'s answer on its own record`);
    assert.equal(records.find((r) => r.stream === 7)?.answer?.ack, false);
    // Streams that end unanswered: memory keeps at most perNode of their pushes.
    for (let i = 0; i < perNode + 20; i++) sent(1000 + i, 'y-1');
    assert.equal(h.held(), perNode);
    await h.close();
  }));
