// The source contract over the gRPC source, against the hub's real Subscribe
// server; plus what only the wire has: Consul's raw "ACL not found" (UNKNOWN)
// and an unreachable server.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { Topic } from '../../src/catalog/types';
import { HubError } from '../../src/errors';
import { createMaterializer } from '../../src/materializer/materializer';
import { grpcSource, statusToHubError } from '../../src/materializer/sources/grpc';
import { healthView } from '../../src/materializer/views/health';
import { SUBSCRIBE_METHOD_PATH } from '../../src/subscribe/proto';
import { startSubscribeServer } from '../subscribe/grpc-helpers';
import { recordingBackoff } from './fixtures';
import { sourceContract } from './source-contract';

sourceContract('gRPC', async (publisher) => {
  const server = await startSubscribeServer(publisher);
  const source = grpcSource({ address: server.address });
  return {
    source,
    teardown: async () => {
      source.close();
      await server.close();
    },
  };
});

test('gRPC status codes map to the materializer error classes', () => {
  const cases: [grpc.status, string, string][] = [
    [grpc.status.ABORTED, 'reset', 'SUBSCRIPTION_RESET'],
    [grpc.status.UNAVAILABLE, 'down', 'SHUTTING_DOWN'],
    [grpc.status.PERMISSION_DENIED, 'no', 'PERMISSION_DENIED'],
    [grpc.status.UNKNOWN, 'ACL not found', 'PERMISSION_DENIED'],
    [grpc.status.UNKNOWN, 'something else', 'INTERNAL'],
    [grpc.status.INVALID_ARGUMENT, 'bad', 'INVALID_ARGUMENT'],
    [grpc.status.RESOURCE_EXHAUSTED, 'slow', 'SLOW_CONSUMER'],
    [grpc.status.INTERNAL, 'boom', 'INTERNAL'],
  ];
  for (const [code, details, want] of cases)
    assert.equal(statusToHubError({ code, details }).code, want, `${code} ${details}`);
});

test('a server answering UNKNOWN "ACL not found" (Consul) makes the view fail for good', async () => {
  const server = new grpc.Server();
  let calls = 0;
  server.addService(
    {
      Subscribe: {
        path: SUBSCRIBE_METHOD_PATH,
        requestStream: false,
        responseStream: true,
        requestSerialize: (x: Buffer) => x,
        requestDeserialize: (x: Buffer) => x,
        responseSerialize: (x: Buffer) => x,
        responseDeserialize: (x: Buffer) => x,
      },
    },
    {
      Subscribe: (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
        calls++;
        call.emit('error', { code: grpc.status.UNKNOWN, details: 'ACL not found' });
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  const source = grpcSource({ address: `127.0.0.1:${port}` });
  try {
    const m = createMaterializer({
      source,
      request: { topic: Topic.ServiceHealth, subject: { key: 'web' }, token: 'gone', index: 0n },
      view: healthView({ service: 'web' }),
      backoff: recordingBackoff(),
    });
    await assert.rejects(
      m.run(new AbortController().signal),
      (e: unknown) => e instanceof HubError && e.code === 'PERMISSION_DENIED',
    );
    assert.equal(calls, 1, 'no retry after a terminal error');
  } finally {
    source.close();
    server.forceShutdown();
  }
});

test('an unreachable server is a transient error: the materializer keeps retrying with backoff', async () => {
  // Bind and close a server to get a port nobody listens on.
  const probe = new grpc.Server();
  const port = await new Promise<number>((resolve, reject) =>
    probe.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  probe.forceShutdown();
  const source = grpcSource({ address: `127.0.0.1:${port}` });
  const backoff = recordingBackoff();
  let attempts = 0;
  const ac = new AbortController();
  const counting = {
    subscribe(req: Parameters<typeof source.subscribe>[0], signal: AbortSignal) {
      attempts++;
      if (attempts === 3) ac.abort();
      return source.subscribe(req, signal);
    },
    close: () => source.close(),
  };
  const m = createMaterializer({
    source: counting,
    request: { topic: Topic.ServiceHealth, subject: { key: 'web' }, token: '', index: 0n },
    view: healthView({ service: 'web' }),
    backoff,
  });
  await m.run(ac.signal);
  source.close();
  assert.equal(m.state, 'stopped');
  assert.deepEqual(backoff.delays.slice(0, 1), [0]);
  assert.ok(backoff.delays.length >= 2 && backoff.delays[1]! > 0);
});
