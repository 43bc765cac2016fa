// Blocking queries cost nothing while writes go elsewhere: a waiting catalog
// read is re-run only when an entry moved an index it is read from.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { type Answer, call, startHub } from '../helpers/hub';

let hub: Hub;
before(async () => {
  hub = await startHub({ nodeName: 'hub-cost' });
  for (let i = 0; i < 50; i++) {
    const res = await call(hub, 'PUT', '/v1/catalog/register', {
      Node: `node-${i}`,
      Address: `10.1.0.${i}`,
      Service: { ID: `svc-${i}`, Service: 'svc', Port: 80 },
      Checks: [{ CheckID: `chk-${i}`, ServiceID: `svc-${i}`, Status: 'passing' }],
    });
    assert.equal(res.status, 200, res.text);
  }
});
after(() => hub.close());

const WAITERS = 100;

/** Counts calls of one catalog read (the routes call it through the same object). */
function countCalls(name: 'nodes' | 'checksInState'): { calls: () => number; reached: (n: number) => Promise<void> } {
  const original = hub.catalog[name].bind(hub.catalog) as (...args: unknown[]) => unknown;
  let calls = 0;
  const targets: Array<[number, () => void]> = [];
  (hub.catalog as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
    calls++;
    for (const [n, resolve] of targets) if (calls >= n) resolve();
    return original(...args);
  };
  after(() => ((hub.catalog as unknown as Record<string, unknown>)[name] = original));
  return {
    calls: () => calls,
    reached: (n) => new Promise((resolve) => (calls >= n ? resolve() : targets.push([n, resolve]))),
  };
}

/** Starts WAITERS blocking queries on `url` at its current index; resolves once each has made its first read. */
async function waiters(
  url: string,
  counter: ReturnType<typeof countCalls>,
): Promise<{ index: bigint; answers: Promise<Answer[]>; answered: () => number }> {
  const first = await call(hub, 'GET', url);
  const base = counter.calls();
  let answered = 0;
  const answers = Promise.all(
    Array.from({ length: WAITERS }, () =>
      call(hub, 'GET', `${url}?index=${first.index}&wait=5m`).finally(() => answered++),
    ),
  );
  await counter.reached(base + WAITERS);
  return { index: first.index, answers, answered: () => answered };
}

/** Re-registers a service with a new port on an existing node: moves the services table, not nodes or checks. */
const unrelatedWrite = (i: number) =>
  call(hub, 'PUT', '/v1/catalog/register', {
    Node: 'node-0',
    SkipNodeUpdate: true,
    Service: { ID: 'other', Service: 'other', Port: 1000 + i },
  });

for (const [url, read, relevant] of [
  [
    '/v1/catalog/nodes',
    'nodes',
    () => call(hub, 'PUT', '/v1/catalog/register', { Node: 'node-new', Address: '10.2.0.1' }),
  ],
  [
    '/v1/health/state/any',
    'checksInState',
    () =>
      call(hub, 'PUT', '/v1/catalog/register', {
        Node: 'node-1',
        SkipNodeUpdate: true,
        Check: { CheckID: 'chk-1', ServiceID: 'svc-1', Status: 'warning' },
      }),
  ],
] as const) {
  test(`${WAITERS} waiters on ${url} are not re-run by 30 unrelated writes, and all answer the next relevant one`, async () => {
    const counter = countCalls(read);
    const w = await waiters(url, counter);
    const afterStart = counter.calls();
    for (let i = 0; i < 30; i++) assert.equal((await unrelatedWrite(i)).status, 200);
    // A full round trip through the app after the writes: had they woken the waiters, those would have re-read by now.
    await call(hub, 'GET', '/v1/status/leader');
    assert.equal(
      counter.calls() - afterStart,
      0,
      `${url} was re-read ${counter.calls() - afterStart} times by unrelated writes`,
    );
    assert.equal(w.answered(), 0);

    const write = await relevant();
    assert.equal(write.status, 200, write.text);
    const answers = await w.answers;
    assert.ok(
      answers.every((a) => a.status === 200 && a.index === write.index),
      'every waiter answered with the write index',
    );
    assert.equal(counter.calls() - afterStart, WAITERS, 'one re-read per waiter');
  });
}
