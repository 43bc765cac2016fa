// The initial-sync gate: at most `limit` large responses are being written at
// once across streams, a waiting stream writes nothing, and every stream still
// converges (CDS, then EDS for what it got) once earlier writes complete.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { CHANGE_GATE_FACTOR } from '../../../src/xds/transport/stream';
import { createSyncGate, type SyncGate } from '../../../src/xds/transport/sync-gate';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import type { XdsResponse } from '../../../src/xds/transport/wire';
import { decodeResponse } from '../../../src/xds/transport/wire';
import { framed, startFakeStream } from './helpers/fake-stream';
import { cluster, seed, TestProvider } from './helpers/fixtures';

/** A call whose writes complete only when the test says so (as grpc-js calls back once HTTP/2 took the message). */
class ManualCall extends EventEmitter {
  written: Buffer[] = [];
  inFlight: (() => void)[] = [];
  writableEnded = false;
  write(m: XdsResponse, cb?: () => void): boolean {
    this.written.push(framed(m));
    if (cb) this.inFlight.push(cb);
    return true;
  }
  end(): void {
    this.writableEnded = true;
  }
}

function open(p: TestProvider, gate: SyncGate, id: number) {
  const call = new ManualCall();
  const { stream, send } = startFakeStream(call, p, 'delta', 'ads', {
    id,
    deps: { pacing: { syncGate: gate, windowOpen: () => false, defer: () => undefined } },
  });
  const responses = () => call.written.map((b) => decodeResponse('v3', 'DeltaDiscoveryResponse', b));
  return { call, stream, send, responses };
}

/** Envoy's part: ACK every response, and subscribe EDS by name to the clusters it got. */
function envoy(c: ReturnType<typeof open>) {
  let seen = 0;
  return () => {
    const all = c.responses();
    for (; seen < all.length; seen++) {
      const r = all[seen]!;
      c.send({ typeUrl: r.typeUrl, responseNonce: r.nonce });
      if (r.typeUrl === TypeUrl.Cluster)
        c.send({
          typeUrl: TypeUrl.ClusterLoadAssignment,
          resourceNamesSubscribe: r.resources.map((x: { name: string }) => x.name),
        });
    }
  };
}

test('at most `limit` large writes are in flight, and every stream converges', () => {
  const p = new TestProvider();
  seed(p);
  const gate = createSyncGate({ limit: 2, largeBytes: 1, holdMs: 0 }); // every response counts as large
  const clients = Array.from({ length: 7 }, (_, i) => open(p, gate, i + 1));
  for (const c of clients)
    c.send({ node: { id: `n${c.stream.id}` }, typeUrl: TypeUrl.Cluster, resourceNamesSubscribe: ['*'] });

  const inFlight = () => clients.reduce((n, c) => n + c.call.inFlight.length, 0);
  const acks = clients.map(envoy);
  let steps = 0;
  for (;;) {
    assert.ok(inFlight() <= 2, `${inFlight()} large writes in flight; limit 2`);
    assert.ok(gate.stats().active <= 2);
    acks.forEach((ack) => ack());
    const busy = clients.find((c) => c.call.inFlight.length > 0);
    if (!busy) break;
    busy.call.inFlight.shift()!(); // the oldest write completes; its slot goes to the next waiting stream
    assert.ok(++steps < 100, 'no progress');
  }
  assert.equal(gate.stats().maxActive, 2);
  assert.equal(gate.stats().waiting, 0);
  for (const c of clients) {
    const byType = new Map(
      c.responses().map((r) => [r.typeUrl, r.resources.map((x: { name: string }) => x.name).sort()]),
    );
    assert.deepEqual(byType.get(TypeUrl.Cluster), ['c1', 'c2'], `stream ${c.stream.id} got its clusters`);
    assert.deepEqual(
      byType.get(TypeUrl.ClusterLoadAssignment),
      ['c1', 'c2'],
      `stream ${c.stream.id} got its endpoints`,
    );
  }
});

