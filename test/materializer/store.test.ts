// The shared view store: one materializer per (key, token) shared by readers,
// reference counts, idle eviction, terminal eviction, notify and close.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Topic } from '../../src/catalog/types';
import { HubError } from '../../src/errors';
import { inProcessSource } from '../../src/materializer/sources/in-process';
import { createViewStore } from '../../src/materializer/store';
import type { ViewResult } from '../../src/materializer/types';
import { csn, eos, health, items, recordingBackoff } from './fixtures';
import { createScriptedPublisher } from './scripted-publisher';

const WEB = { kind: 'service-health', service: 'web' } as const;
const isCode = (code: string) => (e: unknown) => e instanceof HubError && e.code === code;

/**
 * Idle timers are unref'd (they must not keep a hub alive), so a test awaiting
 * one needs something else holding the event loop open meanwhile.
 */
async function holdingLoop<T>(body: () => Promise<T>): Promise<T> {
  const hold = setInterval(() => {}, 1 << 30);
  try {
    return await body();
  } finally {
    clearInterval(hold);
  }
}

function setup(idleTtlMs = 60_000) {
  const publisher = createScriptedPublisher();
  const store = createViewStore({ source: inProcessSource(publisher), idleTtlMs, backoff: recordingBackoff });
  return { publisher, store };
}

