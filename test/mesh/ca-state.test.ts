// The CA's entries in the state machine: apply is deterministic (two
// machines folding the same entries have byte-equal snapshots), and refuses
// what no longer fits the state: a second init, a stale leaf, a leaf of a
// rotated-out root, a prune before every leaf that root signed has expired.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Command } from '../../src/catalog/commands';
import { createStateMachine } from '../../src/catalog/state';
import { defaultCaConfig } from '../../src/connect/manager';
import { crossSign, issueLeaf, makeRoot, serviceSpiffeId } from '../../src/connect/x509';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const HOUR = 3_600_000;

test('CA entries: deterministic apply, refusals against the state, pruning after the leaf lifetime', async () => {
  const clusterId = '11111111-2222-3333-4444-555555555555';
  const td = `${clusterId}.consul`;
  const root1 = await makeRoot({ clusterId, trustDomain: td, serial: 1, now: NOW, ttlMs: 100 * HOUR });
  const config = {
    Provider: 'consul' as const,
    Config: defaultCaConfig(2 * HOUR),
    ClusterID: clusterId,
    ForceWithoutCrossSigning: false,
  };
  const a = createStateMachine();
  const b = createStateMachine();
  let index = 0n;
  const both = (cmd: Command) => {
    index++;
    const ra = a.apply(index, cmd).result;
    const rb = b.apply(index, JSON.parse(JSON.stringify(cmd)) as Command).result;
    assert.deepEqual(ra, rb);
    return ra;
  };

  assert.equal(both({ type: 'ca-init', config, root: root1 }).ok, true);
  const second = both({ type: 'ca-init', config, root: root1 });
  assert.equal(second.ok, false);
  assert.equal(second.error?.code, 'CONFLICT');

  const active1 = a.connectCa().roots[0]!;
  const leaf1 = await issueLeaf({
    root: active1,
    service: 'web',
    spiffeId: serviceSpiffeId(td, 'dc1', 'web'),
    now: NOW,
    ttlMs: 2 * HOUR,
  });
  assert.equal(both({ type: 'leaf-issue', leaf: leaf1, ifSerial: '' }).ok, true);
  const stale = await issueLeaf({
    root: active1,
    service: 'web',
    spiffeId: serviceSpiffeId(td, 'dc1', 'web'),
    now: NOW,
    ttlMs: 2 * HOUR,
  });
  assert.equal(
    both({ type: 'leaf-issue', leaf: stale, ifSerial: '' }).error?.code,
    'CONFLICT',
    'another leaf won the race',
  );

  const root2Input = await makeRoot({ clusterId, trustDomain: td, serial: 2, now: NOW + HOUR, ttlMs: 100 * HOUR });
  const root2 = { ...root2Input, IntermediateCerts: [await crossSign(root2Input, active1, NOW + HOUR)] };
  const rotatedAt = new Date(NOW + HOUR).toISOString();
  assert.equal(
    both({
      type: 'ca-config',
      config: config.Config,
      forceWithoutCrossSigning: false,
      root: root2,
      ifActiveRoot: active1.ID,
      at: rotatedAt,
    }).ok,
    true,
  );
  assert.equal(
    both({
      type: 'ca-config',
      config: config.Config,
      forceWithoutCrossSigning: false,
      root: root2,
      ifActiveRoot: active1.ID,
      at: rotatedAt,
    }).error?.code,
    'CONFLICT',
  );
  const roots = a.connectCa().roots;
  assert.deepEqual(
    roots.map((r) => [r.ID, r.Active, r.RotatedOutAt]),
    [
      [active1.ID, false, rotatedAt],
      [root2.ID, true, '0001-01-01T00:00:00Z'],
    ],
  );

  const late = await issueLeaf({
    root: active1,
    service: 'api',
    spiffeId: serviceSpiffeId(td, 'dc1', 'api'),
    now: NOW + HOUR,
    ttlMs: 2 * HOUR,
  });
  assert.equal(
    both({ type: 'leaf-issue', leaf: late, ifSerial: '' }).error?.code,
    'CONFLICT',
    'a rotated-out root signs nothing more',
  );

  // The old root stays until every leaf it may have signed has expired: RotatedOutAt + LeafCertTTL.
  assert.equal(
    both({ type: 'ca-prune', rootId: active1.ID, at: new Date(NOW + 2 * HOUR).toISOString() }).error?.code,
    'CONFLICT',
  );
  assert.equal(
    both({ type: 'ca-prune', rootId: root2.ID, at: new Date(NOW + 9 * HOUR).toISOString() }).error?.code,
    'CONFLICT',
    'never the active root',
  );
  assert.equal(both({ type: 'ca-prune', rootId: active1.ID, at: new Date(NOW + 3 * HOUR).toISOString() }).ok, true);
  assert.deepEqual(
    a.connectCa().roots.map((r) => r.ID),
    [root2.ID],
  );
  assert.equal(a.connectCa().leaves.has('web'), false, 'leaves of the pruned root go with it');

  assert.equal(a.snapshot(), b.snapshot(), 'the same entries give the same state, byte for byte');
  const c = createStateMachine();
  c.restore(a.snapshot());
  assert.deepEqual(c.connectCa(), a.connectCa(), 'the CA survives a snapshot and restore');
});
