// The push pipeline alone, on mocked timers: debounce, maximum delay, and
// delivery only to interested streams.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EMPTY_NAMES } from '../../../src/xds/transport/name-sets';
import { PushPipeline } from '../../../src/xds/transport/push';
import type { SubscriptionDelta } from '../../../src/xds/transport/rules/subscription';
import type { XdsStream } from '../../../src/xds/transport/stream';
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

const subscribed = (names: ReadonlySet<string>): SubscriptionDelta => ({
  changed: true,
  before: EMPTY_NAMES,
  added: [...names],
  removed: [],
  wildcardChanged: false,
});

test('an idle change goes at once; changes inside the window are folded and go at its end', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const p = new TestProvider();
  const push = new PushPipeline(p, { debounceMs: 50, maxDelayMs: 120 });
  t.after(() => push.close());
  const s = fake('a');
  push.update(s as unknown as XdsStream, TypeUrl.Cluster, subscribed(EMPTY_NAMES), EMPTY_NAMES, true);
  p.announce([{ typeUrl: TypeUrl.Cluster, names: new Set(['c1']) }]);
  assert.deepEqual(s.got, [['c1']], 'nothing was pushed lately: no coalescing delay');
  t.mock.timers.tick(10);
  p.announce([{ typeUrl: TypeUrl.Cluster, names: new Set(['c2']) }]);
  t.mock.timers.tick(30);
  p.announce([{ typeUrl: TypeUrl.Cluster, names: new Set(['c3']) }]);
  assert.equal(s.flushes, 1, 'inside the window: folded');
  t.mock.timers.tick(9); // 49 ms after the first delivery
  assert.equal(s.flushes, 1);
  t.mock.timers.tick(1); // the window ends
  assert.deepEqual(s.got, [['c1'], ['c2', 'c3']]);
  t.mock.timers.tick(200);
  p.announce([{ typeUrl: TypeUrl.Cluster, names: new Set(['c4']) }]);
  assert.deepEqual(s.got.at(-1), ['c4'], 'idle again: at once');
  assert.equal(push.deliveries, 3);
});

test('under churn, deliveries stay at one per window; --xds-max-delay bounds the wait', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const p = new TestProvider();
  const push = new PushPipeline(p, { debounceMs: 50, maxDelayMs: 50 });
  t.after(() => push.close());
  const s = fake('a');
  push.update(s as unknown as XdsStream, TypeUrl.Cluster, subscribed(EMPTY_NAMES), EMPTY_NAMES, true);
  let waited = 0;
  let seen = 0;
  for (let ms = 0; ms < 1000; ms++) {
    p.announce([{ typeUrl: TypeUrl.Cluster, names: new Set([`c${ms}`]) }]); // 1,000 changes per second, c<ms> at ms
    t.mock.timers.tick(1);
    for (const batch of s.got.slice(seen))
      for (const n of batch) waited = Math.max(waited, ms + 1 - Number(n.slice(1)));
    seen = s.got.length;
  }
  assert.ok(push.deliveries <= 1000 / 50 + 1, `${push.deliveries} deliveries in one second (window 50 ms)`);
  assert.ok(push.deliveries >= 1000 / 50 - 1, `${push.deliveries} deliveries: every window delivers`);
  assert.ok(waited <= 50, `a change waited ${waited} ms (max delay 50)`);
  assert.equal(s.got.flat().length, 1000, 'every change delivered once');

  // A window longer than the max delay: the max delay wins.
  const q = new TestProvider();
  const capped = new PushPipeline(q, { debounceMs: 100, maxDelayMs: 30 });
  t.after(() => capped.close());
  const c = fake('c');
  capped.update(c as unknown as XdsStream, TypeUrl.Cluster, subscribed(EMPTY_NAMES), EMPTY_NAMES, true);
  q.announce([{ typeUrl: TypeUrl.Cluster, names: new Set(['x']) }]);
  q.announce([{ typeUrl: TypeUrl.Cluster, names: new Set(['y']) }]);
  t.mock.timers.tick(29);
  assert.equal(c.flushes, 1);
  t.mock.timers.tick(1);
  assert.equal(c.flushes, 2, 'the second change went 30 ms after it arrived');
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

test('the window after a delivery is twice as long as its writes took (at least --xds-debounce), and never holds a change past --xds-max-delay', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  for (const maxDelayMs of [1000, 150]) {
    const p = new TestProvider();
    const push = new PushPipeline(p, { debounceMs: 50, maxDelayMs });
    const s = fake('a');
    // Each flush takes 100 ms of (mocked) time, as writes to many streams do.
    s.flush = function () {
      this.flushes++;
      t.mock.timers.tick(100);
    };
    push.update(s as unknown as XdsStream, TypeUrl.Cluster, subscribed(EMPTY_NAMES), EMPTY_NAMES, true);
    const start = Date.now();
    const at = () => Date.now() - start;
    p.announce([{ typeUrl: TypeUrl.Cluster, names: new Set(['c1']) }]); // idle: at once, done at 100
    assert.equal(s.flushes, 1);
    assert.equal(push.windowMs, 200, 'a 100 ms round opens a 200 ms window');
    t.mock.timers.tick(10);
    p.announce([{ typeUrl: TypeUrl.Cluster, names: new Set(['c2']) }]); // at 110
    const due = Math.min(100 + 200, 110 + maxDelayMs);
    t.mock.timers.tick(due - at() - 1);
    assert.equal(s.flushes, 1, `folded until ${due}`);
    t.mock.timers.tick(1);
    assert.equal(s.flushes, 2, `delivered at ${due} (window end ${300}, max delay ${maxDelayMs} after 110)`);
    assert.deepEqual(s.got, [['c1'], ['c2']]);
    push.close();
  }
});

test('each delivery starts writing at another stream: none waits for the whole fleet every time', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const p = new TestProvider();
  const push = new PushPipeline(p, { debounceMs: 50, maxDelayMs: 120 });
  t.after(() => push.close());
  const order: string[] = [];
  const streams = ['a', 'b', 'c', 'd', 'e'].map((id) => {
    const s = fake(id);
    s.flush = () => {
      s.flushes++;
      order.push(id);
    };
    push.update(s as unknown as XdsStream, TypeUrl.Cluster, subscribed(EMPTY_NAMES), EMPTY_NAMES, true);
    return s;
  });
  const firsts = new Map<string, number>();
  const lasts = new Map<string, number>();
  for (let d = 0; d < 20; d++) {
    order.length = 0;
    p.announce([{ typeUrl: TypeUrl.Cluster, names: new Set([`c${d}`]) }]);
    t.mock.timers.tick(60); // past the window: the next change goes at once
    assert.deepEqual([...order].sort(), ['a', 'b', 'c', 'd', 'e'], 'every stream written once per delivery');
    firsts.set(order[0]!, (firsts.get(order[0]!) ?? 0) + 1);
    lasts.set(order.at(-1)!, (lasts.get(order.at(-1)!) ?? 0) + 1);
  }
  assert.equal(firsts.size, 5, `every stream went first in some delivery: ${[...firsts]}`);
  assert.ok(Math.max(...lasts.values()) <= 6, `no stream was last in most deliveries: ${[...lasts]}`);
  for (const s of streams) assert.equal(s.flushes, 20);
});
