// The hub stopped with SIGTERM and killed with SIGKILL while a real Envoy
// carries steady traffic: no request fails while it is away (Envoy keeps its
// last configuration); Envoy reconnects; on Delta the hub answers Envoy's
// initial_resource_versions with only what changed, counted on the wire by the
// hub's resources-sent counter.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hubCall, untilServedBy } from './harness';
import { CAP_MS, connected, resourcesSent, setup } from './lifecycle';
import { clientFailures, envoyFailures, openLoop, summary } from './open-loop';

test('SIGTERM and SIGKILL under steady traffic: no request fails, Envoy reconnects, Delta resends only what changed', async (t) => {
  const s = await setup([], ['delta']);
  const { envoy, port } = s.gateways[0]!;
  const traffic = openLoop(port, 'web', 50, envoy);
  try {
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      const code = await s.hub().stop(signal);
      assert.equal(code, signal === 'SIGTERM' ? 0 : 'SIGKILL');
      await envoy.until(async () => (await connected(envoy)) === 0, 'Envoy sees the hub gone', CAP_MS);
      const okBefore = traffic.counts.ok;
      await envoy.until(
        () => traffic.counts.ok >= okBefore + 20,
        'twenty requests served while the hub is away',
        CAP_MS,
      );
      const hub = await s.restart();
      // One change right after the restart: the only resource the hub may send to the reconnected Envoy.
      const next = signal === 'SIGTERM' ? s.backends[1]! : s.backends[0]!;
      await (signal === 'SIGTERM'
        ? s.register(hub, next)
        : hubCall(hub.httpUrl, 'PUT', '/v1/catalog/deregister', { Node: 'life-node', ServiceID: s.backends[1]!.name }));
      await envoy.until(async () => (await connected(envoy)) === 1, 'Envoy reconnected', CAP_MS);
      await untilServedBy(envoy, port, signal === 'SIGTERM' ? ['life-a', 'life-b'] : 'life-a', { capMs: CAP_MS });
      const sent = await resourcesSent(hub.httpUrl);
      t.diagnostic(`${signal}: resources sent by the restarted hub: ${JSON.stringify(sent)}`);
      // Wildcard CDS/LDS get their first answer empty (X-DELTA-9): zero resources.
      const nonZero = Object.fromEntries(Object.entries(sent).filter(([, n]) => n > 0));
      assert.deepEqual(
        nonZero,
        { 'delta/EDS': 1 },
        'Envoy named what it holds (initial_resource_versions): only the changed assignment goes on the wire',
      );
    }
  } finally {
    await traffic.stop();
  }
  t.diagnostic(summary('steady traffic through both restarts', traffic.counts));
  assert.equal(clientFailures(traffic.counts), 0, summary('steady traffic', traffic.counts));
  assert.equal(
    envoyFailures(traffic.counts.envoy),
    0,
    `Envoy's own counts: ${summary('steady traffic', traffic.counts)}`,
  );
  assert.equal((await envoy.rejectedUpdates()).total, 0);
});
