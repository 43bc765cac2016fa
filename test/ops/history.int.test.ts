// The per-node history over real gRPC: each push and its ACK/NACK, bounded, kept
// in history.db across a restart; config?index=N equals what was pushed at N;
// diffs between two indexes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TypeUrl } from '../../src/xds/transport/type-urls';
import { call } from '../helpers/hub';
import { tmpDir } from '../helpers/tmp';
import { autoClient, register, startOpsHub, until } from './helpers';

const strip = (v: string | null) => (v === null ? v : v.replace(/\/ttl\d+$/, ''));

test('history: pushes, ACKs and NACKs per node, kept across a restart (SQLite)', async () => {
  const dir = await tmpDir('ops-history');
  try {
    let h = await startOpsHub({ store: { kind: 'sqlite' }, dataDir: dir.path });
    await register(h.hub, 'web', 8080);
    const c = autoClient(h.hub.grpcPort, 'envoy-1', {
      nack: (_t, res) => (res.some((r) => r.name === 'bad') ? 'cluster bad: rejected' : undefined),
    });
    await until(() => c.seen.length >= 1, 'first CDS push');
    await register(h.hub, 'bad', 9090);
    await until(() => c.seen.some((s) => s.nacked), 'the NACK');
    const res = await until(async () => {
      const r = await call(h.hub, 'GET', '/v1/xds/history/envoy-1');
      return r.status === 200 &&
        r.json.records.some((x: any) => x.answer?.ack === false) &&
        r.json.records.some((x: any) => x.answer?.ack === true)
        ? r
        : undefined;
    }, 'history with an ACK and a NACK');
    const records = res.json.records;
    const acked = records.find((r: any) => r.answer?.ack === true);
    assert.equal(acked.type, 'CDS');
    assert.ok('web' in acked.resources);
    const nacked = records.find((r: any) => r.answer?.ack === false);
    assert.equal(nacked.answer.message, 'cluster bad: rejected');
    assert.ok('bad' in nacked.resources);
    assert.ok(BigInt(nacked.index) > BigInt(acked.index), 'the NACKed push was translated at a later index');
    assert.deepEqual(
      records.map((r: any) => r.seq),
      [...records.map((r: any) => r.seq)].sort((a: number, b: number) => a - b),
    );
    assert.equal((await call(h.hub, 'GET', '/v1/xds/history/nobody')).status, 404);
    assert.equal((await call(h.hub, 'GET', '/v1/xds/history/envoy-1?limit=x')).status, 400);
    c.close();
    await h.close();

    // A new process over the same data directory: the history comes from history.db.
    h = await startOpsHub({ store: { kind: 'sqlite' }, dataDir: dir.path });
    const after = await call(h.hub, 'GET', '/v1/xds/history/envoy-1');
    assert.equal(after.status, 200);
    assert.deepEqual(after.json.records, records, 'every record and answer survived the restart');
    const nodes = await call(h.hub, 'GET', '/v1/xds/nodes');
    assert.deepEqual(
      nodes.json.map((n: any) => [n.id, n.connected]),
      [['envoy-1', false]],
    );
    // New pushes continue the sequence.
    const c2 = autoClient(h.hub.grpcPort, 'envoy-1');
    await until(
      async () => (await call(h.hub, 'GET', '/v1/xds/history/envoy-1')).json.records.length > records.length,
      'a push after the restart',
    );
    const more = (await call(h.hub, 'GET', '/v1/xds/history/envoy-1')).json.records;
    assert.ok(more.at(-1).seq > records.at(-1).seq);
    c2.close();
    await h.close();
  } finally {
    await dir.cleanup();
  }
});

test('history is bounded per node', async () => {
  const h = await startOpsHub({ xdsHistory: 3 });
  try {
    const c = autoClient(h.hub.grpcPort, 'n');
    for (let i = 0; i < 6; i++) {
      await register(h.hub, `s${i}`, 9000 + i);
      await until(() => c.seen.some((s) => s.resources.has(`s${i}`)), `push of s${i}`);
    }
    const records = (await call(h.hub, 'GET', '/v1/xds/history/n')).json.records;
    assert.equal(records.length, 3);
    assert.ok('s5' in records.at(-1).resources);
    c.close();
  } finally {
    await h.close();
  }
});

test('config?index=N is what was pushed at N; diff?from&to shows the change field by field', async () => {
  const h = await startOpsHub();
  try {
    await register(h.hub, 'api', 7000);
    const c = autoClient(h.hub.grpcPort, 'gw-1', { eds: ['api'] });
    await until(() => c.held.get(TypeUrl.ClusterLoadAssignment)?.has('api'), 'api endpoints');
    await call(h.hub, 'PUT', '/v1/config', { Kind: 'service-defaults', Name: 'api', Protocol: 'http2' });
    const second = await register(h.hub, 'api', 7001);
    // Until the assignment with the second endpoint was pushed (translated at or after its write) and every push answered:
    // counting pushes is not enough, as the config change alone may bring two.
    const records = await until(async () => {
      const r = (await call(h.hub, 'GET', '/v1/xds/history/gw-1')).json.records;
      const pushed = r.some((x: any) => x.type === 'EDS' && 'api' in x.resources && BigInt(x.index) >= second);
      return pushed && r.every((x: any) => x.answer) ? r : undefined;
    }, 'the second endpoint pushed and every push answered');
    const byIndex = new Map<string, any[]>();
    for (const r of records) byIndex.set(r.index, [...(byIndex.get(r.index) ?? []), r]);
    assert.ok(byIndex.size >= 2, 'pushes at several indexes');
    for (const [index, pushes] of byIndex) {
      const cfg = await call(h.hub, 'GET', `/v1/xds/config/gw-1?index=${index}`);
      assert.equal(cfg.status, 200, cfg.text);
      for (const p of pushes) {
        const rest =
          p.type === 'CDS' ? 'clusters' : p.type === 'EDS' ? 'endpoints' : p.type === 'LDS' ? 'listeners' : 'routes';
        for (const [name, version] of Object.entries(p.resources as Record<string, string | null>)) {
          assert.equal(
            cfg.json.resources[rest][name]?.version ?? null,
            strip(version),
            `${p.type} ${name} at index ${index}`,
          );
        }
      }
    }
    const indexes = [...byIndex.keys()].map(BigInt).sort((a, b) => (a < b ? -1 : 1));
    const diff = await call(h.hub, 'GET', `/v1/xds/diff/gw-1?from=${indexes[0]}&to=${indexes.at(-1)}`);
    assert.equal(diff.status, 200, diff.text);
    const cluster = diff.json.changed.find((x: any) => x.type === 'clusters' && x.name === 'api');
    assert.ok(cluster, JSON.stringify(diff.json));
    assert.ok(
      cluster.fields.some((f: any) => /typedExtensionProtocolOptions/.test(f.path)),
      JSON.stringify(cluster.fields),
    );
    const cla = diff.json.changed.find((x: any) => x.type === 'endpoints' && x.name === 'api');
    assert.ok(
      cla.fields.some((f: any) => f.path.startsWith('endpoints[0].lbEndpoints[1]') && f.before === undefined),
      JSON.stringify(cla.fields),
    );
    assert.equal((await call(h.hub, 'GET', '/v1/xds/diff/gw-1?from=x&to=2')).status, 400);
    assert.equal((await call(h.hub, 'GET', '/v1/xds/config/gw-1?index=999999')).status, 404);
    assert.equal((await call(h.hub, 'GET', '/v1/xds/config/gw-1?index=0')).status, 400);
    c.close();
  } finally {
    await h.close();
  }
});
