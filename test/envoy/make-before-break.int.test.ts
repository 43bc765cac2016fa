// Make-before-break under load (short runs; bench/envoy-load.ts runs them
// long): 200 requests/s, open loop, through a real Envoy while a route moves,
// a service leaves a route and is deleted, half the endpoints churn every
// 100 ms, and a splitter ramps from 0 to 100. Zero 5xx and zero connection
// errors in each, as the client saw them and as Envoy counted them; the counts
// are printed.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type MbbWorld, mbbWorld, SCENARIOS } from './mbb-scenarios';
import { clientFailures, envoyFailures, summary } from './open-loop';

const OPTIONS = { rate: 200, churnMs: 3_000, stepMs: 250 };
let world: MbbWorld;
before(async () => {
  world = await mbbWorld();
});
after(async () => {
  await world?.close();
});

for (const [name, scenario] of Object.entries(SCENARIOS)) {
  test(`make-before-break at ${OPTIONS.rate} req/s: ${name} — no 5xx, no connection error`, async (t) => {
    const counts = await scenario(world, OPTIONS);
    t.diagnostic(summary(name, counts));
    assert.ok(counts.sent >= OPTIONS.rate / 2, `the load ran (${counts.sent} requests)`);
    assert.equal(clientFailures(counts), 0, summary(name, counts));
    assert.equal(envoyFailures(counts.envoy), 0, `Envoy's own counts: ${summary(name, counts)}`);
    assert.ok(Object.keys(counts.by).length >= 2, `traffic moved between backends: ${JSON.stringify(counts.by)}`);
  });
}

test('no update was rejected by Envoy during the runs', async () => {
  assert.equal((await world.envoy.rejectedUpdates()).total, 0);
});
