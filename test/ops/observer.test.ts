// The transport's observer seam: every response a stream sends (not heartbeats)
// and the client's answer to it — ACK, or NACK with its message — reach the observer.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import type { AnswerEvent, SentEvent } from '../../src/xds/transport/callbacks';
import { TypeUrl } from '../../src/xds/transport/type-urls';
import { decodeResponse, type XdsResponse } from '../../src/xds/transport/wire';
import { framed, startFakeStream } from '../xds/transport/helpers/fake-stream';
import { cluster, seed, TestProvider } from '../xds/transport/helpers/fixtures';

class Call extends EventEmitter {
  written: Buffer[] = [];
  writableEnded = false;
  write(m: XdsResponse): boolean {
    this.written.push(framed(m));
    return true;
  }
  end(): void {
    this.writableEnded = true;
  }
}

for (const variant of ['delta', 'sotw'] as const) {
  test(`${variant}: sent responses and their ACK/NACK reach the observer`, () => {
    const p = new TestProvider();
    seed(p);
    const call = new Call();
    const sent: SentEvent[] = [];
    const answered: AnswerEvent[] = [];
    const { stream, send } = startFakeStream(call, p, variant, 'ads', {
      deps: { callbacks: { sent: (e) => sent.push(e), answered: (e) => answered.push(e) } },
    });
    const message = variant === 'delta' ? 'DeltaDiscoveryResponse' : 'DiscoveryResponse';
    const sub = variant === 'delta' ? { resourceNamesSubscribe: ['*'] } : { resourceNames: [] };
    send({ node: { id: 'n1', cluster: 'c' }, typeUrl: TypeUrl.Cluster, ...sub });
    assert.equal(sent.length, 1);
    const first = decodeResponse('v3', message, call.written[0]!);
    assert.equal(sent[0]!.nonce, first.nonce);
    assert.equal(sent[0]!.node.id, 'n1');
    assert.equal(sent[0]!.typeUrl, TypeUrl.Cluster);
    assert.ok(sent[0]!.resources.size > 0);
    if (variant === 'sotw') assert.equal(sent[0]!.version, first.versionInfo);
    send({
      typeUrl: TypeUrl.Cluster,
      responseNonce: first.nonce,
      ...(variant === 'sotw' ? { versionInfo: first.versionInfo } : {}),
    });
    assert.deepEqual(
      answered.map((a) => [a.nonce, a.error]),
      [[first.nonce, undefined]],
    );

    p.set(cluster('c2', 999));
    stream.resourcesChanged(TypeUrl.Cluster, new Set(['c2']), Date.now());
    stream.flush();
    assert.equal(sent.length, 2);
    send({
      typeUrl: TypeUrl.Cluster,
      responseNonce: sent[1]!.nonce,
      errorDetail: { code: 3, message: 'cluster c2: bad lb policy' },
    });
    assert.equal(answered.length, 2);
    assert.equal(answered[1]!.nonce, sent[1]!.nonce);
    assert.deepEqual(answered[1]!.error, { code: 3, message: 'cluster c2: bad lb policy' });
  });
}
