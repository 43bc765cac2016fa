// The materializer core: waitFor semantics, the framing state machine on its
// own, and the backoff policy.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Topic } from '../../src/catalog/types';
import { createBackoff } from '../../src/materializer/backoff';
import { createFraming } from '../../src/materializer/framing';
import { createMaterializer } from '../../src/materializer/materializer';
import { inProcessSource } from '../../src/materializer/sources/in-process';
import { healthView } from '../../src/materializer/views/health';
import { csn, eos, health, items, nstf, recordingBackoff } from './fixtures';
import { createScriptedPublisher } from './scripted-publisher';

/** 'pending' if p has not settled once the current I/O turn is over. */
async function state(p: Promise<unknown>): Promise<'pending' | 'settled'> {
  const turn = new Promise<'pending'>((resolve) => setImmediate(() => resolve('pending')));
  return Promise.race([
    p.then(
      () => 'settled' as const,
      () => 'settled' as const,
    ),
    turn,
  ]);
}

function setup() {
  const publisher = createScriptedPublisher();
  const inner = healthView({ service: 'web' });
  let onUpdate: (() => void) | undefined;
  const view: typeof inner = {
    update(events) {
      inner.update(events);
      onUpdate?.();
    },
    result: (i) => inner.result(i),
    reset: () => inner.reset(),
  };
  const m = createMaterializer({
    source: inProcessSource(publisher),
    request: { topic: Topic.ServiceHealth, subject: { key: 'web' }, token: '', index: 0n },
    view,
    backoff: recordingBackoff(),
  });
  const ac = new AbortController();
  const done = m.run(ac.signal);
  /** Settles after the next update has been folded. */
  const nextUpdate = () => new Promise<void>((resolve) => (onUpdate = () => queueMicrotask(resolve)));
  return { publisher, m, ac, done, nextUpdate };
}

