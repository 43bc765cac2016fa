// The other ways in: legacy v2, REST-JSON, unary Fetch, admin; plus the
// admission of new streams and shutdown.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import Fastify from 'fastify';
import { installErrorHandler } from '../../../src/http/errors';
import { lookupType } from '../../../src/xds/transport/envoy-proto';
import { registerXdsHttp } from '../../../src/xds/transport/http';
import { TypeUrl, TypeUrlV2 } from '../../../src/xds/transport/type-urls';
import { encodeRequest } from '../../../src/xds/transport/wire';
import { decodeAny, node, type Plain, sotwNames } from './helpers/client';
import { cluster } from './helpers/fixtures';
import { ADS, DELTA_ADS, type Hub, seededHub } from './helpers/harness';
import { DeltaScript, deltaVersions, SotwScript } from './helpers/scripts';

const T = { timeout: 20_000 };

const setup = seededHub;

test('v2 ADS (envoy.api.v2): v2 type URLs in, the same resource bytes out under v2 type URLs', T, async (t) => {
  const { p, hub } = await setup(t);
  const s = new SotwScript(
    hub.client({ path: '/envoy.api.v2.AggregatedDiscoveryService/StreamAggregatedResources', kind: 'sotw', api: 'v2' }),
  );
  s.request(TypeUrlV2.Cluster, []);
  const r = await s.expect(TypeUrlV2.Cluster);
  assert.ok(r.resources.every((a: Plain) => a.type_url === TypeUrlV2.Cluster));
  const v3 = p.get(TypeUrl.Cluster, { id: 'x', cluster: '', clientFeatures: [], userAgent: '' });
  assert.deepEqual(
    r.resources.map((a: Plain) => Buffer.from(a.value)),
    [...v3.byName.values()].map((x) => Buffer.from(x.encoded)),
  );
  s.ack(r);
  p.set(cluster('c1', 77));
  assert.deepEqual(sotwNames(await s.expect(TypeUrlV2.Cluster)), ['c1', 'c2']);
});

test('v2 Delta ADS and v2 per-type LDS are served by the same engine', T, async (t) => {
  const { hub } = await setup(t);
  const d = new DeltaScript(
    hub.client({
      path: '/envoy.service.discovery.v2.AggregatedDiscoveryService/DeltaAggregatedResources',
      kind: 'delta',
      api: 'v2',
    }),
  );
  d.send(TypeUrlV2.ClusterLoadAssignment, ['c1']);
  const r = await d.expect(TypeUrlV2.ClusterLoadAssignment);
  assert.deepEqual(Object.keys(deltaVersions(r)), ['c1']);
  assert.equal(r.resources[0].resource.type_url, TypeUrlV2.ClusterLoadAssignment);
  const l = new SotwScript(
    hub.client({ path: '/envoy.api.v2.ListenerDiscoveryService/StreamListeners', kind: 'sotw', api: 'v2' }),
  );
  l.request('', []);
  const lr = await l.expect(TypeUrlV2.Listener);
  assert.deepEqual(sotwNames(lr), ['l1']);
});

test('unary FetchClusters answers one SotW response', T, async (t) => {
  const { hub } = await setup(t);
  const Req = lookupType('envoy.service.discovery.v3.DiscoveryRequest');
  const Res = lookupType('envoy.service.discovery.v3.DiscoveryResponse');
  const client = new grpc.Client(`127.0.0.1:${hub.port}`, grpc.credentials.createInsecure());
  t.after(() => client.close());
  const res = await new Promise<Plain>((resolve, reject) =>
    client.makeUnaryRequest(
      '/envoy.service.cluster.v3.ClusterDiscoveryService/FetchClusters',
      (m: Plain) => Buffer.from(Req.encode(Req.fromObject(m)).finish()),
      (b: Buffer) => Res.toObject(Res.decode(b)),
      { node: node('fetcher'), resourceNames: ['c2'] },
      (err, value) => (err ? reject(err) : resolve(value!)),
    ),
  );
  assert.deepEqual(
    res.resources.map(decodeAny).map((c: Plain) => c.name),
    ['c2'],
  );
});

