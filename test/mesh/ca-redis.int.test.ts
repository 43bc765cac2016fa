// Every hub agrees on the CA: two hubs sharing one Redis log (a real
// redis-server) start at once and end with one root; leaves asked of both at
// the same moment end as one leaf, identical on both (keys and certificates
// travel in the entries; apply only checks them).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { call, startHub } from '../helpers/hub';
import { type RunningRedis, startRedis } from '../helpers/redis';

let redis: RunningRedis;
let hubs: Hub[] = [];

before(async () => {
  redis = await startRedis();
  hubs = await Promise.all(
    ['ca-a', 'ca-b'].map((nodeName) => startHub({ nodeName, store: { kind: 'redis', url: redis.url } })),
  );
});
after(async () => {
  await Promise.all(hubs.map((h) => h.close()));
  await redis?.stop();
});

test('two hubs started together on one log have one root', async () => {
  const [a, b] = await Promise.all(hubs.map(async (h) => (await call(h, 'GET', '/v1/connect/ca/roots')).json));
  assert.equal(a.Roots.length, 1);
  assert.deepEqual(a, b);
});

test('a leaf asked of both hubs at once is one leaf, the same on both', async () => {
  const answers = await Promise.all(hubs.map((h) => call(h, 'GET', '/v1/agent/connect/ca/leaf/web')));
  for (const r of answers) assert.equal(r.status, 200, r.text);
  await Promise.all(
    hubs.map((h) => h.catalog.waitForIndex(BigInt(Math.max(...answers.map((r) => Number(r.index)))) - 1n)),
  );
  const [la, lb] = hubs.map((h) => h.catalog.connectCa().leaves.get('web'));
  assert.ok(la && lb);
  assert.deepEqual(la, lb, 'both hubs hold the same leaf, private key included');
  assert.deepEqual(
    answers.map((r) => r.json.SerialNumber),
    [la!.SerialNumber, la!.SerialNumber],
  );
});
