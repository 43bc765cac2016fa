// Critical instances are sent as UNHEALTHY endpoints, as Consul sends them, not
// left out: a real Envoy routes around them while enough of the service is
// healthy, and when every instance is critical its panic mode (healthy_panic_threshold,
// 50% by default) still routes to them instead of answering 503 (docs/xds.md,
// "ClusterLoadAssignment").

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import {
  type Backend,
  freePort,
  hubCall,
  hubNacks,
  startBackend,
  startGateway,
  startHubWithXds,
  untilServedBy,
} from './harness';

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

test('critical instances are UNHEALTHY endpoints: skipped while others pass, routed to in panic when all fail', async () => {
  const hub = await startHubWithXds();
  cleanups.push(() => hub.close());
  const backends: Backend[] = [];
  for (const name of ['panic-a', 'panic-b']) backends.push(await startBackend(name));
  cleanups.push(() => Promise.all(backends.map((b) => b.close())));
  const [a, b] = backends as [Backend, Backend];
  for (const backend of backends) {
    await hubCall(hub.httpUrl, 'PUT', '/v1/agent/service/register', {
      ID: backend.name,
      Name: 'web',
      Address: '127.0.0.1',
      Port: backend.port,
      Check: { CheckID: `${backend.name}-check`, TTL: '10m', Status: 'passing' },
    });
  }
  const port = await freePort();
  await hubCall(hub.httpUrl, 'PUT', '/v1/config', {
    Kind: 'ingress-gateway',
    Name: 'edge',
    Listeners: [{ Port: port, Protocol: 'http', Services: [{ Name: 'web', Hosts: ['*'] }] }],
  });
  const envoy = await startGateway(hub, 'delta-ads', 'edge');
  cleanups.push(() => envoy.stop());
  await untilServedBy(envoy, port, [a.name, b.name]);

  // b critical: one of two healthy (50%, not below the threshold), so Envoy skips b.
  await hubCall(hub.httpUrl, 'PUT', `/v1/agent/check/fail/${b.name}-check`);
  await untilServedBy(envoy, port, a.name);

  // a critical too: nothing passes (Consul's ?passing is empty), yet Envoy's panic mode routes to both.
  await hubCall(hub.httpUrl, 'PUT', `/v1/agent/check/fail/${a.name}-check`);
  const passing = (await hubCall(hub.httpUrl, 'GET', '/v1/health/service/web?passing')) as unknown[];
  assert.equal(passing.length, 0);
  await untilServedBy(envoy, port, [a.name, b.name]);
  const panics = [...(await envoy.stats())].filter(([k]) => /^cluster\.web.*\.lb_healthy_panic$/.test(k));
  assert.ok(
    panics.some(([, v]) => Number(v) > 0),
    `Envoy counted panic-mode picks: ${JSON.stringify(panics)}`,
  );
  assert.equal(await hubNacks(hub), 0);
  assert.equal((await envoy.rejectedUpdates()).total, 0);
});
