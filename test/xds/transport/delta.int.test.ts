// Delta (incremental) rules with a scripted Envoy-like Delta client on Delta
// ADS and the per-type Delta services, including a reconnect to a restarted
// hub with initial_resource_versions.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import { cla, cluster, listener, seed, TestProvider } from './helpers/fixtures';
import { type Hub, seededHub, startHub } from './helpers/harness';
import { DeltaScript, deltaVersions } from './helpers/scripts';

const CDS = TypeUrl.Cluster;
const EDS = TypeUrl.ClusterLoadAssignment;
const LDS = TypeUrl.Listener;
const RDS = TypeUrl.RouteConfiguration;

async function setup(t: TestContext): Promise<{ p: TestProvider; hub: Hub; d: DeltaScript }> {
  const { p, hub } = await seededHub(t);
  return { p, hub, d: new DeltaScript(hub.delta()) };
}

const typeInfo = (hub: Hub, short: string) => hub.xds.clients()[0]!.types.find((x) => x.type === short)!;

test('X-DELTA-1: every response has a nonce; ACK and NACK pair by response_nonce, NACK by error_detail', async (t) => {
  const { p, hub, d } = await setup(t);
  d.send(CDS, ['*']);
  const r1 = await d.expect(CDS);
  assert.ok(r1.nonce);
  d.ack(r1);
  p.set(cluster('c1', 40));
  const r2 = await d.expect(CDS);
  assert.ok(r2.nonce, 'the response has a nonce');
  assert.notEqual(r2.nonce, r1.nonce, 'a new nonce per response');
  d.nack(r2, 'c1 rejected');
  await d.quiet();
  const info = typeInfo(hub, 'CDS');
  assert.equal(info.acked['c1'], deltaVersions(r1)['c1'], 'the NACKed version is not committed');
  assert.equal(info.lastNack?.message, 'c1 rejected');
});

test('X-DELTA-2: each resource has its own content-hash version, equal on every hub', async (t) => {
  const { p, d } = await setup(t);
  d.send(CDS, ['*']);
  const v1 = deltaVersions(await d.expect(CDS));
  assert.notEqual(v1['c1'], v1['c2']);
  const other = await startHub(p);
  t.after(() => other.stop());
  const o = new DeltaScript(other.delta());
  o.send(CDS, ['*']);
  assert.deepEqual(deltaVersions(await o.expect(CDS)), v1);
});

test('X-DELTA-3: deletions and subscribed names that do not exist go in removed_resources', async (t) => {
  const { p, d } = await setup(t);
  d.send(EDS, ['c1', 'ghost']);
  const r = await d.expect(EDS);
  assert.deepEqual(Object.keys(deltaVersions(r)), ['c1']);
  assert.deepEqual(r.removedResources, ['ghost']);
  d.ack(r);
  p.remove(EDS, 'c1');
  const gone = await d.expect(EDS);
  assert.deepEqual(gone.resources, []);
  assert.deepEqual(gone.removedResources, ['c1']);
});

test('X-DELTA-4: a subscription change is honoured even with a stale nonce', async (t) => {
  const { d } = await setup(t);
  d.send(EDS, ['c1']);
  const r1 = await d.expect(EDS);
  d.ack(r1);
  d.send(EDS, ['c2'], [], { responseNonce: 'not-a-nonce-we-sent' });
  const r2 = await d.expect(EDS);
  assert.deepEqual(Object.keys(deltaVersions(r2)), ['c2']);
});

test('X-DELTA-5: a subscribed name is sent even if the client should already hold that version', async (t) => {
  const { d } = await setup(t);
  d.send(EDS, ['c1']);
  const r1 = await d.expect(EDS);
  d.ack(r1);
  d.send(EDS, ['c1']); // the client may have dropped it
  const r2 = await d.expect(EDS);
  assert.deepEqual(deltaVersions(r2), deltaVersions(r1));
});

