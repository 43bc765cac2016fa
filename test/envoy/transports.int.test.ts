// A real Envoy as an ingress gateway in front of plain HTTP backends registered
// through the hub's HTTP API, once per transport Envoy can use: Delta ADS, SotW
// ADS, per-type Delta and SotW gRPC streams, and REST polling. For each:
// traffic reaches the backend; a new instance, a TTL check expiring (and
// passing again) and a deregistration each move traffic; Envoy rejected no
// update and the hub saw no NACK; Envoy's /config_dump holds what the hub's
// GET /v1/xds/config/:node says the node gets.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Hub } from '../../src/hub';
import type { Envoy } from '../helpers/envoy';
import { letTimePass } from '../helpers/until';
import { assertConfigDumpAgrees } from './config-dump';
import {
  type Backend,
  freePort,
  hubCall,
  hubNacks,
  startBackend,
  startGateway,
  startHubWithXds,
  TRANSPORTS,
  type Transport,
  untilServedBy,
} from './harness';

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

/** Heartbeats a TTL check until stopped (TTL checks turn critical unless passed more often than their TTL). */
function heartbeat(hub: Hub, checkId: string, everyMs: number): () => void {
  let on = true;
  void (async () => {
    while (on) {
      await hubCall(hub.httpUrl, 'PUT', `/v1/agent/check/pass/${checkId}`).catch(() => undefined);
      await letTimePass(everyMs, 'a heartbeat period, shorter than the TTL');
    }
  })();
  return () => (on = false);
}

async function transportScenario(transport: Transport): Promise<{ hub: Hub; envoy: Envoy; port: number }> {
  const hub = await startHubWithXds();
  cleanups.push(() => hub.close());
  const backends: Backend[] = [];
  for (const name of ['a', 'b']) backends.push(await startBackend(`${transport}-${name}`));
  cleanups.push(() => Promise.all(backends.map((b) => b.close())));
  const [a, b] = backends as [Backend, Backend];
  const register = (backend: Backend, check: Record<string, unknown>) =>
    hubCall(hub.httpUrl, 'PUT', '/v1/agent/service/register', {
      ID: backend.name,
      Name: 'web',
      Address: '127.0.0.1',
      Port: backend.port,
      Check: { CheckID: `${backend.name}-check`, ...check },
    });

  const port = await freePort();
  await hubCall(hub.httpUrl, 'PUT', '/v1/config', {
    Kind: 'ingress-gateway',
    Name: 'edge',
    Listeners: [{ Port: port, Protocol: 'http', Services: [{ Name: 'web', Hosts: ['*'] }] }],
  });
  await register(a, { TTL: '10m', Status: 'passing' });
  const envoy = await startGateway(hub, transport, 'edge');
  cleanups.push(() => envoy.stop());

  await untilServedBy(envoy, port, a.name);
  // A new instance with a short TTL check, kept passing: traffic spreads to both.
  await register(b, { TTL: '1500ms', Status: 'passing' });
  let stopBeat = heartbeat(hub, `${b.name}-check`, 300);
  await untilServedBy(envoy, port, [a.name, b.name]);
  // The heartbeats stop: the TTL expires, b turns critical, traffic leaves it.
  stopBeat();
  await untilServedBy(envoy, port, a.name);
  // Passing again: back in.
  stopBeat = heartbeat(hub, `${b.name}-check`, 300);
  await untilServedBy(envoy, port, [a.name, b.name]);
  // a is deregistered: b alone.
  const beforeDeregister = performance.timeOrigin + performance.now();
  await hubCall(hub.httpUrl, 'PUT', `/v1/agent/service/deregister/${a.name}`);
  await untilServedBy(envoy, port, b.name);
  if (transport !== 'rest') {
    // The admin view stamps the response that carried the change (bench/envoy reads it for the hub's share).
    const clients = (await hubCall(hub.httpUrl, 'GET', '/v1/xds/clients')) as {
      node: { id: string } | null;
      types: { type: string; lastPushAtMs: number | null }[];
    }[];
    const eds = clients
      .filter((c) => c.node?.id === envoy.id)
      .flatMap((c) => c.types)
      .find((t) => t.type === 'EDS');
    assert.ok(
      eds?.lastPushAtMs !== undefined && eds.lastPushAtMs !== null && eds.lastPushAtMs >= beforeDeregister,
      `EDS lastPushAtMs ${eds?.lastPushAtMs} after the write at ${beforeDeregister}`,
    );
  }
  stopBeat();

  const rejected = await envoy.rejectedUpdates();
  assert.equal(
    rejected.total,
    0,
    `Envoy rejected updates: ${JSON.stringify(rejected.by)}\n${envoy
      .log()
      .split('\n')
      .filter((l) => /rejected/.test(l))
      .join('\n')}`,
  );
  assert.ok(
    Object.keys(rejected.by).length >= 3,
    `the update_rejected counters exist (CDS, LDS, RDS, EDS): ${JSON.stringify(rejected.by)}`,
  );
  assert.equal(await hubNacks(hub), 0, 'the hub recorded no NACK');
  return { hub, envoy, port };
}

for (const transport of TRANSPORTS) {
  test(`${transport}: Envoy routes to registered backends and follows a new instance, a TTL expiry and a deregistration; its config dump is what the hub says`, async () => {
    const { hub, envoy } = await transportScenario(transport);
    await assertConfigDumpAgrees(envoy, hub.httpUrl, 'edge');
  });
}

test('X-DELTA-9: a new Delta Envoy on a hub with no service is answered at once and reports ready (no 15 s initial fetch timeout)', async () => {
  const hub = await startHubWithXds();
  cleanups.push(() => hub.close());
  // startGateway waits for /ready (LIVE): Envoy is LIVE only once CDS and LDS have been answered or timed out.
  const envoy = await startGateway(hub, 'delta-ads', 'empty-gw');
  cleanups.push(() => envoy.stop());
  const stats = await envoy.stats();
  assert.equal(
    stats.get('cluster_manager.cds.init_fetch_timeout') ?? 0,
    0,
    'CDS did not wait out its initial fetch timeout',
  );
  assert.equal(
    stats.get('listener_manager.lds.init_fetch_timeout') ?? 0,
    0,
    'LDS did not wait out its initial fetch timeout',
  );
  assert.ok((stats.get('cluster_manager.cds.update_success') ?? 0) >= 1, 'CDS got its (empty) first answer');
});
