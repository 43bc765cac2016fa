// The catalog, health and agent reads Consul clients call beyond the basics:
// datacenters, node-services, Connect and gateway views, agent members and the
// agent's aggregated service health — shapes, status codes and blocking.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { call, startHub } from '../helpers/hub';

let hub: Hub;

async function ok(method: string, url: string, body?: unknown) {
  const res = await call(hub, method, url, body);
  assert.equal(res.status, 200, `${method} ${url}: ${res.text}`);
  return res;
}

before(async () => {
  hub = await startHub({ nodeName: 'hub-node', datacenter: 'dc7' });
  await ok('PUT', '/v1/catalog/register', {
    Node: 'n1',
    Address: '10.0.0.1',
    Service: { ID: 'api-1', Service: 'api', Port: 9000 },
  });
  await ok('PUT', '/v1/catalog/register', {
    Node: 'n1',
    Address: '10.0.0.1',
    Service: {
      ID: 'api-1-proxy',
      Service: 'api-sidecar-proxy',
      Kind: 'connect-proxy',
      Port: 21000,
      Proxy: { DestinationServiceName: 'api' },
    },
  });
  await ok('PUT', '/v1/catalog/register', {
    Node: 'n2',
    Address: '10.0.0.2',
    Service: { ID: 'native-1', Service: 'api', Port: 9001, Connect: { Native: true } },
  });
  await ok('PUT', '/v1/catalog/register', {
    Node: 'gw',
    Address: '10.0.0.9',
    Service: { ID: 'ingress-1', Service: 'ingress', Kind: 'ingress-gateway', Port: 8443 },
    Checks: [{ CheckID: 'gw-alive', Name: 'alive', ServiceID: 'ingress-1', Status: 'passing' }],
  });
  await ok('PUT', '/v1/config', {
    Kind: 'ingress-gateway',
    Name: 'ingress',
    Listeners: [
      { Port: 8080, Protocol: 'http', Services: [{ Name: 'api', Hosts: ['api.example'] }] },
      { Port: 9090, Protocol: 'tcp', Services: [{ Name: 'db' }] },
    ],
  });
});
after(() => hub.close());

test('GET /v1/catalog/datacenters lists the hub’s one datacenter', async () => {
  assert.deepEqual((await ok('GET', '/v1/catalog/datacenters')).json, ['dc7']);
});

test('GET /v1/catalog/node-services/:node: the node and its services as a list; unknown node is null/null', async () => {
  const res = await ok('GET', '/v1/catalog/node-services/n1');
  assert.equal(res.json.Node.Node, 'n1');
  assert.deepEqual(
    res.json.Services.map((s: any) => s.ID),
    ['api-1', 'api-1-proxy'],
  );
  assert.equal(res.json.Services[0].Port, 9000);
  assert.deepEqual((await ok('GET', '/v1/catalog/node-services/nobody')).json, { Node: null, Services: null });
  // Blocking: a change to the node answers.
  const waiting = call(hub, 'GET', `/v1/catalog/node-services/n1?index=${res.index}&wait=30s`);
  await ok('PUT', '/v1/catalog/register', {
    Node: 'n1',
    Address: '10.0.0.1',
    Service: { ID: 'api-2', Service: 'api', Port: 9002 },
  });
  assert.deepEqual(
    (await waiting).json.Services.map((s: any) => s.ID),
    ['api-1', 'api-1-proxy', 'api-2'],
  );
  await ok('PUT', '/v1/catalog/deregister', { Node: 'n1', ServiceID: 'api-2' });
});

test('GET /v1/catalog/connect/:s and /v1/health/connect/:s: proxies for the service and Connect-native instances', async () => {
  const catalog = await ok('GET', '/v1/catalog/connect/api');
  assert.deepEqual(catalog.json.map((s: any) => s.ServiceID).sort(), ['api-1-proxy', 'native-1']);
  assert.equal(catalog.json.find((s: any) => s.ServiceID === 'api-1-proxy').ServiceProxy.DestinationServiceName, 'api');
  const health = await ok('GET', '/v1/health/connect/api');
  assert.deepEqual(health.json.map((c: any) => c.Service.ID).sort(), ['api-1-proxy', 'native-1']);
  assert.deepEqual((await ok('GET', '/v1/health/connect/nothing')).json, []);
  const bad = await call(hub, 'GET', `/v1/health/connect/api?filter=${encodeURIComponent('Service.Kind ==')}`);
  assert.equal(bad.status, 400);
});

test('GET /v1/catalog/gateway-services/:gw: what the ingress gateway exposes, per listener', async () => {
  const res = await ok('GET', '/v1/catalog/gateway-services/ingress');
  assert.deepEqual(
    res.json.map((g: any) => [g.Gateway.Name, g.Service.Name, g.GatewayKind, g.Port, g.Protocol, g.Hosts]),
    [
      ['ingress', 'api', 'ingress-gateway', 8080, 'http', ['api.example']],
      ['ingress', 'db', 'ingress-gateway', 9090, 'tcp', null],
    ],
  );
  assert.deepEqual((await ok('GET', '/v1/catalog/gateway-services/none')).json, []);
});

