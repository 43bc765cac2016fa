// The xDS server feeds its large (gated) writes to the memory trimmer: an
// initial set above the sync gate's size trims once the burst is over; small
// responses never count. Real grpc-js server and client; the trim is counted,
// not run, so the test does not depend on the allocator. The same large
// writes hand V8's heap growth back to V8 while they last (src/heap-growth.ts).
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { startHeapGrowth, stopHeapGrowth } from '../../../src/heap-growth';
import { SYNC_GATE_DEFAULTS } from '../../../src/xds/transport/sync-gate';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import { until as poll, UNTIL_TIMEOUT_MS } from '../../helpers/until';
import { cluster, TestProvider } from './helpers/fixtures';
import { type Hub, startHub } from './helpers/harness';
import { DeltaScript } from './helpers/scripts';

const CDS = TypeUrl.Cluster;

async function setup(t: TestContext, clusters: number, memoryTrim: boolean, idleMs = 1) {
  const p = new TestProvider();
  p.set(...Array.from({ length: clusters }, (_, i) => cluster(`cluster-${i}`)));
  let trims = 0;
  const hub = await startHub(p, { memoryTrim }, 0, {
    memoryTrim: { minBytes: 1, idleMs, maxDelayMs: 60_000, trim: () => void trims++ },
  });
  t.after(() => hub.stop());
  return { hub, trims: () => trims };
}

async function until(cond: () => boolean, what: string, ms = UNTIL_TIMEOUT_MS): Promise<void> {
  await poll(cond, { what, timeout: ms, interval: 5 });
}

async function syncCds(hub: Hub): Promise<number> {
  const d = new DeltaScript(hub.delta());
  d.send(CDS, ['*']);
  const r = await d.expect(CDS);
  d.ack(r);
  return (r.resources as unknown[]).length;
}

test('a large initial set is noted after HTTP/2 takes it, and trimmed once the burst is quiet', {
  timeout: 20_000,
}, async (t) => {
  const { hub, trims } = await setup(t, 600, true);
  assert.equal(await syncCds(hub), 600);
  await until(() => trims() === 1, 'the trim after the initial CDS set');
  const s = hub.xds.memoryTrim();
  assert.equal(s.available, true);
  assert.equal(s.trims, 1);
  assert.equal(s.pendingBytes, 0);
});

test('responses below the sync gate size are never noted', { timeout: 20_000 }, async (t) => {
  // No trim runs within the test (a minute of quiet needed), so whatever was noted stays visible.
  const small = await setup(t, 3, true, 60_000);
  assert.equal(await syncCds(small.hub), 3);
  assert.equal(small.hub.xds.memoryTrim().pendingBytes, 0);
  // The same path with a large set shows its note by the time the client has the response (the write callback runs first).
  const large = await setup(t, 600, true, 60_000);
  assert.equal(await syncCds(large.hub), 600);
  assert.ok(
    large.hub.xds.memoryTrim().pendingBytes >= SYNC_GATE_DEFAULTS.largeBytes,
    `noted ${large.hub.xds.memoryTrim().pendingBytes} bytes`,
  );
  assert.equal(small.trims() + large.trims(), 0);
});

test('--memory-trim=false: large writes are not noted and nothing is trimmed', { timeout: 20_000 }, async (t) => {
  const { hub, trims } = await setup(t, 600, false);
  assert.equal(await syncCds(hub), 600);
  assert.deepEqual(
    { ...hub.xds.memoryTrim(), lastDurationMs: 0 },
    { available: false, trims: 0, pendingBytes: 0, lastDurationMs: 0, releasedBytes: 0 },
  );
  assert.equal(trims(), 0);
});

test('a large initial set switches the heap growth to V8 own choice until the burst is quiet; a small one never does', {
  timeout: 20_000,
}, async (t) => {
  const applied: number[] = [];
  const growth = startHeapGrowth(100, (p) => applied.push(p));
  t.after(() => stopHeapGrowth());
  const small = await setup(t, 3, true, 60_000);
  assert.equal(await syncCds(small.hub), 3);
  assert.deepEqual(applied, [100]);
  const large = await setup(t, 600, true, 60_000);
  assert.equal(await syncCds(large.hub), 600);
  assert.deepEqual(
    applied,
    [100, 0],
    'switched by the time the client has the response (the write callback runs first)',
  );
  await until(() => growth.current() === 100, 'the factor back after the burst');
  assert.deepEqual(applied, [100, 0, 100]);
});
