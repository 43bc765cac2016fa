// Materializer figures: events folded per second into a 10,000-instance health
// view (batches of 1 and 100, view alone and through the materializer), heap
// held by such a view, and how long 10,000 blocking readers of one service take
// to wake after one change. Prints figures; asserts nothing.
//   node --import tsx bench/materializer.ts
import { loadavg } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type CatalogEvent, type CheckServiceNode, Topic } from '../src/catalog/types';
import { createMaterializer } from '../src/materializer/materializer';
import { inProcessSource } from '../src/materializer/sources/in-process';
import { createViewStore } from '../src/materializer/store';
import { deepFreeze } from '../src/materializer/view';
import { healthView } from '../src/materializer/views/health';
import type { Publisher, StreamItem, SubscribeRequest } from '../src/subscribe/types';

const N = 10_000;

/** Frozen, as the catalog hands out its stored objects (the view then skips freezing them). */
function instance(i: number, port = 8080): CheckServiceNode {
  const node = `node-${i}`;
  const id = `web-${i % 3}`;
  return deepFreeze({
    Node: {
      ID: '',
      Node: node,
      Address: `10.0.${i >> 8}.${i & 255}`,
      Datacenter: 'dc1',
      TaggedAddresses: {},
      Meta: { rack: `r${i % 16}` },
      CreateIndex: 1,
      ModifyIndex: 1,
    },
    Service: {
      Kind: '',
      ID: id,
      Service: 'web',
      Tags: ['v1'],
      Address: '',
      TaggedAddresses: {},
      Meta: {},
      Port: port,
      Weights: { Passing: 1, Warning: 1 },
      EnableTagOverride: false,
      CreateIndex: 1,
      ModifyIndex: 1,
    },
    Checks: [
      {
        Node: node,
        CheckID: `service:${id}`,
        Name: 'alive',
        Status: 'passing',
        Notes: '',
        Output: '',
        ServiceID: id,
        ServiceName: 'web',
        ServiceTags: ['v1'],
        Type: 'ttl',
        Interval: '',
        Timeout: '',
        Definition: { TTL: '30s' },
        CreateIndex: 1,
        ModifyIndex: 1,
      },
    ],
  });
}

const register = (index: number, csn: CheckServiceNode): CatalogEvent => ({
  topic: Topic.ServiceHealth,
  subject: 'web',
  index: BigInt(index),
  payload: { type: 'service-health', op: 'register', csn },
});

function gc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function foldView(batch: number, total: number): number {
  const view = healthView({ service: 'web' });
  view.update(Array.from({ length: N }, (_, i) => register(1, instance(i))));
  // Pre-build the events so only folding is timed.
  const events = Array.from({ length: total }, (_, k) =>
    register(2 + Math.floor(k / batch), instance((k * 7919) % N, 9000 + (k % 100))),
  );
  const t0 = performance.now();
  for (let k = 0; k < total; k += batch) view.update(events.slice(k, k + batch));
  return total / ((performance.now() - t0) / 1000);
}

/** A publisher that replays a prepared snapshot, then items pushed by the bench. */
function benchPublisher() {
  let push: ((item: StreamItem) => void) | undefined;
  const snapshot: StreamItem[] = [
    { kind: 'events', index: 1n, events: Array.from({ length: N }, (_, i) => register(1, instance(i))) },
    { kind: 'end-of-snapshot', index: 1n },
  ];
  const publisher: Publisher = {
    subscribe(_req: SubscribeRequest, signal: AbortSignal) {
      const queue: StreamItem[] = [...snapshot];
      let head = 0; // not shift(): that is O(n) on a long queue and would be what we measure
      let wake: (() => void) | undefined;
      push = (item) => {
        queue.push(item);
        wake?.();
      };
      signal.addEventListener('abort', () => wake?.());
      return {
        async *[Symbol.asyncIterator]() {
          while (!signal.aborted) {
            const item = queue[head];
            if (item) {
              queue[head++] = undefined as unknown as StreamItem;
              yield item;
            } else await new Promise<void>((resolve) => (wake = resolve));
          }
        },
      };
    },
    close() {},
  };
  return { publisher, push: (item: StreamItem) => push!(item) };
}