test('X-DELTA-6: a reconnect to a restarted hub with initial_resource_versions gets only the differences', async (t) => {
  const p = new TestProvider();
  seed(p);
  let hub = await startHub(p);
  const d = new DeltaScript(hub.delta());
  d.send(CDS, ['*']);
  const held = deltaVersions(await d.expect(CDS));
  d.send(EDS, ['c1', 'c2']);
  const heldEds = deltaVersions(await d.expect(EDS));
  const port = hub.port;
  await hub.stop();
  // While the hub is down: c2 changes, c1 stays, c3 appears; CLA c2 is deleted.
  p.set(cluster('c2', 60), cluster('c3'));
  p.remove(EDS, 'c2');
  hub = await startHub(p, {}, port); // a new server instance, same content source
  t.after(() => hub.stop());
  const again = new DeltaScript(hub.delta());
  again.send(CDS, ['*'], [], { initialResourceVersions: held });
  const r = await again.expect(CDS);
  assert.deepEqual(Object.keys(deltaVersions(r)).sort(), ['c2', 'c3'], 'c1 is held at its current version');
  assert.deepEqual(r.removedResources, []);
  again.ack(r);
  again.send(EDS, ['c1', 'c2'], [], { initialResourceVersions: heldEds });
  const e = await again.expect(EDS);
  assert.deepEqual(e.resources, [], 'CLA c1 unchanged');
  assert.deepEqual(e.removedResources, ['c2']);
});

test('X-DELTA-7: subscribe entries match resource names (the hub has no alias concept)', async (t) => {
  const { d } = await setup(t);
  d.send(EDS, ['c1', 'alias-of-c1']);
  const r = await d.expect(EDS);
  assert.deepEqual(Object.keys(deltaVersions(r)), ['c1']);
  assert.deepEqual(r.removedResources, ['alias-of-c1'], 'an unknown name is answered as absent, not left waiting');
});

test('X-DELTA-8: unsubscribe-only requests need no answer, except under a wildcard', async (t) => {
  const { p, d } = await setup(t);
  d.send(EDS, ['c1']);
  d.ack(await d.expect(EDS));
  d.send(EDS, [], ['never-subscribed']);
  d.send(EDS, [], ['c1']);
  await d.quiet(RDS);
  // Wildcard: unsubscribing a name says whether it stays (covered by *) or goes.
  p.notWildcard.add('api'); // before set: sets are cached per change
  p.set(listener('api', 'r1'));
  d.send(LDS, ['*', 'api']);
  const l = await d.expect(LDS);
  assert.deepEqual(Object.keys(deltaVersions(l)).sort(), ['api', 'l1']);
  d.ack(l);
  d.send(LDS, [], ['l1']);
  const stays = await d.expect(LDS);
  assert.deepEqual(Object.keys(deltaVersions(stays)), ['l1']);
  d.ack(stays);
  d.send(LDS, [], ['api']);
  const goes = await d.expect(LDS);
  assert.deepEqual(goes.removedResources, ['api']);
});

test('X-SUB-3 (Delta): no names is *, subscribe A adds A, unsubscribe * leaves A, unsubscribe A leaves nothing', async (t) => {
  const { p, hub, d } = await setup(t);
  p.notWildcard.add('api'); // before set: sets are cached per change
  p.set(listener('api', 'r1'));
  d.send(LDS);
  const r1 = await d.expect(LDS);
  assert.deepEqual(Object.keys(deltaVersions(r1)), ['l1']);
  d.ack(r1);
  d.send(LDS, ['api']);
  const r2 = await d.expect(LDS);
  assert.deepEqual(Object.keys(deltaVersions(r2)), ['api']);
  d.ack(r2);
  d.send(LDS, [], ['*']);
  const r3 = await d.expect(LDS);
  assert.deepEqual(r3.removedResources, ['l1']);
  d.ack(r3);
  assert.equal(typeInfo(hub, 'LDS').wildcard, false);
  d.send(LDS, [], ['api']);
  await d.quiet();
  assert.equal(typeInfo(hub, 'LDS').wildcard, false, 'still not wildcard');
  assert.deepEqual(typeInfo(hub, 'LDS').names, []);
  p.set(listener('l2', 'r1'));
  hub.xds.flushChanges();
  await d.quiet();
});

test('X-RESP-1: Delta sends only what changed', async (t) => {
  const { p, d } = await setup(t);
  d.send(CDS, ['*']);
  d.ack(await d.expect(CDS));
  p.set(cluster('c2', 70));
  const r = await d.expect(CDS);
  assert.deepEqual(Object.keys(deltaVersions(r)), ['c2']);
});

test('per-type Delta stream (DeltaEndpoints) serves EDS', async (t) => {
  const { p, hub } = await setup(t);
  const d = new DeltaScript(hub.delta('/envoy.service.endpoint.v3.EndpointDiscoveryService/DeltaEndpoints'));
  d.send('', ['c1']);
  const r = await d.expect(EDS);
  assert.deepEqual(Object.keys(deltaVersions(r)), ['c1']);
  d.ack(r);
  p.set(cla('c1', [1]));
  assert.deepEqual(Object.keys(deltaVersions(await d.expect(EDS))), ['c1']);
});
