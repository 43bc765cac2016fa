// Each limit is a flag; hitting it is a clear answer that names it and changes
// nothing: HTTP 413 (body, txn), 429 with Retry-After (blocking queries per
// client, requests per second), gRPC RESOURCE_EXHAUSTED (message size, streams
// per connection, Subscribe streams per token).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { DEFAULTS } from '../../src/config';
import { ALL_PARTS } from '../../src/hub';
import { loadSubscribeProto } from '../../src/subscribe/proto';
import { blockingQueriesWaiting, call, startHub } from '../helpers/hub';
import { until as poll } from '../helpers/until';
import { StreamReader, subscribeClient } from '../subscribe/grpc-helpers';

const limits = (over: Partial<typeof DEFAULTS.limits>) => ({ limits: { ...DEFAULTS.limits, ...over } });

test('HTTP: body over --http-max-body is 413; a txn over --txn-max-ops is 413 naming the flag; nothing changes', async () => {
  const hub = await startHub(limits({ httpMaxBodyBytes: 1024, txnMaxOps: 2 }));
  try {
    const before = hub.catalog.snapshot().state;
    const big = await call(hub, 'PUT', '/v1/catalog/register', {
      Node: 'n1',
      Address: '10.0.0.1',
      NodeMeta: { pad: 'x'.repeat(2000) },
    });
    assert.equal(big.status, 413);
    const op = { Node: { Verb: 'set', Node: { Node: 'n1', Address: '10.0.0.1' } } };
    const txn = await call(hub, 'PUT', '/v1/txn', [op, op, op]);
    assert.equal(txn.status, 413);
    assert.match(txn.text, /too many operations \(3 > 2\), the limit set by --txn-max-ops/);
    assert.equal(hub.catalog.snapshot().state, before);
    assert.equal((await call(hub, 'PUT', '/v1/txn', [op, op])).status, 200);
  } finally {
    await hub.close();
  }
});

test('HTTP: blocking queries past --http-max-blocking-per-client are 429 with Retry-After; requests past --http-rate-limit too', async () => {
  const hub = await startHub(limits({ httpMaxBlockingPerClient: 2 }));
  const rated = await startHub(limits({ httpRateLimit: 5 }));
  try {
    const first = await call(hub, 'GET', '/v1/catalog/nodes');
    const held = [1, 2].map(() =>
      hub.http.inject({ method: 'GET', url: `/v1/catalog/nodes?index=${first.index}&wait=5s` }),
    );
    await blockingQueriesWaiting(hub, 2);
    const third = await call(hub, 'GET', `/v1/catalog/nodes?index=${first.index}&wait=5s`);
    assert.equal(third.status, 429);
    assert.equal(third.headers['retry-after'], '1');
    assert.match(third.text, /at most 2 at once \(--http-max-blocking-per-client\)/);
    assert.equal((await call(hub, 'GET', '/v1/catalog/nodes')).status, 200, 'plain reads are not counted');
    await call(hub, 'PUT', '/v1/catalog/register', { Node: 'n1', Address: '10.0.0.1' }); // answers the two held queries
    for (const r of await Promise.all(held)) assert.equal(r.statusCode, 200);
    assert.equal((await call(hub, 'GET', `/v1/catalog/nodes?index=1&wait=1s`)).status, 200, 'slots are given back');

    const statuses: number[] = [];
    let refused: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 8; i++) {
      const r = await call(rated, 'GET', '/v1/status/leader');
      statuses.push(r.status);
      if (r.status === 429) refused ??= r;
    }
    assert.deepEqual(statuses.slice(0, 5), [200, 200, 200, 200, 200]);
    assert.ok(refused, `statuses ${statuses}`);
    assert.ok(Number(refused.headers['retry-after']) >= 0);
    assert.match(refused.text, /at most 5 requests per second per client \(--http-rate-limit\)/);
  } finally {
    await hub.close();
    await rated.close();
  }
});

test('gRPC: a message over --grpc-max-message, streams over --grpc-max-streams-per-connection and --subscribe-max-streams-per-token are RESOURCE_EXHAUSTED', async () => {
  const hub = await startHub(
    limits({ grpcMaxMessageBytes: 512, grpcMaxStreamsPerConnection: 3, subscribeMaxStreamsPerToken: 2 }),
    { parts: ALL_PARTS, grpcGraceMs: 100 },
  );
  const client = subscribeClient(`127.0.0.1:${hub.grpcPort}`);
  // Its own subchannel pool: a second TCP connection (grpc-js shares one between clients otherwise).
  const Ctor = grpc.makeGenericClientConstructor(loadSubscribeProto().service, 'StateChangeSubscription');
  const other = new Ctor(`127.0.0.1:${hub.grpcPort}`, grpc.credentials.createInsecure(), {
    'grpc.use_local_subchannel_pool': 1,
  }) as unknown as typeof client;
  const open: StreamReader[] = [];
  try {
    const huge = await new StreamReader(
      client.Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'x'.repeat(2000) } }),
    ).status;
    assert.equal(huge.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.match(huge.details, /larger than max/);

    const sub = (c: typeof client, token: string) => {
      const s = new StreamReader(c.Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' }, Token: token }));
      open.push(s);
      return s;
    };
    await sub(client, 'a').subscribed();
    await sub(client, 'a').subscribed();
    const perToken = await sub(client, 'a').status;
    assert.equal(perToken.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.match(perToken.details, /at most 2 \(--subscribe-max-streams-per-token\)/);
    await sub(client, 'b').subscribed();
    const perConnection = await sub(client, 'c').status;
    assert.equal(perConnection.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.match(perConnection.details, /at most 3 \(--grpc-max-streams-per-connection\)/);
    // Another connection has its own count; an ended stream gives its slot back.
    await sub(other, 'c').subscribed();
    open[0]!.call.cancel();
    await open[0]!.status;
    await until(
      async () =>
        await Promise.race([
          sub(client, 'd')
            .subscribed()
            .then(() => true),
          open.at(-1)!.status.then(() => false),
        ]),
    );
  } finally {
    for (const s of open) s.call.cancel();
    client.close();
    other.close();
    await hub.close();
  }
});

async function until(check: () => Promise<boolean>): Promise<void> {
  await poll(check, { what: 'the condition', interval: 0 });
}