test('GET /v1/health/ingress/:s: the gateway instances that expose the service', async () => {
  const res = await ok('GET', '/v1/health/ingress/api');
  assert.deepEqual(
    res.json.map((c: any) => [c.Node.Node, c.Service.ID, c.Checks.map((k: any) => k.CheckID)]),
    [['gw', 'ingress-1', ['gw-alive']]],
  );
  assert.deepEqual((await ok('GET', '/v1/health/ingress/unexposed')).json, []);
  const bad = await call(hub, 'GET', `/v1/health/ingress/api?filter=${encodeURIComponent('Checks.Nope == 1')}`);
  assert.equal(bad.status, 400);
  assert.equal(bad.text, 'Failed to create boolean expression evaluator: Selector "Checks.Nope" is not valid');
});

test('GET /v1/agent/members: the hub as the one alive member (LAN, or WAN with ?wan)', async () => {
  const lan = await ok('GET', '/v1/agent/members');
  assert.equal(lan.json.length, 1);
  assert.equal(lan.json[0].Name, 'hub-node');
  assert.equal(lan.json[0].Status, 1);
  assert.equal(lan.json[0].Tags.dc, 'dc7');
  assert.equal((await ok('GET', '/v1/agent/members?wan=1')).json[0].Name, 'hub-node.dc7');
});

test('GET /v1/agent/health/service/id|name: 200 passing, 429 warning, 503 critical, 404 unknown; ?format=text', async () => {
  await ok('PUT', '/v1/agent/service/register', {
    Name: 'pay',
    ID: 'pay-1',
    Port: 7001,
    Check: { TTL: '10m', Status: 'passing' },
  });
  await ok('PUT', '/v1/agent/service/register', {
    Name: 'pay',
    ID: 'pay-2',
    Port: 7002,
    Check: { TTL: '10m', Status: 'passing' },
  });
  let res = await call(hub, 'GET', '/v1/agent/health/service/id/pay-1');
  assert.equal(res.status, 200);
  assert.equal(res.json.AggregatedStatus, 'passing');
  assert.equal(res.json.Service.ID, 'pay-1');
  assert.deepEqual(
    res.json.Checks.map((c: any) => c.CheckID),
    ['service:pay-1'],
  );

  await ok('PUT', '/v1/agent/check/warn/service:pay-2');
  res = await call(hub, 'GET', '/v1/agent/health/service/name/pay');
  assert.equal(res.status, 429);
  assert.deepEqual(
    res.json.map((i: any) => i.AggregatedStatus),
    ['passing', 'warning'],
  );
  await ok('PUT', '/v1/agent/check/fail/service:pay-1');
  res = await call(hub, 'GET', '/v1/agent/health/service/name/pay?format=text');
  assert.equal(res.status, 503);
  assert.equal(res.text, 'critical');
  res = await call(hub, 'GET', '/v1/agent/health/service/id/pay-2?format=text');
  assert.equal(res.status, 429);
  assert.equal(res.text, 'warning');

  res = await call(hub, 'GET', '/v1/agent/health/service/id/nope');
  assert.equal(res.status, 404);
  assert.deepEqual(res.json, { AggregatedStatus: 'critical', Service: null, Checks: null });
  res = await call(hub, 'GET', '/v1/agent/health/service/name/nope?format=text');
  assert.equal(res.status, 404);
  assert.equal(res.text, 'ServiceName nope Not Found');
});

test("an empty name in the path is a 400 with Consul's text", async () => {
  const cases: Array<[string, string, string]> = [
    ['GET', '/v1/catalog/service/', 'Missing service name'],
    ['GET', '/v1/catalog/connect/', 'Missing service name'],
    ['GET', '/v1/catalog/node/', 'Missing node name'],
    ['GET', '/v1/catalog/node-services/', 'Missing node name'],
    ['GET', '/v1/catalog/gateway-services/', 'Missing gateway name'],
    ['GET', '/v1/health/service/', 'Missing service name'],
    ['GET', '/v1/health/connect/', 'Missing service name'],
    ['GET', '/v1/health/ingress/', 'Missing service name'],
    ['GET', '/v1/health/checks/', 'Missing service name'],
    ['GET', '/v1/health/node/', 'Missing node name'],
    ['GET', '/v1/agent/health/service/id/', 'Missing serviceID'],
    ['GET', '/v1/agent/health/service/name/', 'Missing service Name'],
    ['PUT', '/v1/agent/service/maintenance/?enable=true', 'Missing service ID'],
  ];
  for (const [method, url, text] of cases) {
    const res = await call(hub, method, url);
    assert.deepEqual([res.status, res.text], [400, text], `${method} ${url}`);
  }
});
