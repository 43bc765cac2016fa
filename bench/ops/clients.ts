// The dry-run bench's xDS fleet, in a process of its own so the hub's process
// holds only what a real hub holds (the server side of the streams): `count`
// Delta ADS clients (wildcard CDS, EDS of ten services, as a sidecar follows its
// upstreams), each ACKing every response. Tells the parent once every client
// has both its CDS and its EDS answer.
//   fork('bench/ops/clients.ts', [grpcPort, count])
import { setTimeout as sleep } from 'node:timers/promises';
import { TypeUrl } from '../../src/xds/transport/type-urls';
import { ScriptedClient } from '../../test/xds/transport/helpers/client';

const [port, count] = process.argv.slice(2).map(Number) as [number, number];
const DELTA_ADS = '/envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources';
// The parent is gone (finished or failed): leave no orphan behind.
process.on('disconnect', () => process.exit(0));

async function main(): Promise<void> {
  const started = Date.now();
  let synced = 0;
  for (let i = 0; i < count; i++) {
    const c = new ScriptedClient({ port, path: DELTA_ADS, kind: 'delta' });
    c.send({
      node: { id: `envoy-${i}`, cluster: 'edge', userAgentName: 'envoy' },
      typeUrl: TypeUrl.Cluster,
      resourceNamesSubscribe: ['*'],
    });
    c.send({
      typeUrl: TypeUrl.ClusterLoadAssignment,
      resourceNamesSubscribe: Array.from({ length: 10 }, (_, k) => `svc-${k}`),
    });
    void (async () => {
      let answered = 0;
      for (;;) {
        const r = await c.next();
        c.send({ typeUrl: r.typeUrl, responseNonce: r.nonce });
        c.responses.length = 0; // keep nothing: only the ACKs matter here
        if (++answered === 2 && ++synced === count) process.send!({ kind: 'synced', ms: Date.now() - started });
      }
    })();
    // Connect in steps: a burst of a thousand new streams at once only measures the burst.
    if (i % 100 === 99) await sleep(50);
  }
}

void main().catch((err) => {
  process.send?.({ kind: 'error', message: String(err) });
  process.exit(1);
});
