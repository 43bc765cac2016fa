// TTL and heartbeats (X-TTL-*): for clients that announce support, and for Envoy by its name.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { FEATURE_RESOURCE_IN_SOTW, FEATURE_TTL } from '../../../src/xds/transport/rules/ttl';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import { decodeAny, type Plain } from './helpers/client';
import { cluster, seed, TestProvider } from './helpers/fixtures';
import { seededHub, startHub } from './helpers/harness';
import { DeltaScript, deltaVersions, SotwScript } from './helpers/scripts';

const CDS = TypeUrl.Cluster;
/** A long TTL and quick heartbeats: heartbeats are awaited as events, never timed. */
const TTL = { resourceTtlMs: 30_000, heartbeatIntervalMs: 20 };

const setup = (t: TestContext, config = TTL) => seededHub(t, config);

const ttlSeconds = (r: Plain) => (r.ttl ? Number(r.ttl.seconds) : null);

test('X-TTL-1: Delta resources carry a ttl only for clients that announce supports-resource-ttl', async (t) => {
  const { hub } = await setup(t);
  const yes = new DeltaScript(hub.delta(), 'ttl-yes', [FEATURE_TTL]);
  yes.send(CDS, ['*']);
  const r = await yes.expect(CDS);
  assert.deepEqual(r.resources.map(ttlSeconds), [30, 30]);
  const no = new DeltaScript(hub.delta(), 'ttl-no');
  no.send(CDS, ['*']);
  const r2 = await no.expect(CDS);
  assert.deepEqual(r2.resources.map(ttlSeconds), [null, null]);
});

test('X-TTL-2: a heartbeat is the same version with no body, and it is not an update', async (t) => {
  const { hub } = await setup(t);
  const plain = new DeltaScript(hub.delta(), 'no-ttl');
  plain.send(CDS, ['*']);
  plain.ack(await plain.expect(CDS));
  const d = new DeltaScript(hub.delta(), 'ttl', [FEATURE_TTL]);
  d.send(CDS, ['*']);
  const r = await d.expect(CDS);
  d.ack(r);
  for (let i = 0; i < 2; i++) {
    const hb = await d.expect(CDS);
    assert.deepEqual(deltaVersions(hb), deltaVersions(r));
    assert.ok(hb.resources.every((x: Plain) => x.resource === null && ttlSeconds(x) === 30));
    d.ack(hb);
  }
  const [plainStream, ttlStream] = hub.xds.streams();
  assert.equal(plainStream!.stats.heartbeats, 0, 'no heartbeats for a client without the feature');
  assert.ok(ttlStream!.stats.heartbeats >= 2);
  const info = hub.xds.clients().find((c) => c.node?.id === 'ttl')!.types[0]!;
  assert.deepEqual(info.acked, deltaVersions(r));
});

test('X-TTL-3: SotW uses the Resource wrapper only for clients that also announce resource-in-sotw', async (t) => {
  const { hub } = await setup(t);
  const wrapped = new SotwScript(hub.sotw(), 'sotw-wrapped', [FEATURE_TTL, FEATURE_RESOURCE_IN_SOTW]);
  wrapped.request(CDS, []);
  const r = await wrapped.expect(CDS);
  assert.ok(r.resources.every((a: Plain) => a.type_url === TypeUrl.Resource));
  const inner = r.resources.map(decodeAny);
  assert.deepEqual(
    inner.map((x: Plain) => x.name),
    ['c1', 'c2'],
  );
  assert.deepEqual(inner.map(ttlSeconds), [30, 30]);
  wrapped.ack(r);
  const hb = await wrapped.expect(CDS);
  assert.equal(hb.versionInfo, r.versionInfo);
  assert.ok(hb.resources.map(decodeAny).every((x: Plain) => x.resource === null));

  const bare = new SotwScript(hub.sotw(), 'sotw-ttl-only', [FEATURE_TTL]);
  bare.request(CDS, []);
  const b = await bare.expect(CDS);
  assert.ok(b.resources.every((a: Plain) => a.type_url === CDS));
});

test('X-TTL-4: a changed TTL (or none) is resent to a client that reconnects holding the old one', async (t) => {
  const p = new TestProvider();
  seed(p);
  let hub = await startHub(p, TTL);
  const d = new DeltaScript(hub.delta(), 'ttl', [FEATURE_TTL]);
  d.send(CDS, ['*']);
  const held = deltaVersions(await d.expect(CDS));
  const port = hub.port;
  await hub.stop();
  // TTL switched off: the resources come again, without a ttl.
  hub = await startHub(p, { resourceTtlMs: 0, heartbeatIntervalMs: 0 }, port);
  const off = new DeltaScript(hub.delta(), 'ttl', [FEATURE_TTL]);
  off.send(CDS, ['*'], [], { initialResourceVersions: held });
  const r = await off.expect(CDS);
  assert.deepEqual(r.resources.map(ttlSeconds), [null, null]);
  await hub.stop();
  // A different TTL: resent with the new one.
  hub = await startHub(p, { resourceTtlMs: 60_000, heartbeatIntervalMs: 60_000 }, port);
  t.after(() => hub.stop());
  const longer = new DeltaScript(hub.delta(), 'ttl', [FEATURE_TTL]);
  longer.send(CDS, ['*'], [], { initialResourceVersions: held });
  const r2 = await longer.expect(CDS);
  assert.deepEqual(r2.resources.map(ttlSeconds), [60, 60]);
  // Same TTL, same content: nothing to resend.
  longer.ack(r2);
  p.set(cluster('c1'));
  hub.xds.flushChanges();
  await longer.quiet();
});

test('X-TTL-5: Envoy (user_agent_name "envoy", no client features) gets a TTL and heartbeats on Delta; on SotW plain resources and no heartbeat', async (t) => {
  const { hub } = await setup(t);
  const envoy = (id: string): Plain => ({ id, cluster: 'test', clientFeatures: [], userAgentName: 'envoy' });
  const s = new SotwScript(hub.sotw(), 'envoy-sotw');
  s.request(CDS, [], { node: envoy('envoy-sotw') });
  const sr = await s.expect(CDS);
  assert.deepEqual(
    sr.resources.map((a: Plain) => a.type_url),
    [CDS, CDS],
    'plain Clusters, no Resource wrapper',
  );
  assert.deepEqual(sr.resources.map(decodeAny).map(ttlSeconds), [null, null]);
  s.ack(sr);
  await s.quiet(); // the ACK was taken, and nothing came after it

  const d = new DeltaScript(hub.delta(), 'envoy-delta');
  d.send(CDS, ['*'], [], { node: envoy('envoy-delta') });
  const r = await d.expect(CDS);
  assert.deepEqual(r.resources.map(ttlSeconds), [30, 30]);
  d.ack(r);
  for (let i = 0; i < 2; i++) {
    const hb = await d.expect(CDS);
    assert.ok(
      hb.resources.every((x: Plain) => x.resource === null),
      'a heartbeat carries no bodies',
    );
    d.ack(hb);
  }
  // The server-wide heartbeat timer ticked at least twice since the SotW ACK: the SotW Envoy got none.
  const sotw = hub.xds.streams().find((x) => x.variant === 'sotw')!;
  assert.equal(sotw.stats.heartbeats, 0);
});
