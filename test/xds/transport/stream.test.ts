// XdsStream against a fake call whose write() reports backpressure: nothing is
// written while blocked, and 'drain' brings the latest state, not a backlog.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import type { XdsResponse } from '../../../src/xds/transport/wire';
import { decodeResponse } from '../../../src/xds/transport/wire';
import { framed, startFakeStream } from './helpers/fake-stream';
import { cluster, seed, TestProvider } from './helpers/fixtures';

class FakeCall extends EventEmitter {
  written: Buffer[] = [];
  accept = false;
  writableEnded = false;
  write(m: XdsResponse): boolean {
    this.written.push(framed(m));
    return this.accept;
  }
  end(): void {
    this.writableEnded = true;
  }
}

function open(p: TestProvider) {
  const call = new FakeCall();
  const { stream, send } = startFakeStream(call, p, 'delta', 'ads');
  const response = (i: number) => decodeResponse('v3', 'DeltaDiscoveryResponse', call.written[i]!);
  return { call, stream, send, response };
}

test('a blocked stream writes nothing until drain, then only the latest state', () => {
  const p = new TestProvider();
  seed(p);
  const { call, stream, send, response } = open(p);
  send({ node: { id: 'n' }, typeUrl: TypeUrl.Cluster, resourceNamesSubscribe: ['*'] });
  assert.equal(call.written.length, 1, 'first response written; write() said the buffer is full');
  send({ typeUrl: TypeUrl.Cluster, responseNonce: response(0).nonce });
  for (let i = 0; i < 20; i++) {
    p.set(cluster('c2', 200 + i));
    stream.resourcesChanged(TypeUrl.Cluster, new Set(['c2']), Date.now());
    stream.flush();
  }
  send({ typeUrl: TypeUrl.ClusterLoadAssignment, resourceNamesSubscribe: ['c1'] });
  assert.equal(call.written.length, 1, 'blocked: nothing more written');
  call.accept = true;
  call.emit('drain');
  assert.equal(call.written.length, 3, 'one CDS response with the latest c2, one EDS response');
  const cds = response(1);
  assert.deepEqual(
    cds.resources.map((r: { name: string }) => r.name),
    ['c2'],
  );
  assert.equal(
    cds.resources[0].version,
    p.get(TypeUrl.Cluster, { id: 'n', cluster: '', clientFeatures: [], userAgent: '' }).byName.get('c2')!.version,
  );
  assert.equal(response(2).typeUrl, TypeUrl.ClusterLoadAssignment);
  assert.equal(stream.stats.blockedWrites, 1);
});

test('a request that cannot be decoded ends the stream with INVALID_ARGUMENT', () => {
  const p = new TestProvider();
  const { call } = open(p);
  const errors: { code: number; details: string }[] = [];
  call.on('error', (e) => errors.push(e));
  call.emit('data', Buffer.from([0xff, 0xff, 0xff]));
  assert.equal(errors.length, 1);
  assert.equal(errors[0]!.code, 3);
  assert.match(errors[0]!.details, /DeltaDiscoveryRequest: cannot decode/);
});