describe('waitFor', () => {
  test('index 0 always waits for a snapshot; then returns at once while index > minIndex', async () => {
    const { publisher, m, ac, done } = setup();
    const first = m.waitFor(0n);
    const before = m.waitFor(-1n);
    assert.equal(await state(first), 'pending');
    assert.equal(await state(before), 'pending');
    const sub = await publisher.next();
    sub.push(items(4, health(4, 'register', csn('web', 'a', 'n1'))), eos(4));
    const r = await first;
    assert.equal(r.index, 4n);
    assert.equal(await before, r, 'every waiter gets the same frozen result object');
    assert.equal(await m.waitFor(3n), r);
    assert.equal(await state(m.waitFor(4n)), 'pending');
    ac.abort();
    await done;
  });

  test('a waiter at minIndex wakes only when the index moves past it', async () => {
    const { publisher, m, ac, done } = setup();
    const sub = await publisher.next();
    sub.push(items(4, health(4, 'register', csn('web', 'a', 'n1'))), eos(4));
    await m.waitFor(0n);
    const w6 = m.waitFor(6n);
    sub.push(items(5, health(5, 'register', csn('web', 'b', 'n1'))));
    assert.equal((await m.waitFor(4n)).index, 5n);
    assert.equal(await state(w6), 'pending');
    sub.push(items(7, health(7, 'register', csn('web', 'c', 'n1'))));
    assert.equal((await w6).index, 7n);
    ac.abort();
    await done;
  });

  test('when the signal ends the waiter gets the current value', async () => {
    const { publisher, m, ac, done } = setup();
    const sub = await publisher.next();
    sub.push(items(4, health(4, 'register', csn('web', 'a', 'n1'))), eos(4));
    await m.waitFor(0n);
    const timeout = new AbortController();
    const w = m.waitFor(4n, timeout.signal);
    timeout.abort();
    const r = await w;
    assert.equal(r.index, 4n);
    assert.equal(r.value.length, 1);
    // An already-ended signal answers at once, even before any snapshot.
    const fresh = setup();
    const r0 = await fresh.m.waitFor(0n, AbortSignal.abort());
    assert.equal(r0.index, 0n);
    assert.deepEqual(r0.value, []);
    fresh.ac.abort();
    ac.abort();
    await Promise.all([done, fresh.done]);
  });

  test('a snapshot of an empty catalog (index 0) answers minIndex 0, and a waiter at 1 wakes on the first change', async () => {
    const { publisher, m, ac, done } = setup();
    const sub = await publisher.next();
    const w0 = m.waitFor(0n);
    sub.push(eos(0));
    const r = await w0;
    assert.equal(r.index, 0n);
    assert.equal(m.ready(), true);
    assert.deepEqual(r.value, []);
    // Consul's HTTP layer hands index 0 out as 1; the entry at index 1 must still wake that reader.
    const w1 = m.waitFor(1n);
    assert.equal(await state(w1), 'pending');
    sub.push(items(1, health(1, 'register', csn('web', 'a', 'n1'))));
    assert.equal((await w1).index, 1n);
    ac.abort();
    await done;
  });

  test('a server that overstated its snapshot index: the delivery at that index reaches readers holding it', async () => {
    const { publisher, m, ac, done } = setup();
    const sub = await publisher.next();
    sub.push(eos(1)); // an empty catalog, reported at 1 (Consul's clamp)
    const stale = await m.waitFor(0n);
    assert.deepEqual([stale.index, stale.value], [1n, []]);
    const w = m.waitFor(1n);
    sub.push(items(1, health(1, 'register', csn('web', 'a', 'n1')))); // the real entry 1
    const r = await w;
    assert.equal(r.index, 1n);
    assert.deepEqual(
      r.value.map((c) => c.Service.ID),
      ['a'],
    );
    assert.deepEqual(stale.value, [], 'the stale result itself never changes');
    const next = m.waitFor(1n);
    assert.equal(await state(next), 'pending');
    sub.push(items(2, health(2, 'register', csn('web', 'b', 'n1'))));
    assert.equal((await next).index, 2n);
    ac.abort();
    await done;
  });

  test('a new snapshot below the view index (a cached one) wakes no waiter until the index passes theirs', async () => {
    const { publisher, m, ac, done, nextUpdate } = setup();
    const sub = await publisher.next();
    sub.push(items(9, health(9, 'register', csn('web', 'a', 'n1'))), eos(9));
    await m.waitFor(0n);
    const w = m.waitFor(9n);
    const folded = nextUpdate();
    sub.push(nstf, items(3, health(3, 'register', csn('web', 'b', 'n1'))), eos(3));
    await folded;
    assert.equal((await m.waitFor(0n)).index, 3n, 'readers see the snapshot, consistent at its own index');
    assert.equal(await state(w), 'pending');
    sub.push(items(10, health(10, 'register', csn('web', 'a', 'n1'))));
    const r = await w;
    assert.equal(r.index, 10n);
    assert.deepEqual(
      r.value.map((c) => c.Service.ID),
      ['a', 'b'],
    );
    ac.abort();
    await done;
  });

  test('10,000 concurrent waiters wake on one change with one shared result', async () => {
    const { publisher, m, ac, done } = setup();
    const sub = await publisher.next();
    sub.push(items(1, health(1, 'register', csn('web', 'a', 'n1'))), eos(1));
    await m.waitFor(0n);
    const waiters = Array.from({ length: 10_000 }, () => m.waitFor(1n));
    sub.push(items(2, health(2, 'register', csn('web', 'b', 'n1'))));
    const results = await Promise.all(waiters);
    assert.ok(results.every((r) => r === results[0] && r.index === 2n));
    ac.abort();
    await done;
  });
});

