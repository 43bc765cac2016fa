// SotW rules (docs/xds-rules.md) with a scripted SotW client on ADS and on the
// per-type services, over real grpc-js.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { status } from '@grpc/grpc-js';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import { decodeAny, node, sotwNames } from './helpers/client';
import { cla, cluster, listener, route, type TestProvider } from './helpers/fixtures';
import { type Hub, seededHub, startHub } from './helpers/harness';
import { SotwScript } from './helpers/scripts';

/** A hung exchange fails the test instead of the run. */
const T = { timeout: 20_000 };
const CDS = TypeUrl.Cluster;
const EDS = TypeUrl.ClusterLoadAssignment;
const LDS = TypeUrl.Listener;
const RDS = TypeUrl.RouteConfiguration;

async function setup(t: TestContext, config = {}): Promise<{ p: TestProvider; hub: Hub; s: SotwScript }> {
  const { p, hub } = await seededHub(t, config);
  return { p, hub, s: new SotwScript(hub.sotw()) };
}

const typeInfo = (hub: Hub, short: string) => hub.xds.clients()[0]!.types.find((x) => x.type === short)!;

test('X-STREAM-1: node is read from the first request; later requests may omit it', T, async (t) => {
  const { hub, s } = await setup(t);
  s.request(CDS, []); // carries node
  s.ack(await s.expect(CDS));
  s.request(EDS, ['c1']); // no node
  assert.deepEqual(sotwNames(await s.expect(EDS)), ['c1']);
  assert.equal(hub.xds.clients()[0]!.node!.id, 'node-1');

  const bad = hub.sotw();
  bad.send({ typeUrl: CDS });
  const st = await bad.status;
  assert.equal(st.code, status.INVALID_ARGUMENT);
  assert.match(st.details, /node\.id/);
});

test('X-STREAM-2: nonces are scoped to one stream; a reconnect starts fresh', T, async (t) => {
  const { hub, s } = await setup(t);
  s.request(CDS, []);
  const r1 = await s.expect(CDS);
  const s2 = new SotwScript(hub.sotw(), 'node-2');
  // A reconnecting client quoting the old stream's nonce: not an ACK on the new stream.
  s2.request(CDS, [], { responseNonce: r1.nonce, versionInfo: '' });
  const r2 = await s2.expect(CDS);
  assert.notEqual(r2.nonce, '');
  const info = hub.xds.clients().find((c) => c.node?.id === 'node-2')!.types[0]!;
  assert.equal(info.ackedVersion, '', 'nothing is ACKed by a nonce from another stream');
  assert.equal(info.pendingNonce, r2.nonce);
});

test('X-STREAM-3: the latest request of a type supersedes earlier ones', T, async (t) => {
  const { s } = await setup(t);
  s.request(EDS, ['c1']);
  s.request(EDS, ['c1', 'c2']); // before reading the first answer
  const r1 = await s.expect(EDS);
  s.ack(r1);
  const r2 = await s.expect(EDS);
  assert.deepEqual(sotwNames(r2), ['c1', 'c2']);
  s.ack(r2);
  await s.quiet(RDS);
});

test(
  'X-ACK-1: the version changes when any resource of the type changes, and equal sets get equal versions',
  T,
  async (t) => {
    const { p, hub, s } = await setup(t);
    s.request(CDS, []);
    const r1 = await s.expect(CDS);
    s.ack(r1);
    p.set(cluster('c2', 9));
    const r2 = await s.expect(CDS);
    assert.notEqual(r2.versionInfo, r1.versionInfo);
    s.ack(r2);
    // Another hub with the same content computes the same version (stable across hubs and restarts).
    const other = await startHub(p);
    t.after(() => other.stop());
    const o = new SotwScript(other.sotw());
    o.request(CDS, []);
    assert.equal((await o.expect(CDS)).versionInfo, r2.versionInfo);
    void hub;
  },
);