test(
  "REST: POST /v3/discovery:clusters answers proto3 JSON with @type, 304 when unchanged, 400 naming the field in the API's one error body",
  T,
  async (t) => {
    const { hub } = await setup(t);
    const app = Fastify();
    installErrorHandler(app); // the hub's app has it: xDS routes throw HubErrors to it
    registerXdsHttp(app, { xds: hub.xds, routes: { discovery: {}, admin: {} } });
    t.after(() => app.close());
    const ok = await app.inject({
      method: 'POST',
      url: '/v3/discovery:clusters',
      payload: { node: { id: 'rest-1' }, resource_names: [] },
    });
    assert.equal(ok.statusCode, 200);
    const body = ok.json();
    assert.equal(body.typeUrl, TypeUrl.Cluster);
    assert.deepEqual(
      body.resources.map((r: Plain) => [r['@type'], r.name, r.type]),
      [
        [TypeUrl.Cluster, 'c1', 'EDS'],
        [TypeUrl.Cluster, 'c2', 'EDS'],
      ],
    );
    const same = await app.inject({
      method: 'POST',
      url: '/v3/discovery:clusters',
      payload: { node: { id: 'rest-1' }, versionInfo: body.versionInfo },
    });
    assert.equal(same.statusCode, 304);
    const bad = await app.inject({
      method: 'POST',
      url: '/v3/discovery:clusters',
      payload: { node: { id: 'rest-1' }, resourceNamez: [] },
    });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /^resourceNamez: /);
    assert.match(
      bad.headers['content-type'] as string,
      /^text\/plain/,
      'plain text, like every other error of the API',
    );
    const noNode = await app.inject({
      method: 'POST',
      url: '/v3/discovery:endpoints',
      payload: { resourceNames: ['c1'] },
    });
    assert.equal(noNode.statusCode, 400);
    assert.match(noNode.body, /^node\.id: /);
    const wrongType = await app.inject({
      method: 'POST',
      url: '/v3/discovery:routes',
      payload: { node: { id: 'n' }, typeUrl: TypeUrl.Cluster },
    });
    assert.equal(wrongType.statusCode, 400);
    assert.match(wrongType.body, /^type_url: /);
  },
);

test(
  'admin: /v1/xds/clients shows streams, subscriptions, acked versions, pending nonces and the last NACK; /v1/xds/config/:node',
  T,
  async (t) => {
    const { p, hub } = await setup(t);
    const app = Fastify();
    installErrorHandler(app); // the hub's app has it: xDS routes throw HubErrors to it
    registerXdsHttp(app, { xds: hub.xds, routes: { discovery: {}, admin: {} } });
    t.after(() => app.close());
    const s = new SotwScript(hub.sotw(), 'envoy-admin', ['envoy.lb.does_not_support_overprovisioning']);
    s.request(TypeUrl.Cluster, []);
    const r = await s.expect(TypeUrl.Cluster);
    s.nack(r, 'bad cluster');
    s.request(TypeUrl.ClusterLoadAssignment, ['c1']);
    await s.expect(TypeUrl.ClusterLoadAssignment);
    p.set(cluster('c2', 12)); // a provider change: timed from arrival to write
    await s.expect(TypeUrl.Cluster);
    const clients = (await app.inject({ method: 'GET', url: '/v1/xds/clients' })).json();
    assert.equal(clients.length, 1);
    const c = clients[0];
    assert.deepEqual([c.node.id, c.transport, c.variant, c.api], ['envoy-admin', 'ads', 'sotw', 'v3']);
    assert.deepEqual(c.clientFeatures, ['envoy.lb.does_not_support_overprovisioning']);
    const cds = c.types.find((x: Plain) => x.type === 'CDS');
    assert.equal(cds.wildcard, true);
    assert.equal(cds.lastNack.message, 'bad cluster');
    assert.equal(cds.ackedVersion, '');
    assert.ok(cds.pendingNonce, 'the change after the NACK is in flight');
    const eds = c.types.find((x: Plain) => x.type === 'EDS');
    assert.deepEqual(eds.names, ['c1']);
    assert.ok(eds.pendingNonce);

    const config = (await app.inject({ method: 'GET', url: '/v1/xds/config/envoy-admin' })).json();
    assert.equal(config.connected, true);
    assert.deepEqual(Object.keys(config.resources.clusters), ['c1', 'c2']);
    assert.deepEqual(Object.keys(config.resources.endpoints), ['c1']);
    assert.equal(config.resources.clusters.c1.resource['@type'], TypeUrl.Cluster);
    const offline = (await app.inject({ method: 'GET', url: '/v1/xds/config/other?cluster=web' })).json();
    assert.equal(offline.connected, false);
    assert.deepEqual(Object.keys(offline.resources.routes), ['r1']);
    const missing = await app.inject({ method: 'GET', url: '/v1/xds/config/nobody' });
    assert.equal(missing.statusCode, 404);
    assert.match(missing.body, /^node: "nobody" has no xDS stream here/);

    const metrics = await hub.xds.metrics.registry.metrics();
    assert.match(metrics, /xdshub_xds_streams\{variant="sotw",transport="ads",api="v3"\} 1/);
    assert.match(metrics, /xdshub_xds_stream_types\{variant="sotw",type="EDS"\} 1/);
    assert.match(metrics, /xdshub_xds_pushes_total\{type="CDS",variant="sotw"\} 2/);
    assert.match(metrics, /xdshub_xds_nacks_total\{type="CDS"\} 1/);
    assert.match(metrics, /xdshub_xds_push_latency_seconds_count\{type="CDS",variant="sotw"\} 1/);
  },
);