async function foldMaterializer(batch: number, total: number): Promise<number> {
  const { publisher, push } = benchPublisher();
  const m = createMaterializer({
    source: inProcessSource(publisher),
    request: { topic: Topic.ServiceHealth, subject: { key: 'web' }, token: '', index: 0n },
    view: healthView({ service: 'web' }),
  });
  const ac = new AbortController();
  const done = m.run(ac.signal);
  await m.waitFor(0n);
  const items: StreamItem[] = [];
  for (let k = 0, index = 2; k < total; k += batch, index++) {
    const events = Array.from({ length: batch }, (_, j) =>
      register(index, instance(((k + j) * 7919) % N, 9000 + ((k + j) % 100))),
    );
    items.push({ kind: 'events', index: BigInt(index), events });
  }
  const last = 1n + BigInt(items.length);
  const t0 = performance.now();
  for (const item of items) push(item);
  await m.waitFor(last - 1n);
  const rate = total / ((performance.now() - t0) / 1000);
  ac.abort();
  await done;
  return rate;
}

function heapOfView(): { bytes: number; perInstance: number } {
  gc();
  const before = process.memoryUsage().heapUsed;
  const view = healthView({ service: 'web' });
  view.update(Array.from({ length: N }, (_, i) => register(1, instance(i))));
  const result = view.result(1n);
  gc();
  const bytes = process.memoryUsage().heapUsed - before;
  if (result.length !== N) throw new Error('view lost instances');
  return { bytes, perInstance: bytes / N };
}

async function wakeUp(readers: number): Promise<{ p50: number; p99: number; max: number }> {
  const { publisher, push } = benchPublisher();
  const store = createViewStore({ source: inProcessSource(publisher) });
  const key = { kind: 'service-health', service: 'web' } as const;
  const first = await store.get(key, { token: '', minIndex: 0n });
  const times: number[] = [];
  let t0 = 0;
  const waits = Array.from({ length: readers }, () =>
    store.get(key, { token: '', minIndex: first.index }).then(() => times.push(performance.now() - t0)),
  );
  await new Promise((resolve) => setImmediate(resolve));
  t0 = performance.now();
  push({ kind: 'events', index: 2n, events: [register(2, instance(17, 9999))] });
  await Promise.all(waits);
  store.close();
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { p50: at(0.5), p99: at(0.99), max: times[times.length - 1]! };
}

async function main(): Promise<void> {
  console.log(
    `materializer bench: health view of ${fmt(N)} instances, Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)}`,
  );
  foldView(1, 2_000); // warm-up
  for (const batch of [1, 100]) {
    console.log(
      `  view.update, batch ${String(batch).padStart(3)}: ${fmt(foldView(batch, batch === 1 ? 20_000 : 100_000))} events/s`,
    );
  }
  for (const batch of [1, 100]) {
    console.log(
      `  through the materializer, batch ${String(batch).padStart(3)}: ${fmt(await foldMaterializer(batch, batch === 1 ? 20_000 : 100_000))} events/s`,
    );
  }
  const heap = heapOfView();
  console.log(
    `  heap of the view (instances + sharded state + rendered result): ${(heap.bytes / 2 ** 20).toFixed(1)} MiB (${fmt(heap.perInstance)} B/instance)`,
  );
  // Round 1 runs cold (JIT, first render); rounds 2-3 are the steady state.
  for (let round = 1; round <= 3; round++) {
    gc();
    const wake = await wakeUp(10_000);
    console.log(
      `  10,000 blocking readers, one change (round ${round}${round === 1 ? ', cold' : ''}): wake-up p50 ${wake.p50.toFixed(1)} ms, p99 ${wake.p99.toFixed(1)} ms, max ${wake.max.toFixed(1)} ms`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