test('X-ACK-2: every response carries a fresh nonce', T, async (t) => {
  const { p, s } = await setup(t);
  const nonces = new Set<string>();
  s.request(CDS, []);
  for (let i = 0; i < 4; i++) {
    const r = await s.expect(CDS);
    assert.ok(r.nonce, 'the response has a nonce');
    assert.ok(!nonces.has(r.nonce), `nonce ${r.nonce} was used before`);
    nonces.add(r.nonce);
    s.ack(r);
    p.set(cluster('c1', 10 + i));
  }
});

test('X-ACK-3: an ACK commits the version just accepted, and only the ACK does', T, async (t) => {
  const { hub, s } = await setup(t);
  s.request(CDS, []);
  const r = await s.expect(CDS);
  await s.quiet(EDS); // not RDS: RDS waits while CDS is un-ACKed (X-ORDER-2)
  assert.equal(typeInfo(hub, 'CDS').ackedVersion, '', 'sent is not acked');
  s.ack(r);
  await s.quiet(EDS);
  assert.equal(typeInfo(hub, 'CDS').ackedVersion, r.versionInfo);
  assert.deepEqual(Object.keys(typeInfo(hub, 'CDS').acked), ['c1', 'c2']);
});

test('X-ACK-4: a NACK is detected by error_detail alone, even with the new version in version_info', T, async (t) => {
  const { p, hub, s } = await setup(t);
  s.request(CDS, []);
  const good = await s.expect(CDS);
  s.ack(good);
  p.set(cluster('c3'));
  const bad = await s.expect(CDS);
  s.nack(bad, 'cluster c3: rejected', bad.versionInfo); // partial accept: the new version, plus error_detail
  await s.quiet(RDS);
  const info = typeInfo(hub, 'CDS');
  assert.equal(info.ackedVersion, good.versionInfo, 'the last good state is kept');
  assert.equal(info.lastNack?.message, 'cluster c3: rejected');
  assert.equal(info.pendingNonce, null);
  const metrics = await hub.xds.metrics.registry.getSingleMetricAsString('xdshub_xds_nacks_total');
  assert.match(metrics, /xdshub_xds_nacks_total\{type="CDS"\} 1/);
});

test('X-ACK-5: after a NACK the same content is not resent; a change is', T, async (t) => {
  const { p, s, hub } = await setup(t);
  s.request(CDS, []);
  s.ack(await s.expect(CDS));
  p.set(cluster('c3'));
  const bad = await s.expect(CDS);
  s.nack(bad, 'no');
  p.set(cluster('c3')); // same content announced again
  hub.xds.flushChanges();
  await s.quiet(RDS);
  p.set(cluster('c3', 7));
  const fixed = await s.expect(CDS);
  assert.notEqual(fixed.versionInfo, bad.versionInfo);
  assert.deepEqual(sotwNames(fixed), ['c1', 'c2', 'c3']);
});

test('X-ACK-6: a stale nonce is not answered, but a subscription change in it is', T, async (t) => {
  const { p, s } = await setup(t);
  s.request(EDS, ['c1']);
  const r1 = await s.expect(EDS);
  s.ack(r1);
  p.set(cla('c1', [1, 2]));
  const r2 = await s.expect(EDS);
  // A request quoting the older nonce, same names: stale, not answered.
  s.client.send({ typeUrl: EDS, versionInfo: r1.versionInfo, responseNonce: r1.nonce, resourceNames: ['c1'] });
  s.ack(r2);
  await s.quiet(RDS);
  // Stale nonce, new names: answered.
  s.names.set(EDS, ['c1', 'c2']);
  s.client.send({ typeUrl: EDS, versionInfo: r1.versionInfo, responseNonce: r1.nonce, resourceNames: ['c1', 'c2'] });
  assert.deepEqual(sotwNames(await s.expect(EDS)), ['c1', 'c2']);
});