test(
  'a burst of new streams is admitted; past --xds-max-streams a new one ends at once with RESOURCE_EXHAUSTED naming the limit',
  T,
  async (t) => {
    const { hub } = await setup(t, { xdsMaxStreams: 3 });
    // Three at once, with no pause between them: all admitted and served.
    const ok = ['a', 'b', 'c'].map((id) => new SotwScript(hub.sotw(), id));
    ok.forEach((s) => s.request(TypeUrl.Cluster, []));
    for (const s of ok) assert.deepEqual(sotwNames(await s.expect(TypeUrl.Cluster)), ['c1', 'c2']);
    const fourth = hub.sotw();
    fourth.send({ node: node('d'), typeUrl: TypeUrl.Cluster });
    const st = await fourth.status;
    assert.equal(st.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.match(st.details, /--xds-max-streams 3/);
    assert.match(await hub.xds.metrics.registry.metrics(), /xdshub_xds_streams_rejected_total 1/);
    // One leaves: the next one is admitted.
    ok[0]!.client.close();
    await ok[0]!.client.status;
    const fifth = new SotwScript(hub.sotw(), 'e');
    fifth.request(TypeUrl.Cluster, []);
    assert.deepEqual(sotwNames(await fifth.expect(TypeUrl.Cluster)), ['c1', 'c2']);
  },
);

test('close() ends every stream with UNAVAILABLE', T, async (t) => {
  const { hub } = await setup(t);
  const s = new SotwScript(hub.sotw());
  s.request(TypeUrl.Cluster, []);
  await s.expect(TypeUrl.Cluster);
  hub.xds.close();
  const st = await s.client.status;
  assert.equal(st.code, grpc.status.UNAVAILABLE);
  assert.equal(hub.xds.streams().length, 0);
});

test('an ADS request for a type the hub does not serve (RTDS) is ignored and the stream goes on', T, async (t) => {
  const { hub } = await setup(t);
  const s = new SotwScript(hub.sotw());
  s.request('type.googleapis.com/envoy.service.runtime.v3.Runtime', ['rtds']);
  s.request(TypeUrl.Cluster, []);
  assert.deepEqual(sotwNames(await s.expect(TypeUrl.Cluster)), ['c1', 'c2']);
  assert.equal(hub.xds.streams().length, 1);
});

/** Writes raw bytes as the first request of a stream and returns the status it ends with. */
async function endsWith(t: TestContext, hub: Hub, path: string, bytes: Buffer): Promise<grpc.StatusObject> {
  const client = new grpc.Client(`127.0.0.1:${hub.port}`, grpc.credentials.createInsecure());
  t.after(() => client.close());
  const call = client.makeBidiStreamRequest(
    path,
    (b: Buffer) => b,
    (b: Buffer) => b,
  );
  const status = new Promise<grpc.StatusObject>((resolve) => call.on('status', resolve));
  call.on('error', () => undefined); // the status carries it
  call.write(bytes);
  return status;
}

test(
  'a request cut short (its type URL half there) ends the stream with INVALID_ARGUMENT instead of being read as another type',
  T,
  async (t) => {
    const { hub } = await setup(t);
    for (const [path, message] of [
      [DELTA_ADS, 'DeltaDiscoveryRequest'],
      [ADS, 'DiscoveryRequest'],
    ] as const) {
      const fields =
        message === 'DeltaDiscoveryRequest' ? { resourceNamesSubscribe: ['c1'] } : { resourceNames: ['c1'] };
      const full = encodeRequest('v3', message, { node: node('cut'), typeUrl: TypeUrl.Cluster, ...fields });
      const typeUrlAt = full.indexOf(Buffer.from(TypeUrl.Cluster));
      const st = await endsWith(t, hub, path, full.subarray(0, typeUrlAt + 20)); // "type.googleapis.com/" and no more
      assert.equal(st.code, grpc.status.INVALID_ARGUMENT, message);
      assert.match(
        st.details,
        new RegExp(`^${message}: cannot decode: field \\d+ claims \\d+ bytes, \\d+ left: the message is cut short`),
      );
    }
  },
);

test(
  'undecodable bytes (a wire type protobuf does not have) end a SotW or Delta stream with INVALID_ARGUMENT; the next stream is served',
  T,
  async (t) => {
    const { hub } = await setup(t);
    for (const [path, message] of [
      [ADS, 'DiscoveryRequest'],
      [DELTA_ADS, 'DeltaDiscoveryRequest'],
    ] as const) {
      const st = await endsWith(t, hub, path, Buffer.from([0x0f, 0xff, 0xff])); // field 1, wire type 7
      assert.equal(st.code, grpc.status.INVALID_ARGUMENT, message);
      assert.match(st.details, new RegExp(`^${message}: cannot decode`));
    }
    const s = new SotwScript(hub.client({ path: ADS, kind: 'sotw' }));
    s.request(TypeUrl.Cluster, []);
    assert.deepEqual(sotwNames(await s.expect(TypeUrl.Cluster)), ['c1', 'c2']);
  },
);
