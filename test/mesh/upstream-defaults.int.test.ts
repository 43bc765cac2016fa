// What a sidecar's upstream cluster does by default, as Consul's does (docs/mesh.md
// "What a sidecar gets"), shown by real Envoys: A → A's sidecar → web's two
// sidecars. Envoy's default outlier detection is on (its detector counts an
// instance answering 5xx); critical sidecars are sent as UNHEALTHY endpoints
// and, as on Consul's clusters, panic mode is off (healthy_panic_threshold 0%):
// when every instance of web is critical A's sidecar answers 503.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type Consul from 'consul';
import type { Hub } from '../../src/hub';
import { request, startBackend, untilServedBy } from '../envoy/harness';
import type { Envoy } from '../helpers/envoy';
import { freePort, registerApp, startCallerOfWeb, startMeshHub, startSidecar } from './harness';

let hub: Hub;
let consul: Consul;
const closers: (() => Promise<unknown>)[] = [];
let envoyA: Envoy;
let upWeb: number;
let failing = true;

before(async () => {
  ({ hub, consul } = await startMeshHub());
  closers.push(
    async () => consul.destroy(),
    () => hub.close(),
  );
  const res = await hub.http.inject({
    method: 'PUT',
    url: '/v1/config',
    payload: { Kind: 'service-defaults', Name: 'web', Protocol: 'http' },
  });
  assert.equal(res.statusCode, 200, res.body);
  const ok = await startBackend('web-ok');
  // web-bad answers 500 while `failing`, else its name.
  const bad = await startBackend('web-bad', (_req, out) => {
    if (!failing) return false;
    out.statusCode = 500;
    out.end('broken');
    return true;
  });
  closers.push(
    () => ok.close(),
    () => bad.close(),
  );
  const envoys: Promise<Envoy>[] = [];
  for (const [id, app] of [
    ['web-ok', ok],
    ['web-bad', bad],
  ] as const) {
    const proxy = await registerApp(consul, { name: 'web', id, port: app.port, sidecarPort: await freePort() });
    envoys.push(startSidecar(hub, proxy, 'web-sidecar-proxy'));
  }
  upWeb = await freePort();
  envoys.push(startCallerOfWeb(hub, consul, closers, upWeb, await freePort()));
  const started = await Promise.all(envoys);
  envoyA = started[2]!;
  closers.push(...started.map((e) => () => e.stop()));
});
after(async () => {
  for (const c of closers.reverse()) await c().catch(() => undefined);
});

async function outlierStat(stat: string): Promise<number> {
  let total = 0;
  for (const [name, value] of await envoyA.stats())
    if (name.startsWith('cluster.web.') && name.endsWith(`.outlier_detection.${stat}`)) total += value;
  return total;
}

// Consul's upstream clusters carry an empty outlier_detection: Envoy's defaults, whose
// max_ejection_percent (10%) lets a host be ejected only in clusters of 10 or more
// (Envoy counts the refusal as ejections_overflow), so with two instances the proof
// is Envoy's detector firing on web-bad's 500s, as it does behind Consul.
test("outlier detection is on by default: Envoy's detector counts web-bad's consecutive 500s", async () => {
  await untilServedBy(envoyA, upWeb, 'web-ok', { count: 1 });
  await envoyA.until(
    async () => {
      await request(upWeb, '/').catch(() => undefined);
      return (await outlierStat('ejections_detected_consecutive_5xx')) > 0;
    },
    'a consecutive-5xx detection on the web cluster',
    60_000,
  );
  assert.ok((await outlierStat('ejections_overflow')) > 0, 'two hosts: over the 10% cap, as with Consul');
});

test('every web sidecar critical: sent as UNHEALTHY endpoints, and with panic mode off (as Consul) A gets 503 until one passes', async () => {
  failing = false;
  const maintenance = async (id: string, enable: boolean) => {
    const url = `/v1/agent/service/maintenance/${id}-sidecar-proxy?enable=${enable}&reason=test`;
    const res = await hub.http.inject({ method: 'PUT', url });
    assert.equal(res.statusCode, 200, res.body);
  };
  for (const id of ['web-ok', 'web-bad']) await maintenance(id, true);
  const passing = await hub.http.inject({ method: 'GET', url: '/v1/health/connect/web?passing' });
  assert.deepEqual(JSON.parse(passing.body), []);
  const membership = async () => {
    const m = { total: -1, healthy: -1 };
    for (const [name, value] of await envoyA.stats()) {
      if (/^cluster\.web\..*\.membership_total$/.test(name)) m.total = value;
      if (/^cluster\.web\..*\.membership_healthy$/.test(name)) m.healthy = value;
    }
    return m;
  };
  // Both endpoints stay in Envoy's cluster, marked unhealthy (left out, the total would be 0).
  let last = { total: -1, healthy: -1 };
  await envoyA.until(
    async () => {
      last = await membership();
      return last.total === 2 && last.healthy === 0;
    },
    () => `2 web endpoints in A's cluster, none healthy (last: ${JSON.stringify(last)})`,
    60_000,
  );
  const refused = await request(upWeb, '/');
  assert.equal(refused.status, 503, refused.body);
  assert.match(refused.body, /no healthy upstream/);
  // web-ok back: A's calls reach it again.
  await maintenance('web-ok', false);
  await untilServedBy(envoyA, upWeb, 'web-ok');
});

test("Envoy's stats carry Consul's tags: consul.destination.* on the mesh cluster, consul.upstream.* on the upstream listener", async () => {
  await untilServedBy(envoyA, upWeb, 'web-ok');
  const prom = await envoyA.admin('/stats?format=prometheus&usedonly');
  const line = (metric: string, has: string) =>
    prom.split('\n').find((l) => l.startsWith(`${metric}{`) && l.includes(has)) ?? '';
  const cluster = line('envoy_cluster_upstream_rq_total', 'consul_destination_service');
  for (const tag of [
    'consul_destination_service="web"',
    'consul_destination_namespace="default"',
    `consul_destination_datacenter="${hub.config.datacenter}"`,
    'consul_destination_routing_type="internal"',
    `consul_destination_target="web.default.${hub.config.datacenter}"`,
  ])
    assert.ok(cluster.includes(tag), `${tag} in ${cluster}`);
  const listener = line('envoy_http_downstream_rq_total', 'consul_upstream_service');
  for (const tag of [
    'consul_upstream_service="web"',
    'consul_upstream_namespace="default"',
    'consul_upstream_partition="default"',
    `consul_upstream_datacenter="${hub.config.datacenter}"`,
  ])
    assert.ok(listener.includes(tag), `${tag} in ${listener}`);
});