describe('bursts', () => {
  test('items that arrive together are folded into one update; readers see the last index', async () => {
    const publisher = createScriptedPublisher();
    const inner = healthView({ service: 'web' });
    const sizes: number[] = [];
    const m = createMaterializer({
      source: inProcessSource(publisher),
      request: { topic: Topic.ServiceHealth, subject: { key: 'web' }, token: '', index: 0n },
      view: {
        update(events) {
          sizes.push(events.length);
          inner.update(events);
        },
        result: (i) => inner.result(i),
        reset: () => inner.reset(),
      },
      backoff: recordingBackoff(),
    });
    const ac = new AbortController();
    const done = m.run(ac.signal);
    const sub = await publisher.next();
    sub.push(eos(1));
    await m.waitFor(0n);
    for (let i = 2; i <= 51; i++) sub.push(items(i, health(i, 'register', csn('web', `s${i}`, 'n1'))));
    const r = await m.waitFor(50n);
    assert.equal(r.index, 51n);
    assert.equal(r.value.length, 50);
    assert.equal(
      sizes.reduce((a, b) => a + b, 0),
      50,
    );
    assert.ok(sizes.length - 1 < 50, `50 entries folded in ${sizes.length - 1} updates`);
    ac.abort();
    await done;
  });
});

describe('framing state machine', () => {
  function recorder() {
    const log: string[] = [];
    return {
      log,
      target: {
        update: (events: readonly unknown[], index: bigint) => log.push(`update ${events.length}@${index}`),
        reset: () => log.push('reset'),
      },
    };
  }
  const ev = (i: number) => items(i, health(i, 'register', csn('web', `s${i}`, 'n')));

  test('fresh: buffers the snapshot (batches flattened) and applies it once at EndOfSnapshot', () => {
    const r = recorder();
    const f = createFraming(0n, r.target);
    f.handle(ev(5));
    f.handle(items(5, health(5, 'register', csn('web', 'x', 'n')), health(5, 'register', csn('web', 'y', 'n'))));
    assert.deepEqual(r.log, []);
    f.handle(eos(5));
    f.handle(ev(6));
    assert.deepEqual(r.log, ['update 3@5', 'update 1@6']);
    assert.equal(f.phase, 'stream');
  });

  test('resume: live events apply straight away; NewSnapshotToFollow resets and collects a snapshot', () => {
    const r = recorder();
    const f = createFraming(5n, r.target);
    assert.equal(f.phase, 'resume');
    f.handle(ev(6));
    assert.deepEqual(r.log, ['update 1@6']);
    const g = recorder();
    const h = createFraming(5n, g.target);
    h.handle(nstf);
    h.handle(ev(8));
    h.handle(eos(8));
    assert.deepEqual(g.log, ['reset', 'update 1@8']);
  });

  test('NewSnapshotToFollow inside a snapshot starts the collection over', () => {
    const r = recorder();
    const f = createFraming(0n, r.target);
    f.handle(ev(5));
    f.handle(nstf);
    f.handle(eos(7));
    assert.deepEqual(r.log, ['reset', 'update 0@7']);
  });

  test('EndOfSnapshot outside a snapshot is a protocol error', () => {
    const r = recorder();
    const f = createFraming(5n, r.target);
    assert.throws(() => f.handle(eos(6)), /outside a snapshot/);
  });
});

describe('backoff', () => {
  test('0 first, then 200 ms doubling, capped at 60 s; reset starts over', () => {
    const b = createBackoff({ random: () => 0 });
    const delays = Array.from({ length: 12 }, () => b.next());
    assert.deepEqual(delays, [0, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 51200, 60000, 60000]);
    b.reset();
    assert.equal(b.failures, 0);
    assert.equal(b.next(), 0);
  });

  test('jitter stretches a delay by up to 100 % and never past the ceiling', () => {
    const b = createBackoff({ random: () => 0.999 });
    b.next();
    const d = b.next();
    assert.ok(d > 200 && d <= 400, `got ${d}`);
    for (let i = 0; i < 50; i++) assert.ok(b.next() <= 60_000);
  });
});
