// /v1/status/* answers Consul clients accept; /metrics is Prometheus text with the hub's own figures.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { call, startHub } from '../helpers/hub';

let hub: Hub;
before(async () => {
  hub = await startHub();
});
after(() => hub.close());

test('leader is the hub itself as "host:port"; peers lists it', async () => {
  const leader = await call(hub, 'GET', '/v1/status/leader');
  assert.equal(leader.status, 200);
  assert.equal(leader.json, `127.0.0.1:${hub.grpcPort}`);
  const peers = await call(hub, 'GET', '/v1/status/peers');
  assert.deepEqual(peers.json, [leader.json]);
  assert.ok(leader.headers['x-consul-index'] !== undefined);
});

test('metrics: writes by command, write latency, last index, requests by route', async () => {
  await call(hub, 'PUT', '/v1/catalog/register', { Node: 'm1', Address: '10.0.0.1' });
  await call(hub, 'PUT', '/v1/config', { Kind: 'service-defaults', Name: 'm', Protocol: 'tcp' });
  const res = await hub.http.inject({ method: 'GET', url: '/metrics' });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^text\/plain/);
  const text = res.body;
  assert.match(text, /xdshub_catalog_writes_total\{type="register",outcome="ok"\} 1/);
  assert.match(text, /xdshub_catalog_writes_total\{type="config-set",outcome="ok"\} 1/);
  assert.match(text, /xdshub_catalog_write_seconds_count\{type="register"\} 1/);
  assert.match(text, new RegExp(`xdshub_log_last_index ${hub.catalog.lastIndex()}`));
  assert.match(text, /xdshub_http_requests_total\{method="PUT",route="\/v1\/catalog\/register",status="200"\} 1/);
  assert.match(text, /xdshub_process_cpu_user_seconds_total/);
});

test('unserved endpoints are 501 naming the endpoint, and still carry the Consul headers', async () => {
  const res = await call(hub, 'GET', '/v1/coordinate/nodes');
  assert.equal(res.status, 501);
  assert.match(res.text, /^GET \/v1\/coordinate\/nodes: this endpoint is not served by this hub/);
  assert.equal(res.headers['x-consul-knownleader'], 'true');
});