test('a stream that closes gives back its slot and its place in the queue', () => {
  const p = new TestProvider();
  seed(p);
  const gate = createSyncGate({ limit: 1, largeBytes: 1, holdMs: 0 });
  const [a, b, c] = [1, 2, 3].map((id) => open(p, gate, id)) as [
    ReturnType<typeof open>,
    ReturnType<typeof open>,
    ReturnType<typeof open>,
  ];
  for (const x of [a, b, c])
    x.send({ node: { id: `n${x.stream.id}` }, typeUrl: TypeUrl.Cluster, resourceNamesSubscribe: ['*'] });
  assert.deepEqual(
    [a, b, c].map((x) => x.call.written.length),
    [1, 0, 0],
  );
  assert.deepEqual(gate.stats(), { active: 1, waiting: 2, maxActive: 1, granted: 1 });
  b.call.emit('cancelled'); // waiting: leaves the queue
  a.call.emit('cancelled'); // holding, write never completed: the slot goes to c
  assert.deepEqual(
    [a, b, c].map((x) => x.call.written.length),
    [1, 0, 1],
  );
  assert.deepEqual(gate.stats(), { active: 1, waiting: 0, maxActive: 1, granted: 2 });
  c.call.inFlight.shift()!();
  assert.equal(gate.stats().active, 0);
});

test('small responses do not wait for a slot', () => {
  const p = new TestProvider();
  seed(p);
  const gate = createSyncGate({ limit: 1, largeBytes: 1 << 20, holdMs: 0 });
  const [a, b] = [1, 2].map((id) => open(p, gate, id)) as [ReturnType<typeof open>, ReturnType<typeof open>];
  for (const x of [a, b])
    x.send({ node: { id: `n${x.stream.id}` }, typeUrl: TypeUrl.Cluster, resourceNamesSubscribe: ['*'] });
  assert.deepEqual([a.call.written.length, b.call.written.length], [1, 1]);
  assert.equal(gate.stats().granted, 0);
});

test('a change push below CHANGE_GATE_FACTOR × largeBytes does not wait at the gate; an initial sync does', () => {
  const p = new TestProvider();
  seed(p);
  const gate = createSyncGate({ limit: 1, largeBytes: 64, holdMs: 0 });
  const synced = open(p, gate, 1);
  synced.send({ node: { id: 'n1' }, typeUrl: TypeUrl.Cluster, resourceNamesSubscribe: ['*'] });
  assert.equal(synced.call.written.length, 1, 'initial CDS, through the free slot');
  assert.ok(synced.call.written[0]!.length >= 64, 'the initial sync is large');
  synced.call.inFlight.shift()!();
  synced.send({ typeUrl: TypeUrl.Cluster, responseNonce: synced.responses()[0]!.nonce });
  const holder = open(p, gate, 2);
  holder.send({ node: { id: 'n2' }, typeUrl: TypeUrl.Cluster, resourceNamesSubscribe: ['*'] });
  assert.equal(gate.stats().active, 1, 'the only slot is held by an initial sync that is not written yet');
  const waiting = open(p, gate, 3);
  waiting.send({ node: { id: 'n3' }, typeUrl: TypeUrl.Cluster, resourceNamesSubscribe: ['*'] });
  assert.equal(waiting.call.written.length, 0, 'another initial sync waits for the slot');
  p.set(cluster('c1', 99));
  synced.stream.resourcesChanged(TypeUrl.Cluster, new Set(['c1']), Date.now());
  synced.stream.flush();
  assert.equal(synced.call.written.length, 2, 'the change went at once, past the held slot');
  const change = synced.call.written[1]!.length;
  assert.ok(
    change >= 64 && change < 64 * CHANGE_GATE_FACTOR,
    `a ${change} B change: over largeBytes, under the change bound`,
  );
});
