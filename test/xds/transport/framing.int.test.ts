// The reused serializer buffer (wire.ts serializeResponse) under a real
// grpc-js server: writes queued behind one another (the Writable buffers them
// until HTTP/2 takes the previous one) are serialized later, one at a time, and
// every message reaches the client intact. If grpc-js ever kept the
// serializer's buffer instead of copying it, the client would see later bodies
// in earlier messages.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { lookupType } from '../../../src/xds/transport/envoy-proto';
import { serviceDefinitions } from '../../../src/xds/transport/services';
import type { XdsResponse } from '../../../src/xds/transport/wire';

const SERVICE = 'envoy.service.discovery.v3.AggregatedDiscoveryService';
const Res = lookupType('envoy.service.discovery.v3.DeltaDiscoveryResponse');

test('queued writes of shared bodies reach the client intact, each with its own nonce', {
  timeout: 20_000,
}, async (t) => {
  const COUNT = 200;
  // Bodies of different sizes (some large enough to grow the buffer, then smaller ones after them).
  const bodies = Array.from({ length: COUNT }, (_, i) =>
    Buffer.from(
      Res.encode(
        Res.fromObject({
          systemVersionInfo: `v${i}-${'x'.repeat((i * 7919) % 70_000)}`,
          typeUrl: 'type.googleapis.com/t',
        }),
      ).finish(),
    ),
  );
  const server = new grpc.Server();
  const { definition } = serviceDefinitions().get(SERVICE)!;
  let queued = 0;
  server.addService(definition, {
    DeltaAggregatedResources(call: grpc.ServerDuplexStream<Buffer, XdsResponse>) {
      call.once('data', () => {
        for (let i = 0; i < COUNT; i++) if (!call.write({ body: bodies[i]!, nonce: `n-${i}` })) queued++;
        call.end();
      });
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  t.after(() => server.forceShutdown());
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  t.after(() => client.close());
  const call = client.makeBidiStreamRequest(
    `/${SERVICE}/DeltaAggregatedResources`,
    (b: Buffer) => b,
    (b: Buffer) => b,
  );
  const got: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    call.on('data', (b: Buffer) => got.push(b));
    call.on('end', resolve);
    call.on('error', reject);
  });
  call.write(Buffer.alloc(0));
  await done;
  call.end();
  assert.ok(queued > 0, 'some writes were queued behind earlier ones');
  assert.equal(got.length, COUNT);
  got.forEach((b, i) => {
    const m = Res.toObject(Res.decode(b)) as { systemVersionInfo: string; nonce: string };
    assert.equal(m.nonce, `n-${i}`);
    assert.equal(m.systemVersionInfo.split('-')[0], `v${i}`);
    assert.equal(b.length, bodies[i]!.length + 2 + `n-${i}`.length);
  });
});