test('X-ACK-7: a reconnecting wildcard client that holds the current version is not sent it again', T, async (t) => {
  const { hub, s } = await setup(t);
  s.request(CDS, []);
  const r = await s.expect(CDS);
  s.ack(r);
  const again = new SotwScript(hub.sotw(), 'node-1');
  again.request(CDS, [], { versionInfo: r.versionInfo });
  await again.quiet(RDS);
  const stale = new SotwScript(hub.sotw(), 'node-1');
  stale.request(CDS, [], { versionInfo: 'something-older' });
  assert.deepEqual(sotwNames(await stale.expect(CDS)), ['c1', 'c2']);
  // By-name types are always answered (the subscription may differ).
  const named = new SotwScript(hub.sotw(), 'node-1');
  named.request(EDS, ['c1'], { versionInfo: 'whatever' });
  await named.expect(EDS);
});

test('X-ACK-8: no response unless something subscribed changed', T, async (t) => {
  const { p, hub, s } = await setup(t);
  s.request(EDS, ['c1']);
  s.ack(await s.expect(EDS));
  p.set(cla('c2', [9])); // not subscribed
  hub.xds.flushChanges();
  p.set(cla('c1')); // same content
  hub.xds.flushChanges();
  await s.quiet(RDS);
  assert.equal(hub.xds.streams()[0]!.stats.responses, 2, 'the EDS answer and the barrier only');
});

test('X-SUB-1: SotW requests list every name wanted', T, async (t) => {
  const { s } = await setup(t);
  s.request(EDS, ['c1', 'c2']);
  const r = await s.expect(EDS);
  assert.deepEqual(sotwNames(r), ['c1', 'c2']);
  s.ack(r);
  s.request(EDS, ['c2']);
  assert.deepEqual(sotwNames(await s.expect(EDS)), ['c2']);
});

test('X-SUB-2: newly requested names are sent even if unchanged and sent before', T, async (t) => {
  const { s } = await setup(t);
  s.request(EDS, ['c1']);
  s.ack(await s.expect(EDS));
  s.request(EDS, []);
  s.ack(await s.expect(EDS));
  s.request(EDS, ['c1']);
  assert.deepEqual(sotwNames(await s.expect(EDS)), ['c1']);
});

test('X-SUB-3: wildcard — empty is *, [*, A] is * and A, [A] is A, empty again is nothing', T, async (t) => {
  const { p, s } = await setup(t);
  p.notWildcard.add('api'); // before set: sets are cached per change
  p.set(listener('api', 'r1'));
  s.request(LDS, []);
  let r = await s.expect(LDS);
  assert.deepEqual(sotwNames(r), ['l1']);
  s.ack(r);
  s.request(LDS, ['*', 'api']);
  r = await s.expect(LDS);
  assert.deepEqual(sotwNames(r), ['api', 'l1']);
  s.ack(r);
  s.request(LDS, ['api']);
  r = await s.expect(LDS);
  assert.deepEqual(sotwNames(r), ['api']);
  s.ack(r);
  s.request(LDS, []);
  r = await s.expect(LDS);
  assert.deepEqual(sotwNames(r), [], 'empty after a name: unsubscribe from everything');
});

test('X-SUB-4: a by-name subscriber never gets other resources', T, async (t) => {
  const { p, s } = await setup(t);
  s.request(CDS, ['c1']);
  const r = await s.expect(CDS);
  assert.deepEqual(sotwNames(r), ['c1']);
  s.ack(r);
  p.set(cluster('c2', 30), cluster('c9'));
  p.set(cluster('c1', 31));
  const r2 = await s.expect(CDS);
  assert.deepEqual(sotwNames(r2), ['c1']);
});

test('X-SUB-5: a requested name that does not exist is pushed when it appears', T, async (t) => {
  const { p, s } = await setup(t);
  s.request(EDS, ['later']);
  const r = await s.expect(EDS);
  assert.deepEqual(sotwNames(r), []);
  s.ack(r);
  p.set(cla('later'));
  assert.deepEqual(sotwNames(await s.expect(EDS)), ['later']);
});

