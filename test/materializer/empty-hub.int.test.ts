// Over the real catalog and publisher: the first entry of an empty hub reaches
// readers and notify, though the publisher reports the empty snapshot at index 1
// (Consul's clamp) and the entry also has index 1.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { createCatalog } from '../../src/catalog/index';
import type { CheckServiceNode } from '../../src/catalog/types';
import { createMemoryLog } from '../../src/log/memory';
import { inProcessSource } from '../../src/materializer/sources/in-process';
import { createViewStore } from '../../src/materializer/store';
import type { ViewResult } from '../../src/materializer/types';
import { createPublisher } from '../../src/subscribe/publisher';
import { nodeInput, serviceInput } from '../catalog/fixtures';

test('the first entry of an empty hub reaches a blocking reader and notify', async () => {
  const logger = pino({ level: 'silent' });
  const catalog = await createCatalog({ log: createMemoryLog(), logger });
  const publisher = createPublisher({ catalog, snapshotCacheTtlMs: 10_000, logger });
  const store = createViewStore({ source: inProcessSource(publisher) });
  const key = { kind: 'service-health', service: 'web' } as const;
  try {
    const seen: ViewResult<readonly CheckServiceNode[]>[] = [];
    let wake: (() => void) | undefined;
    const stop = store.notify(key, '', (r) => {
      seen.push(r);
      wake?.();
    });
    const first = await store.get(key, { token: '', minIndex: 0n });
    assert.deepEqual(first.value, []);
    const waiting = store.get(key, { token: '', minIndex: first.index });
    const delivered = new Promise<void>(
      (resolve) => (wake = () => seen.some((r) => r.value.length === 1) && resolve()),
    );
    const res = await catalog.submit({
      type: 'register',
      node: nodeInput('n1'),
      service: serviceInput('web-1', 'web'),
      checks: [],
      skipNodeUpdate: false,
    });
    assert.equal(
      res.index,
      2n,
      'index 1 is the origin entry: the empty snapshot and the first change never share an index',
    );
    assert.ok(res.index > first.index, 'the first change moves the view past the empty snapshot');
    const r = await waiting;
    assert.deepEqual(
      r.value.map((c) => c.Service.ID),
      ['web-1'],
    );
    await delivered;
    stop();
  } finally {
    store.close();
    publisher.close();
    await catalog.close();
  }
});
