// The push pipeline alone, on mocked timers: debounce, maximum delay, and
// delivery only to interested streams.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PushPipeline } from '../../../src/xds/transport/push';
import type { XdsStream } from '../../../src/xds/transport/stream';
import type { SubscriptionDelta } from '../../../src/xds/transport/rules/subscription';
import { EMPTY_NAMES } from '../../../src/xds/transport/name-sets';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import { TestProvider } from './helpers/fixtures';

interface Fake {
  node: { id: string; cluster: string };
  types: Map<string, unknown>;
  got: string[][];
  flushes: number;
  resourcesChanged(typeUrl: string, names: ReadonlySet<string>): void;
  flush(): void;
}

function fake(id: string, cluster = 'web'): Fake {
  return {
    node: { id, cluster },
    types: new Map(),
    got: [],
    flushes: 0,
    resourcesChanged(_t, names) {
      this.got.push([...names].sort());
    },
    flush() {
      this.flushes++;
    },
  };
}

const subscribed = (names: ReadonlySet<string>): SubscriptionDelta => ({ changed: true, before: EMPTY_NAMES, added: [...names], removed: [], wildcardChanged: false });

test('changes are coalesced: one delivery after the debounce, and never later than the maximum delay', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const p = new TestProvider();
  const push = new PushPipeline(p, { debounceMs: 50, maxDelayMs: 120 });
  t.after(() => push.close());
  const s = fake('a');
  push.update(s as unknown as XdsStream, TypeUrl.Cluster, subscribed(EMPTY_NAMES), EMPTY_NAMES, true);
  p.announce([{ typeUrl: TypeUrl.Cluster, names: new Set(['c1']) }]);
  t.mock.timers.tick(40);
  p.announce([{ typeUrl: TypeUrl.Cluster, names: new Set(['c2']) }]);
  t.mock.timers.tick(40);
  p.announce([{ typeUrl: TypeUrl.Cluster, names: new Set(['c3']) }]);
  assert.equal(s.flushes, 0, 'still within the debounce window');
  t.mock.timers.tick(39); // 119 ms after the first change
  assert.equal(s.flushes, 0);
  t.mock.timers.tick(1); // the maximum delay is reached although changes keep coming
  assert.equal(s.flushes, 1);
  assert.deepEqual(s.got, [['c1', 'c2', 'c3']]);
  assert.equal(push.deliveries, 1);
});

test('a change reaches only streams that subscribe to a changed name, or the wildcard, within its node scope', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const p = new TestProvider();
  const push = new PushPipeline(p, { debounceMs: 5, maxDelayMs: 10 });
  t.after(() => push.close());
  const shared = new Set(['c1', 'c2']);
  const [a, b, other, wild, gw] = [fake('a'), fake('b'), fake('o'), fake('w'), fake('g', 'gateway')];
  push.update(a as unknown as XdsStream, TypeUrl.ClusterLoadAssignment, subscribed(shared), shared, false);
  push.update(b as unknown as XdsStream, TypeUrl.ClusterLoadAssignment, subscribed(shared), shared, false);
  const c9 = new Set(['c9']);
  push.update(other as unknown as XdsStream, TypeUrl.ClusterLoadAssignment, subscribed(c9), c9, false);
  push.update(wild as unknown as XdsStream, TypeUrl.Cluster, subscribed(EMPTY_NAMES), EMPTY_NAMES, true);
  push.update(gw as unknown as XdsStream, TypeUrl.ClusterLoadAssignment, subscribed(shared), shared, false);
  p.announce([{ typeUrl: TypeUrl.ClusterLoadAssignment, names: new Set(['c2']) }]);
  t.mock.timers.tick(5);
  assert.deepEqual([a.flushes, b.flushes, other.flushes, wild.flushes, gw.flushes], [1, 1, 0, 0, 1]);
  p.announce([{ typeUrl: TypeUrl.ClusterLoadAssignment, names: new Set(['c1']), nodeScope: 'gateway' }]);
  t.mock.timers.tick(5);
  assert.deepEqual([a.flushes, b.flushes, gw.flushes], [1, 1, 2], 'a scoped change reaches only that node cluster');
});
