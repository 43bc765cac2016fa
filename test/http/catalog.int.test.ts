// /v1/catalog/*: writes, reads in Consul's shapes, headers, and bad input that changes nothing.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { call, startHub } from '../helpers/hub';

let hub: Hub;
before(async () => {
  hub = await startHub();
});
after(() => hub.close());

const web1 = {
  Node: 'node-a',
  Address: '10.0.0.1',
  NodeMeta: { rack: 'r1' },
  Service: { ID: 'web-1', Service: 'web', Tags: ['v1', 'primary'], Port: 8080, Meta: { version: '1' } },
  Checks: [{ CheckID: 'web-alive', Name: 'web alive', ServiceID: 'web-1', Status: 'passing' }],
};

test('register answers true with the write index; reads carry Consul headers', async () => {
  const res = await call(hub, 'PUT', '/v1/catalog/register', web1);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json, true);
  assert.ok(res.index > 0n);
  assert.equal(res.index, hub.catalog.lastIndex());
  assert.equal(res.headers['x-consul-knownleader'], 'true');
  assert.equal(res.headers['x-consul-lastcontact'], '0');

  const services = await call(hub, 'GET', '/v1/catalog/services');
  assert.deepEqual(services.json.web.sort(), ['primary', 'v1']);
  assert.ok(services.index > 0n);
});

test('catalog service returns flattened ServiceNodes, filtered by ?tag', async () => {
  await call(hub, 'PUT', '/v1/catalog/register', {
    Node: 'node-b',
    Address: '10.0.0.2',
    Service: { ID: 'web-2', Service: 'web', Tags: ['v2'], Port: 8081 },
  });
  const all = await call(hub, 'GET', '/v1/catalog/service/web');
  assert.equal(all.status, 200);
  assert.deepEqual(
    all.json.map((s: any) => s.ServiceID),
    ['web-1', 'web-2'],
  );
  const first = all.json[0];
  assert.equal(first.Node, 'node-a');
  assert.equal(first.Address, '10.0.0.1');
  assert.equal(first.Datacenter, 'dc1');
  assert.deepEqual(first.NodeMeta, { rack: 'r1' });
  assert.equal(first.ServiceName, 'web');
  assert.equal(first.ServicePort, 8080);
  assert.deepEqual(first.ServiceMeta, { version: '1' });
  assert.deepEqual(first.ServiceWeights, { Passing: 1, Warning: 1 });
  assert.equal(typeof first.CreateIndex, 'number');
  const tagged = await call(hub, 'GET', '/v1/catalog/service/web?tag=v2');
  assert.deepEqual(
    tagged.json.map((s: any) => s.ServiceID),
    ['web-2'],
  );
  const both = await call(hub, 'GET', '/v1/catalog/service/web?tag=v1&tag=primary');
  assert.deepEqual(
    both.json.map((s: any) => s.ServiceID),
    ['web-1'],
  );
  const none = await call(hub, 'GET', '/v1/catalog/service/nothing');
  assert.deepEqual(none.json, []);
});

test('catalog nodes and node', async () => {
  const nodes = await call(hub, 'GET', '/v1/catalog/nodes');
  // The hub's own node is there from the start, as a Consul agent's is.
  assert.deepEqual(
    nodes.json.map((n: any) => n.Node),
    ['hub-test', 'node-a', 'node-b'],
  );
  const node = await call(hub, 'GET', '/v1/catalog/node/node-a');
  assert.equal(node.json.Node.Address, '10.0.0.1');
  assert.equal(node.json.Services['web-1'].Service, 'web');
  const missing = await call(hub, 'GET', '/v1/catalog/node/nope');
  assert.equal(missing.status, 200);
  assert.equal(missing.json, null);
});

test('deregister a service, then the node', async () => {
  await call(hub, 'PUT', '/v1/catalog/register', {
    Node: 'node-c',
    Address: '10.0.0.3',
    Service: { Service: 'cache', Port: 6379 },
  });
  let res = await call(hub, 'PUT', '/v1/catalog/deregister', { Node: 'node-c', ServiceID: 'cache' });
  assert.equal(res.status, 200);
  assert.equal(res.json, true);
  assert.deepEqual((await call(hub, 'GET', '/v1/catalog/service/cache')).json, []);
  res = await call(hub, 'PUT', '/v1/catalog/deregister', { Node: 'node-c' });
  assert.equal(res.status, 200);
  assert.equal((await call(hub, 'GET', '/v1/catalog/node/node-c')).json, null);
});

test('bad input: 400 naming the field, and nothing changes', async () => {
  const before = hub.catalog.lastIndex();
  const snapshot = (await call(hub, 'GET', '/v1/catalog/nodes')).text;
  const cases: Array<[unknown, string]> = [
    [{ Address: '1.2.3.4' }, 'Node: is required'],
    [
      { Node: 'x', Address: '1.2.3.4', Service: { Service: 'web', Port: 'eighty' } },
      'Service.Port: must be an integer',
    ],
    [{ Node: 'x', Address: '1.2.3.4', Service: { Service: 'web', Kind: 'sidecar' } }, 'Service.Kind: must be one of'],
    [{ Node: 'x', Address: '1.2.3.4', Checks: [{ Name: 'c', Status: 'ok' }] }, 'Checks[0].Status: must be one of'],
    ['{"Node": ', 'body: Request decoding failed'],
    [[], 'body: must be a JSON object'],
  ];
  for (const [body, message] of cases) {
    const res = await call(hub, 'PUT', '/v1/catalog/register', body);
    assert.equal(res.status, 400, res.text);
    assert.ok(res.text.startsWith(message), `${res.text} should start with ${message}`);
  }
  const dereg = await call(hub, 'PUT', '/v1/catalog/deregister', { ServiceID: 'web-1' });
  assert.equal(dereg.status, 400);
  assert.match(dereg.text, /^Node: is required/);
  assert.equal(hub.catalog.lastIndex(), before);
  assert.equal((await call(hub, 'GET', '/v1/catalog/nodes')).text, snapshot);
});

test('a check for an unknown service is refused by apply and changes nothing', async () => {
  const before = (await call(hub, 'GET', '/v1/health/node/node-a')).json;
  const res = await call(hub, 'PUT', '/v1/catalog/register', {
    Node: 'node-a',
    Address: '10.0.0.1',
    SkipNodeUpdate: true,
    Check: { CheckID: 'ghost', ServiceID: 'no-such-service' },
  });
  assert.ok(res.status >= 400 && res.status < 500, `${res.status} ${res.text}`);
  assert.deepEqual((await call(hub, 'GET', '/v1/health/node/node-a')).json, before);
});

test('curl-style bodies (form content type, no content type) are read as JSON', async () => {
  const res = await hub.http.inject({
    method: 'PUT',
    url: '/v1/catalog/register',
    payload: JSON.stringify({ Node: 'node-curl', Address: '10.0.0.9' }),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.equal(res.statusCode, 200, res.body);
  const none = await hub.http.inject({
    method: 'PUT',
    url: '/v1/catalog/deregister',
    payload: JSON.stringify({ Node: 'node-curl' }),
  });
  assert.equal(none.statusCode, 200, none.body);
});
