// Ordering and warming on ADS (X-ORDER-*, X-WARM-*), with the scripted
// Envoy-like Delta client and the SotW client.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import { sotwNames } from './helpers/client';
import { cla, cluster, listener, route, type TestProvider } from './helpers/fixtures';
import { type Hub, seededHub } from './helpers/harness';
import { DeltaScript, deltaVersions, SotwScript } from './helpers/scripts';

const T = { timeout: 20_000 };
const CDS = TypeUrl.Cluster;
const EDS = TypeUrl.ClusterLoadAssignment;
const LDS = TypeUrl.Listener;
const RDS = TypeUrl.RouteConfiguration;

/** An Envoy-like Delta client holding the seeded config, everything ACKed. */
async function envoy(t: TestContext): Promise<{ p: TestProvider; hub: Hub; d: DeltaScript }> {
  const { p, hub } = await seededHub(t);
  const d = new DeltaScript(hub.delta(), 'envoy-1');
  d.send(CDS, ['*']);
  d.send(LDS, ['*']);
  const c = await d.expect(CDS);
  d.send(EDS, Object.keys(deltaVersions(c)));
  d.ack(c);
  d.ack(await d.expect(EDS));
  const l = await d.expect(LDS);
  d.send(RDS, ['r1']);
  d.ack(l);
  d.ack(await d.expect(RDS));
  await d.quiet(); // every ACK above has been processed
  return { p, hub, d };
}

const acked = (hub: Hub, short: string) => hub.xds.clients()[0]!.types.find((x) => x.type === short)!.acked;

test('X-ORDER-1: make before break — CDS, then EDS, then RDS, and only then removals', async (t) => {
  const { p, hub, d } = await envoy(t);
  // One coalesced change: new cluster c3 with endpoints, the route moves to it, c1 goes away.
  p.set(cluster('c3'), cla('c3'), route('r1', 'c3'));
  p.remove(CDS, 'c1');
  p.remove(EDS, 'c1');
  hub.xds.flushChanges();
  const c = await d.expect(CDS);
  assert.deepEqual(Object.keys(deltaVersions(c)), ['c3']);
  assert.deepEqual(c.removedResources, [], 'c1 stays until the route has moved');
  d.send(EDS, ['c3']); // the new cluster warms
  d.ack(c);
  const e = await d.expect(EDS);
  assert.deepEqual(Object.keys(deltaVersions(e)), ['c3']);
  assert.deepEqual(e.removedResources, []);
  d.ack(e);
  const r = await d.expect(RDS);
  assert.deepEqual(Object.keys(deltaVersions(r)), ['r1']);
  d.ack(r);
  const cRemoved = await d.expect(CDS);
  assert.deepEqual(cRemoved.removedResources, ['c1']);
  const eRemoved = await d.expect(EDS);
  assert.deepEqual(eRemoved.removedResources, ['c1']);
});

test('X-ORDER-2: LDS/RDS wait while CDS/EDS are un-ACKed; acked versions move only on ACK', async (t) => {
  const { p, hub, d } = await envoy(t);
  const before = { ...acked(hub, 'CDS') };
  p.set(cluster('c2', 80), listener('l1', 'r2'), route('r2', 'c2'));
  hub.xds.flushChanges();
  const c = await d.expect(CDS);
  d.ack(await d.expect(EDS)); // X-WARM-1: c2's endpoints follow the changed cluster
  await d.quiet(); // an EDS barrier: had LDS been sent, it would have come first
  assert.deepEqual(acked(hub, 'CDS'), before, 'un-ACKed: nothing committed');
  d.ack(c);
  const l = await d.expect(LDS);
  assert.deepEqual(Object.keys(deltaVersions(l)), ['l1']);
  assert.equal(acked(hub, 'CDS')['c2'], deltaVersions(c)['c2']);
});

test('X-WARM-1: a changed Cluster is followed by its ClusterLoadAssignment, even if unchanged (Delta)', async (t) => {
  const { p, d } = await envoy(t);
  p.set(cluster('c1', 90));
  const c = await d.expect(CDS);
  assert.deepEqual(Object.keys(deltaVersions(c)), ['c1']);
  const e = await d.expect(EDS);
  assert.deepEqual(Object.keys(deltaVersions(e)), ['c1']);
});

test('X-WARM-1: a changed Cluster is followed by its ClusterLoadAssignment, even if unchanged (SotW)', async (t) => {
  const { p, hub } = await seededHub(t);
  const s = new SotwScript(hub.sotw());
  s.request(CDS, []);
  const c = await s.expect(CDS);
  s.request(EDS, ['c1', 'c2']);
  s.ack(c);
  s.ack(await s.expect(EDS));
  p.set(cluster('c1', 91));
  s.ack(await s.expect(CDS));
  assert.deepEqual(sotwNames(await s.expect(EDS)), ['c1', 'c2']);
});

test('X-WARM-2: a route is not sent while a cluster it points at has not been accepted', async (t) => {
  const { p, hub, d } = await envoy(t);
  const routeBefore = acked(hub, 'RDS')['r1'];
  p.set(cluster('c3'), route('r1', 'c3'));
  hub.xds.flushChanges();
  const c = await d.expect(CDS);
  d.nack(c, 'c3 rejected'); // CDS is no longer in flight, but the client does not hold c3
  await d.quiet(); // had the route been sent, it would have come before the barrier
  assert.equal(acked(hub, 'RDS')['r1'], routeBefore);
  p.set(cluster('c3', 3));
  const fixed = await d.expect(CDS);
  d.ack(fixed);
  const r = await d.expect(RDS);
  assert.deepEqual(Object.keys(deltaVersions(r)), ['r1']);
});

test('X-ORDER-1 (SotW): a cluster that the old route needed is removed only after the route moved', async (t) => {
  const { p, hub } = await seededHub(t);
  const s = new SotwScript(hub.sotw());
  s.request(CDS, []);
  s.request(LDS, []);
  const c = await s.expect(CDS);
  s.ack(c);
  const l = await s.expect(LDS);
  s.request(RDS, ['r1']);
  s.ack(l);
  s.ack(await s.expect(RDS));
  p.set(route('r1', 'c2'));
  p.remove(CDS, 'c1');
  hub.xds.flushChanges();
  const r = await s.expect(RDS);
  s.ack(r);
  const c2 = await s.expect(CDS);
  assert.deepEqual(sotwNames(c2), ['c2']);
});

test(
  'X-ACK-7 with X-WARM-2: a reconnecting SotW Envoy that holds the current clusters gets its routes',
  T,
  async (t) => {
    const { hub } = await seededHub(t);
    const first = new SotwScript(hub.sotw(), 'envoy-1');
    first.request(CDS, []);
    const c = await first.expect(CDS);
    first.ack(c);
    first.client.close();
    const again = new SotwScript(hub.sotw(), 'envoy-1');
    again.request(CDS, [], { versionInfo: c.versionInfo }); // holds the current clusters: not resent
    again.request(RDS, ['r1']);
    const r = await again.expect(RDS);
    assert.deepEqual(sotwNames(r), ['r1']);
  },
);
