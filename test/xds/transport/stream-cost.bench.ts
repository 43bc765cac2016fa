import { EventEmitter } from 'node:events';
import pino from 'pino';
import { BodyCache } from '../../../src/xds/transport/body-cache';
import { createXdsMetrics } from '../../../src/xds/transport/metrics';
import { nameInterner } from '../../../src/xds/transport/name-sets';
import { PushPipeline } from '../../../src/xds/transport/push';
import { type StreamDeps, XdsStream } from '../../../src/xds/transport/stream';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import type { XdsResponse } from '../../../src/xds/transport/wire';
import { decodeResponse, encodeRequest } from '../../../src/xds/transport/wire';
import { framed } from './helpers/fake-stream';
import { cla, cluster, TestProvider } from './helpers/fixtures';

const N = Number(process.argv[2] ?? 300);
const S = Number(process.argv[4] ?? 300);
const p = new TestProvider();
for (let i = 0; i < S; i++) p.set(cluster(`c${i}`), cla(`c${i}`));
const pipeline = new PushPipeline(p, { debounceMs: 1, maxDelayMs: 5 });
class FakeCall extends EventEmitter {
  last?: Buffer;
  writableEnded = false;
  write(m: XdsResponse) {
    this.last = framed(m);
    return true;
  }
  end() {}
}
const deps: StreamDeps = {
  get: (u, n) => p.get(u, n),
  resourceTtlMs: 0,
  logger: pino({ level: 'silent' }),
  metrics: createXdsMetrics(undefined, () => []),
  bodyCache: new BodyCache(),
  registry: {
    subscriptionChanged: (s, u, d, names, w) => pipeline.update(s, u, d, names, w),
    names: nameInterner(),
    closed: () => {},
  },
};
const names = Array.from({ length: S }, (_, i) => `c${i}`);
const keep: XdsStream[] = [];
(globalThis as any).gc();
const before = process.memoryUsage().heapUsed;
let t = Date.now();
for (let i = 0; i < N; i++) {
  const call = new FakeCall();
  const s = new XdsStream(call as any, deps, { id: i, variant: 'delta', transport: 'ads', api: 'v3' });
  keep.push(s);
  const send = (m: any) => call.emit('data', encodeRequest('v3', 'DeltaDiscoveryRequest', m));
  send({ node: { id: `n${i}` }, typeUrl: TypeUrl.Cluster, resourceNamesSubscribe: ['*'] });
  send({ typeUrl: TypeUrl.Cluster, responseNonce: decodeResponse('v3', 'DeltaDiscoveryResponse', call.last!).nonce });
  send({ typeUrl: TypeUrl.ClusterLoadAssignment, resourceNamesSubscribe: names });
  send({
    typeUrl: TypeUrl.ClusterLoadAssignment,
    responseNonce: decodeResponse('v3', 'DeltaDiscoveryResponse', call.last!).nonce,
  });
  call.last = undefined;
}
const setupMs = Date.now() - t;
(globalThis as any).gc();
const after = process.memoryUsage().heapUsed;
console.log(
  `N=${N} S=${S}: heap per stream ${((after - before) / N / 1024).toFixed(1)} KiB; setup ${setupMs} ms (${(setupMs / N).toFixed(2)} ms/stream)`,
);
const rounds = Number(process.argv[3] ?? 1);
t = performance.now();
for (let r = 0; r < rounds; r++) {
  p.set(cla('c7', [1, 2, r]));
  pipeline.deliver();
  // Every client ACKs, so the next change can go out.
  for (const s of keep) {
    const st = s.types.get(TypeUrl.ClusterLoadAssignment)!;
    const call = (s as any).call as FakeCall;
    if (st.pending)
      call.emit(
        'data',
        encodeRequest('v3', 'DeltaDiscoveryRequest', {
          typeUrl: TypeUrl.ClusterLoadAssignment,
          responseNonce: st.pending.nonce,
        }),
      );
  }
}
console.log(`one CLA change to N streams (incl. N ACKs): ${((performance.now() - t) / rounds).toFixed(1)} ms`);
t = performance.now();
p.set(cluster('c8', 3));
pipeline.deliver();
console.log(`one Cluster change (CDS + warming EDS) to N streams: ${(performance.now() - t).toFixed(1)} ms`);
pipeline.close();