test(
  'X-SUB-6: Envoy (wildcard LDS/CDS, named RDS/EDS) and proxyless gRPC (named, from the listener) both converge',
  T,
  async (t) => {
    const { hub, s } = await setup(t);
    // proxyless: LDS [l1] → RDS [r1] → CDS [c1] → EDS [c1], each ACKed.
    s.request(LDS, ['l1']);
    s.ack(await s.expect(LDS));
    s.request(RDS, ['r1']);
    s.ack(await s.expect(RDS));
    s.request(CDS, ['c1']);
    s.ack(await s.expect(CDS));
    s.request(EDS, ['c1']);
    const e = await s.expect(EDS);
    assert.deepEqual(sotwNames(e), ['c1']);
    // Envoy: wildcard LDS and CDS, then named.
    const envoy = new SotwScript(hub.sotw(), 'envoy-1');
    envoy.request(CDS, []);
    envoy.request(LDS, []);
    const c = await envoy.expect(CDS);
    assert.deepEqual(sotwNames(c), ['c1', 'c2']);
    envoy.request(EDS, ['c1', 'c2']); // clusters warm: EDS is requested before CDS is ACKed
    envoy.ack(c);
    const ee = await envoy.expect(EDS);
    envoy.ack(ee);
    const l = await envoy.expect(LDS);
    assert.deepEqual(sotwNames(l), ['l1']);
  },
);

test('X-RESP-2: SotW CDS/LDS responses carry the whole subscribed set; a removal is an absence', T, async (t) => {
  const { p, s } = await setup(t);
  s.request(CDS, []);
  s.ack(await s.expect(CDS));
  p.set(cluster('c2', 11));
  const r = await s.expect(CDS);
  assert.deepEqual(sotwNames(r), ['c1', 'c2'], 'unchanged c1 is still there');
  s.ack(r);
  p.remove(CDS, 'c1', 'c2');
  const empty = await s.expect(CDS);
  assert.deepEqual(sotwNames(empty), []);
});

test('X-RESP-3: SotW EDS/RDS responses carry subscribed names only', T, async (t) => {
  const { p, s } = await setup(t);
  p.set(route('r2', 'c2'));
  s.request(RDS, ['r2']);
  const r = await s.expect(RDS);
  assert.deepEqual(sotwNames(r), ['r2']);
});

test('X-RESP-4: a name is never sent twice in one response', T, async (t) => {
  const { s } = await setup(t);
  s.request(CDS, ['c1', 'c1', '*', 'c2']);
  const r = await s.expect(CDS);
  assert.deepEqual(sotwNames(r), ['c1', 'c2']);
});

test('X-RESP-5: one changed endpoint resends the whole ClusterLoadAssignment', T, async (t) => {
  const { p, s } = await setup(t);
  p.set(cla('c1', [1, 2, 3]));
  s.request(EDS, ['c1']);
  s.ack(await s.expect(EDS));
  p.set(cla('c1', [1, 2, 4]));
  const r = await s.expect(EDS);
  const lb = decodeAny(r.resources[0]).endpoints[0].lbEndpoints;
  assert.deepEqual(
    lb.map((e: any) => e.endpoint.address.socketAddress.portValue),
    [1, 2, 4],
  );
});

test('per-type SotW streams (StreamClusters) serve their one type and refuse others', T, async (t) => {
  const { hub } = await setup(t);
  const s = new SotwScript(hub.sotw('/envoy.service.cluster.v3.ClusterDiscoveryService/StreamClusters'));
  s.request('', []); // type_url may be implicit on a per-type stream
  assert.deepEqual(sotwNames(await s.expect(CDS)), ['c1', 'c2']);
  const wrong = hub.sotw('/envoy.service.cluster.v3.ClusterDiscoveryService/StreamClusters');
  wrong.send({ node: node('x'), typeUrl: LDS });
  const st = await wrong.status;
  assert.equal(st.code, status.INVALID_ARGUMENT);
  assert.match(st.details, /type_url/);
});
