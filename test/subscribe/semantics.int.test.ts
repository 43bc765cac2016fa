// Every Subscribe rule through a real grpc-js client built from the project's
// protos, against a real hub whose catalog takes writes over HTTP while the
// streams are open (a background writer churns an unrelated service).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ClientReadableStream, credentials, makeGenericClientConstructor, status } from '@grpc/grpc-js';
import { SUBSCRIBE_METHOD_PATH } from '../../src/subscribe/proto';
import { RESET_MESSAGE } from '../../src/subscribe/publisher';
import { describe, StreamReader } from './grpc-helpers';
import { type SubscribeHub, startSubscribeHub } from './hub-harness';

async function withHub(
  fn: (h: SubscribeHub) => Promise<void>,
  options?: Parameters<typeof startSubscribeHub>[0],
): Promise<void> {
  const h = await startSubscribeHub(options);
  const churn = h.churn();
  try {
    await fn(h);
  } finally {
    assert.ok((await churn.stop()) > 0, 'the hub took other writes meanwhile');
    await h.close();
  }
}

test('Index 0: one event per instance, EndOfSnapshot at the snapshot index, live events; one entry → one EventBatch', () =>
  withHub(async (h) => {
    await h.instance('web', 'w1');
    const last = await h.instance('web', 'w2');
    const s = new StreamReader(h.client.Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' } }));
    const snap = await s.take(3);
    const eos = BigInt(snap[2]!.Index);
    assert.ok(eos >= last, 'the snapshot includes every acknowledged write');
    assert.deepEqual(snap.map(describe), [`${eos}:register-w1`, `${eos}:register-w2`, `eos@${eos}`]);

    const i3 = await h.instance('web', 'w3', 'n2');
    assert.deepEqual(describe(await s.next()), `${i3}:register-w3`);
    // Re-registering node n1 with a new address re-registers both of its web instances in one entry.
    const i4 = await h.register({ Node: 'n1', Address: '10.0.0.2' });
    assert.equal(describe(await s.next()), `batch@${i4}[${i4}:register-w1,${i4}:register-w2]`);
    const i5 = await h.deregister({ Node: 'n2', ServiceID: 'w3' });
    assert.equal(describe(await s.next()), `${i5}:deregister-w3`);
    assert.equal(s.pending(), 0, 'no churn events leaked into the web stream');
    s.call.cancel();
    assert.equal((await s.status).code, status.CANCELLED);
  }));

test('Index equal to the newest index the server holds for the subject: live events only, no framing', () =>
  withHub(async (h) => {
    await h.instance('web', 'w1');
    const first = new StreamReader(h.client.Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' } }));
    await first.take(2);
    const lastWeb = await h.instance('web', 'w2');
    assert.equal(describe(await first.next()), `${lastWeb}:register-w2`);
    first.call.cancel();
    await first.status;

    await h.instance('other', 'o1'); // moves the hub's index, not web's
    const resumed = new StreamReader(
      h.client.Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' }, Index: String(lastWeb) }),
    );
    await resumed.subscribed();
    const i3 = await h.instance('web', 'w3');
    assert.equal(describe(await resumed.next()), `${i3}:register-w3`, 'the first message is the live event');
    assert.equal(h.publisher.stats().resumes, 1);
    resumed.call.cancel();
  }));

test('Index > 0 that is not the newest: NewSnapshotToFollow, snapshot, EndOfSnapshot, live', () =>
  withHub(async (h) => {
    const old = await h.instance('web', 'w1');
    await h.instance('web', 'w2');
    const s = new StreamReader(
      h.client.Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' }, Index: String(old) }),
    );
    const got = (await s.take(4)).map(describe);
    const eos = got[3]!.replace('eos@', '');
    assert.deepEqual(got, ['nstf', `${eos}:register-w1`, `${eos}:register-w2`, `eos@${eos}`]);
    const i = await h.deregister({ Node: 'n1', ServiceID: 'w1' });
    assert.equal(describe(await s.next()), `${i}:deregister-w1`);
    s.call.cancel();
  }));

test('deprecated top-level Key/Namespace/Partition work without NamedSubject', () =>
  withHub(async (h) => {
    await h.instance('Web', 'w1');
    const s = new StreamReader(
      h.client.Subscribe({ Topic: 'ServiceHealth', Key: 'WEB', Namespace: '', Partition: '' }),
    );
    const [e, eos] = await s.take(2);
    assert.equal(e!.ServiceHealth?.CheckServiceNode?.Service?.Service, 'Web', 'subjects are case-insensitive');
    assert.equal(e!.Payload, 'ServiceHealth');
    assert.equal(eos!.Payload, 'EndOfSnapshot');
    const cfg = await (async () => {
      const res = await fetch(`${h.hub.httpUrl}/v1/config`, {
        method: 'PUT',
        body: JSON.stringify({ Kind: 'service-defaults', Name: 'web', Protocol: 'http' }),
      });
      assert.equal(res.status, 200, await res.text());
      return new StreamReader(
        h.client.Subscribe({ Topic: 'ServiceDefaults', Key: 'web', Namespace: 'default', Partition: 'default' }),
      );
    })();
    const [c] = await cfg.take(1);
    assert.equal(c!.ConfigEntry?.ConfigEntry?.ServiceDefaults?.Protocol, 'http');
    assert.equal(c!.ConfigEntry?.ConfigEntry?.Kind, 'KindServiceDefaults');
    s.call.cancel();
    cfg.call.cancel();
  }));

test('restore ends every stream with ABORTED and the reset message; shutdown ends them with UNAVAILABLE', () =>
  withHub(async (h) => {
    await h.instance('web', 'w1');
    const a = new StreamReader(h.client.Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' } }));
    const b = new StreamReader(h.client.Subscribe({ Topic: 'ServiceList', WildcardSubject: true }));
    await a.take(2);
    await b.take(2);
    const result = await h.hub.catalog.submit({ type: 'restore', state: h.hub.catalog.snapshot().state });
    assert.equal(result.ok, true);
    for (const s of [a, b]) {
      const st = await s.status;
      assert.equal(st.code, status.ABORTED);
      assert.equal(st.details, RESET_MESSAGE);
    }
    // The client resets and subscribes again from 0; then a clean shutdown says UNAVAILABLE.
    const c = new StreamReader(h.client.Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' } }));
    assert.deepEqual(
      (await c.take(2)).map((e) => e.Payload),
      ['ServiceHealth', 'EndOfSnapshot'],
    );
    h.publisher.close();
    const st = await c.status;
    assert.equal(st.code, status.UNAVAILABLE);
    assert.match(st.details, /shutting down/);
  }));

test('bad requests get INVALID_ARGUMENT with a clear message and change nothing', () =>
  withHub(async (h) => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ Topic: 99, NamedSubject: { Key: 'web' } }, /unknown topic 99/],
      [{ Topic: 'APIGateway', NamedSubject: { Key: 'gw' } }, /unknown topic 9/],
      [{ Topic: 'ServiceHealth', NamedSubject: { Key: '' } }, /either WildcardSubject or NamedSubject.Key is required/],
      [{ Topic: 'ServiceHealth' }, /either WildcardSubject or NamedSubject.Key is required/],
      [
        { Topic: 'ServiceHealth', WildcardSubject: true },
        /topic ServiceHealth does not support wildcard subscriptions/,
      ],
      [
        { Topic: 'ServiceList', NamedSubject: { Key: 'web' } },
        /topic ServiceList can only be consumed using WildcardSubject/,
      ],
      [{ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' }, Datacenter: 'dc9' }, /Datacenter: forwarding/],
    ];
    for (const [req, message] of cases) {
      const st = await new StreamReader(h.client.Subscribe(req)).status;
      assert.equal(st.code, status.INVALID_ARGUMENT, JSON.stringify(req));
      assert.match(st.details, message);
    }
    assert.equal(h.publisher.stats().buffers, 0);
    assert.equal(h.publisher.stats().subscribers, 0);
  }));

test('request bytes that are not a SubscribeRequest get INVALID_ARGUMENT, not INTERNAL', () =>
  withHub(async (h) => {
    // A client that sends raw bytes on the Subscribe method.
    const Raw = makeGenericClientConstructor(
      {
        Subscribe: {
          path: SUBSCRIBE_METHOD_PATH,
          requestStream: false,
          responseStream: true,
          requestSerialize: (b: Buffer) => b,
          requestDeserialize: (b: Buffer) => b,
          responseSerialize: (b: Buffer) => b,
          responseDeserialize: (b: Buffer) => b,
        },
      },
      'Raw',
    );
    const raw = new Raw(`127.0.0.1:${h.hub.grpcPort}`, credentials.createInsecure()) as unknown as {
      Subscribe(b: Buffer): ClientReadableStream<Buffer>;
      close(): void;
    };
    try {
      const garbage = [
        Buffer.from([0xff, 0xff, 0xff]), // wire type 7: no such thing
        Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x41]), // a string field claiming ~4 GB
        Buffer.from([0x08]), // truncated: a field tag with no value
      ];
      for (const bytes of garbage) {
        const st = await new StreamReader(raw.Subscribe(bytes)).status;
        assert.equal(st.code, status.INVALID_ARGUMENT, `${bytes.toString('hex')}: ${st.code} ${st.details}`);
        assert.match(st.details, /^request: not a SubscribeRequest message: /);
      }
    } finally {
      raw.close();
    }
    assert.equal(h.publisher.stats().subscribers, 0);
  }));