describe('view store', () => {
  test('readers of the same key and token share one subscription and one result', async () => {
    const { publisher, store } = setup();
    const g1 = store.get(WEB, { token: 't', minIndex: 0n });
    const g2 = store.get({ kind: 'service-health', service: 'web' }, { token: 't', minIndex: 0n });
    const sub = await publisher.next();
    assert.equal(sub.request.topic, Topic.ServiceHealth);
    sub.push(items(3, health(3, 'register', csn('web', 'a', 'n1'))), eos(3));
    const [r1, r2] = await Promise.all([g1, g2]);
    assert.equal(r1, r2);
    assert.equal(publisher.requests.length, 1);
    assert.equal(store.size(), 1);
    store.close();
  });

  test('a different token, filter or kind gets its own materializer; tag order does not matter', async () => {
    const { publisher, store } = setup();
    const signal = AbortSignal.abort();
    await store.get(WEB, { token: 'a', minIndex: 0n, signal });
    await store.get(WEB, { token: 'b', minIndex: 0n, signal });
    await store.get({ ...WEB, tags: ['x', 'y'] }, { token: 'a', minIndex: 0n, signal });
    await store.get({ ...WEB, tags: ['Y', 'x'] }, { token: 'a', minIndex: 0n, signal });
    await store.get({ ...WEB, passingOnly: true }, { token: 'a', minIndex: 0n, signal });
    await store.get({ ...WEB, connect: true }, { token: 'a', minIndex: 0n, signal });
    await store.get({ kind: 'service-list' }, { token: 'a', minIndex: 0n, signal });
    await store.get({ kind: 'config-entries', configKind: 'mesh' }, { token: 'a', minIndex: 0n, signal });
    await store.get({ kind: 'config-entries', configKind: 'mesh', name: 'mesh' }, { token: 'a', minIndex: 0n, signal });
    assert.equal(store.size(), 8);
    const topics = [];
    for (let i = 0; i < 8; i++) topics.push((await publisher.next()).request.topic);
    assert.deepEqual(
      topics.sort((x, y) => x - y),
      [1, 1, 1, 1, 2, 3, 3, 7],
    );
    store.close();
  });

  test('a materializer nobody holds is stopped after the idle TTL; the next reader starts afresh', async () => {
    const { publisher, store } = setup(1);
    const g = store.get(WEB, { token: 't', minIndex: 0n });
    const sub = await publisher.next();
    sub.push(items(3, health(3, 'register', csn('web', 'a', 'n1'))), eos(3));
    await g;
    await holdingLoop(() => sub.cancelled);
    assert.equal(store.size(), 0);
    const g2 = store.get(WEB, { token: 't', minIndex: 0n });
    const sub2 = await publisher.next();
    assert.equal(sub2.request.index, 0n);
    sub2.push(eos(4));
    assert.equal((await g2).index, 4n);
    store.close();
  });

  test('a held materializer is not evicted while another idle one is', async () => {
    const { publisher, store } = setup(1);
    const seen: ViewResult<unknown>[] = [];
    const stop = store.notify(WEB, 't', (r) => seen.push(r));
    const held = await publisher.next();
    const g = store.get({ kind: 'service-list' }, { token: 't', minIndex: 0n });
    const idle = await publisher.next();
    idle.push(eos(2));
    await g;
    await holdingLoop(() => idle.cancelled); // its idle timer fired
    assert.equal(store.size(), 1);
    held.push(eos(5));
    held.push(items(6, health(6, 'register', csn('web', 'a', 'n1'))));
    const r = await store.get(WEB, { token: 't', minIndex: 5n });
    assert.equal(r.index, 6n);
    assert.equal(publisher.requests.length, 2, 'the held view kept its subscription');
    stop();
    await holdingLoop(() => held.cancelled); // released: its idle timer fires
    store.close();
  });

  test('notify delivers the current result first, then each new one, until stopped', async () => {
    const { publisher, store } = setup();
    const seen: bigint[] = [];
    let wake: (() => void) | undefined;
    const stop = store.notify(WEB, 't', (r) => {
      seen.push(r.index);
      wake?.();
    });
    const next = () => new Promise<void>((resolve) => (wake = resolve));
    const sub = await publisher.next();
    let arrived = next();
    sub.push(eos(2));
    await arrived;
    arrived = next();
    sub.push(items(3, health(3, 'register', csn('web', 'a', 'n1'))));
    await arrived;
    assert.deepEqual(seen, [2n, 3n]);
    stop();
    store.close();
  });

  test('notify delivers new content even at the same index (a server that overstated its snapshot index)', async () => {
    const { publisher, store } = setup();
    const seen: [bigint, number][] = [];
    let wake: (() => void) | undefined;
    const stop = store.notify(WEB, 't', (r) => {
      seen.push([r.index, r.value.length]);
      wake?.();
    });
    const next = () => new Promise<void>((resolve) => (wake = resolve));
    const sub = await publisher.next();
    let arrived = next();
    sub.push(eos(1));
    await arrived;
    arrived = next();
    sub.push(items(1, health(1, 'register', csn('web', 'a', 'n1'))));
    await arrived;
    assert.deepEqual(seen, [
      [1n, 0],
      [1n, 1],
    ]);
    stop();
    store.close();
  });

  test('a terminal error evicts at once, fails waiting readers and notify, and the next reader retries', async () => {
    const { publisher, store } = setup();
    const g = store.get(WEB, { token: 'bad', minIndex: 0n });
    let notified: Error | undefined;
    const errored = new Promise<void>((resolve) =>
      store.notify(
        WEB,
        'bad',
        () => {},
        (err) => {
          notified = err;
          resolve();
        },
      ),
    );
    const sub = await publisher.next();
    sub.fail(new HubError('PERMISSION_DENIED', 'ACL not found'));
    await assert.rejects(g, isCode('PERMISSION_DENIED'));
    await errored;
    assert.ok(isCode('PERMISSION_DENIED')(notified));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(store.size(), 0);
    const g2 = store.get(WEB, { token: 'bad', minIndex: 0n, signal: AbortSignal.abort() });
    const sub2 = await publisher.next();
    assert.equal(sub2.request.token, 'bad');
    await g2;
    store.close();
  });

  test('a bad key is refused with INVALID_ARGUMENT and starts nothing', async () => {
    const { publisher, store } = setup();
    await assert.rejects(
      store.get({ kind: 'service-health', service: '' }, { token: '', minIndex: 0n }),
      isCode('INVALID_ARGUMENT'),
    );
    await assert.rejects(
      store.get({ kind: 'config-entries', configKind: 'nope' as 'mesh' }, { token: '', minIndex: 0n }),
      isCode('INVALID_ARGUMENT'),
    );
    assert.equal(publisher.requests.length, 0);
    assert.equal(store.size(), 0);
    store.close();
  });

  test('close fails waiting readers with SHUTTING_DOWN, cancels subscriptions, refuses new readers', async () => {
    const { publisher, store } = setup();
    const g = store.get(WEB, { token: 't', minIndex: 0n });
    const sub = await publisher.next();
    store.close();
    await assert.rejects(g, isCode('SHUTTING_DOWN'));
    await sub.cancelled;
    await assert.rejects(store.get(WEB, { token: 't', minIndex: 0n }), isCode('SHUTTING_DOWN'));
  });
});
