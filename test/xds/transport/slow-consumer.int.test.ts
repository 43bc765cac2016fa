// A client that does not read or ACK must not make the server queue responses:
// at most one un-ACKed response per type, then the latest state on catch-up.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { lookupType } from '../../../src/xds/transport/envoy-proto';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import { decodeAny, node, type Plain } from './helpers/client';
import { cluster } from './helpers/fixtures';
import { ADS, seededHub } from './helpers/harness';

test('slow consumer: 50 changes to a client that does not read give one response, then the latest state', {
  timeout: 20_000,
}, async (t) => {
  const { p, hub } = await seededHub(t);
  const Req = lookupType('envoy.service.discovery.v3.DiscoveryRequest');
  const Res = lookupType('envoy.service.discovery.v3.DiscoveryResponse');
  const client = new grpc.Client(`127.0.0.1:${hub.port}`, grpc.credentials.createInsecure());
  const call = client.makeBidiStreamRequest(
    ADS,
    (m: Plain) => Buffer.from(Req.encode(Req.fromObject(m)).finish()),
    (b: Buffer) => Res.toObject(Res.decode(b)) as Plain,
  );
  call.on('error', () => undefined);
  t.after(() => {
    call.cancel();
    client.close();
  });

  // No 'data' listener: the client reads nothing.
  const computed = new Promise<void>((resolve) => (p.onGet = (url) => url === TypeUrl.Cluster && resolve()));
  call.write({ node: node('slow'), typeUrl: TypeUrl.Cluster, resourceNames: [] });
  await computed;
  p.onGet = undefined;
  for (let i = 0; i < 50; i++) {
    p.set(cluster('c1', 100 + i));
    hub.xds.flushChanges();
  }
  const stream = hub.xds.streams()[0]!;
  assert.equal(stream.stats.responses, 1, 'one response written, 50 changes folded into a dirty mark');
  assert.equal(stream.stats.maxUnackedPerType, 1);
  assert.equal(stream.types.get(TypeUrl.Cluster)!.dirty, true);

  // Catch up: read, ACK, and get the latest state in one response.
  const responses: Plain[] = [];
  const second = new Promise<Plain>((resolve) =>
    call.on('data', (r: Plain) => {
      responses.push(r);
      if (responses.length === 1)
        call.write({ typeUrl: r.typeUrl, versionInfo: r.versionInfo, responseNonce: r.nonce, resourceNames: [] });
      else resolve(r);
    }),
  );
  const latest = await second;
  const c1 = latest.resources.map(decodeAny).find((c: Plain) => c.name === 'c1');
  assert.equal(String(c1.connectTimeout.seconds), '149');
  assert.equal(stream.stats.responses, 2);
  assert.equal(stream.stats.maxUnackedPerType, 1);
});