test('a subscriber that stops reading is ended with RESOURCE_EXHAUSTED, and on return gets NewSnapshotToFollow', () =>
  withHub(
    async (h) => {
      await h.instance('web', 'w0');
      const slow = new StreamReader(h.client.Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' } }));
      const [first] = await slow.take(1);
      slow.call.pause(); // stop reading: HTTP/2 flow control pushes back on the server
      // About 2 KB of padding per event, each Meta value within Consul's 512-byte limit.
      const pad = 'x'.repeat(500);
      const big = { pad1: pad, pad2: pad, pad3: pad, pad4: pad };
      for (let i = 0; i < 400; i++) {
        await h.hub.catalog.submit({
          type: 'register',
          node: { ID: '', Node: 'n1', Address: '10.0.0.1', Datacenter: 'dc1', TaggedAddresses: {}, Meta: {} },
          service: {
            Kind: '',
            ID: `w${i % 50}`,
            Service: 'web',
            Tags: [],
            Address: '',
            TaggedAddresses: {},
            Meta: { ...big, i: String(i) },
            Port: 1,
            Weights: { Passing: 1, Warning: 1 },
            EnableTagOverride: false,
          },
          checks: [],
          skipNodeUpdate: false,
        });
        if (h.publisher.stats().slowConsumers > 0) break;
      }
      assert.equal(h.publisher.stats().slowConsumers, 1);
      slow.call.resume();
      const st = await slow.status;
      assert.equal(st.code, status.RESOURCE_EXHAUSTED);
      assert.equal(st.details, 'subscriber too slow');
      const back = new StreamReader(
        h.client.Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' }, Index: first!.Index }),
      );
      assert.equal((await back.next()).Payload, 'NewSnapshotToFollow');
      back.call.cancel();
    },
    { maxLag: 32 },
  ));

test('other topics: ServiceHealthConnect by destination, ServiceList and config entries by wildcard', () =>
  withHub(async (h) => {
    await h.instance('web', 'w1');
    await h.register({
      Node: 'n1',
      Address: '10.0.0.1',
      Service: {
        ID: 'w1-proxy',
        Service: 'web-sidecar-proxy',
        Kind: 'connect-proxy',
        Port: 21000,
        Proxy: { DestinationServiceName: 'web' },
      },
    });
    const connect = new StreamReader(
      h.client.Subscribe({ Topic: 'ServiceHealthConnect', NamedSubject: { Key: 'web' } }),
    );
    const [proxy, eos] = await connect.take(2);
    assert.equal(proxy!.ServiceHealth?.CheckServiceNode?.Service?.ID, 'w1-proxy');
    assert.equal(proxy!.ServiceHealth?.CheckServiceNode?.Service?.Proxy?.DestinationServiceName, 'web');
    assert.equal(eos!.Payload, 'EndOfSnapshot');

    const list = new StreamReader(h.client.Subscribe({ Topic: 'ServiceList', WildcardSubject: true }));
    const [names] = await list.take(2);
    const listed = (names!.EventBatch?.Events ?? []).map((e) => e.Service?.Name);
    assert.ok(
      ['churn', 'web', 'web-sidecar-proxy'].every((n) => listed.includes(n)),
      listed.join(','),
    );

    const put = async (body: Record<string, unknown>) => {
      const res = await fetch(`${h.hub.httpUrl}/v1/config`, { method: 'PUT', body: JSON.stringify(body) });
      assert.equal(res.status, 200, await res.text());
      return BigInt(res.headers.get('x-consul-index') ?? '0');
    };
    await put({ Kind: 'service-resolver', Name: 'web', ConnectTimeout: '3s' });
    const resolvers = new StreamReader(h.client.Subscribe({ Topic: 'ServiceResolver', WildcardSubject: true }));
    const [r1, reos] = await resolvers.take(2);
    assert.deepEqual(r1!.ConfigEntry?.ConfigEntry?.ServiceResolver?.ConnectTimeout, { seconds: '3', nanos: 0 });
    assert.equal(reos!.Payload, 'EndOfSnapshot');
    const i = await put({
      Kind: 'service-resolver',
      Name: 'api',
      DefaultSubset: 'v2',
      Subsets: { v2: { Filter: 'Service.Meta.version == 2' } },
    });
    const live = await resolvers.next();
    assert.equal(live.Index, String(i));
    assert.equal(live.ConfigEntry?.ConfigEntry?.Name, 'api');
    assert.equal(live.ConfigEntry?.ConfigEntry?.ServiceResolver?.DefaultSubset, 'v2');
    const j = await h.instance('api', 'a1');
    assert.equal(describe(await list.next()), `${j}:register-api`);
    for (const s of [connect, list, resolvers]) s.call.cancel();
  }));
