// ?filter, ?node-meta and ?near on every endpoint that takes them: each one
// narrows what it should and answers a bad filter with Consul's 400; a
// filtered blocking query answers only when what passes the filter changes.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { call, startHub } from '../helpers/hub';

let hub: Hub;
const BAD = 'Failed to create boolean expression evaluator: ';

async function ok(method: string, url: string, body?: unknown) {
  const res = await call(hub, method, url, body);
  assert.equal(res.status, 200, `${method} ${url}: ${res.text}`);
  return res;
}

before(async () => {
  hub = await startHub({ nodeName: 'hub-node' });
  const reg = (node: string, meta: Record<string, string>, id: string, port: number, tags: string[], status: string) =>
    ok('PUT', '/v1/catalog/register', {
      Node: node,
      Address: `10.0.0.${port - 8000}`,
      NodeMeta: meta,
      Service: { ID: id, Service: 'web', Port: port, Tags: tags, Meta: { version: tags[0] ?? '' } },
      Checks: [{ CheckID: `${id}-check`, Name: 'web check', ServiceID: id, Status: status }],
    });
  await reg('n1', { env: 'prod', rack: 'a' }, 'web-1', 8001, ['v1'], 'passing');
  await reg('n2', { env: 'prod', rack: 'b' }, 'web-2', 8002, ['v2'], 'critical');
  await reg('n3', { env: 'dev' }, 'web-3', 8003, [], 'passing');
  await ok('PUT', '/v1/agent/service/register', {
    Name: 'web',
    ID: 'web-agent',
    Port: 8009,
    Tags: ['v1'],
    Check: { TTL: '10m', Status: 'passing' },
  });
  await ok('PUT', '/v1/agent/service/register', { Name: 'db', ID: 'db-1', Port: 5432 });
});
after(() => hub.close());

const ids = (res: { json: any[] }, pick: (x: any) => string) => res.json.map(pick);

test('/v1/health/service: ?filter on Node, Service and Checks; the issue example excludes port 8001', async () => {
  const res = await ok('GET', `/v1/health/service/web?filter=${encodeURIComponent('Service.Port == 8001')}`);
  assert.deepEqual(
    ids(res, (c) => c.Service.ID),
    ['web-1'],
  );
  assert.equal(res.headers['x-consul-query-backend'], 'streaming');
  const not = await ok('GET', `/v1/health/service/web?filter=${encodeURIComponent('Service.Port != 8001')}`);
  assert.deepEqual(ids(not, (c) => c.Service.ID).sort(), ['web-2', 'web-3', 'web-agent']);
  const checks = await ok('GET', `/v1/health/service/web?filter=${encodeURIComponent('Checks.Status == critical')}`);
  assert.deepEqual(
    ids(checks, (c) => c.Service.ID),
    ['web-2'],
  );
  const meta = await ok(
    'GET',
    `/v1/health/service/web?filter=${encodeURIComponent('Node.Meta.env == prod and v1 in Service.Tags')}`,
  );
  assert.deepEqual(
    ids(meta, (c) => c.Service.ID),
    ['web-1'],
  );
  // Combined with ?passing and ?tag.
  const passing = await ok(
    'GET',
    `/v1/health/service/web?passing&tag=v1&filter=${encodeURIComponent('Node.Node != n1')}`,
  );
  assert.deepEqual(
    ids(passing, (c) => c.Service.ID),
    ['web-agent'],
  );
  const bad = await call(hub, 'GET', `/v1/health/service/web?filter=${encodeURIComponent('Service.Prot == 80')}`);
  assert.equal(bad.status, 400);
  assert.equal(bad.text, `${BAD}Selector "Service.Prot" is not valid`);
  // An empty filter is no filter, as in Consul.
  assert.equal((await ok('GET', '/v1/health/service/web?filter=')).json.length, 4);
});

test('/v1/catalog/service: ServiceNode fields; /v1/catalog/services lists services with a passing instance', async () => {
  const res = await ok(
    'GET',
    `/v1/catalog/service/web?filter=${encodeURIComponent('NodeMeta.rack == b or ServiceTags is empty')}`,
  );
  assert.deepEqual(
    ids(res, (s) => s.ServiceID),
    ['web-2', 'web-3'],
  );
  const bad = await call(hub, 'GET', `/v1/catalog/service/web?filter=${encodeURIComponent('Service.Port == 1')}`);
  assert.equal(bad.status, 400);
  assert.equal(bad.text, `${BAD}Selector "Service" is not valid`);

  const services = await ok('GET', `/v1/catalog/services?filter=${encodeURIComponent('ServicePort == 5432')}`);
  assert.deepEqual(services.json, { db: [] });
  const tagged = await ok('GET', `/v1/catalog/services?filter=${encodeURIComponent('v2 in ServiceTags')}`);
  assert.deepEqual(tagged.json, { web: ['v2'] });
  const badServices = await call(
    hub,
    'GET',
    `/v1/catalog/services?filter=${encodeURIComponent('ServicePort matches 1')}`,
  );
  assert.equal(badServices.status, 400);
  assert.equal(badServices.text, `${BAD}Invalid match operator "Matches" for selector "ServicePort"`);
});

test('/v1/catalog/nodes, /node/:n and /node-services/:n', async () => {
  const nodes = await ok('GET', `/v1/catalog/nodes?filter=${encodeURIComponent('Meta.env == prod')}`);
  assert.deepEqual(
    ids(nodes, (n) => n.Node),
    ['n1', 'n2'],
  );
  const badNodes = await call(hub, 'GET', `/v1/catalog/nodes?filter=${encodeURIComponent('Node.Meta.env == prod')}`);
  assert.equal(badNodes.status, 400);
  assert.equal(badNodes.text, `${BAD}Selector "Node.Meta" is not valid`);

  const node = await ok('GET', `/v1/catalog/node/hub-node?filter=${encodeURIComponent('Service == db')}`);
  assert.deepEqual(Object.keys(node.json.Services), ['db-1']);
});

test('node services filters: ?filter on NodeService fields, 400 on a bad one', async () => {
  const list = await ok('GET', `/v1/catalog/node-services/hub-node?filter=${encodeURIComponent('Port == 8009')}`);
  assert.deepEqual(
    list.json.Services.map((s: any) => s.ID),
    ['web-agent'],
  );
  const bad = await call(hub, 'GET', `/v1/catalog/node-services/hub-node?filter=${encodeURIComponent('Port == "x"')}`);
  assert.equal(bad.status, 400);
  assert.match(bad.text, /Failed to coerce value "x" for selector "Port"/);
  const badNode = await call(hub, 'GET', `/v1/catalog/node/hub-node?filter=${encodeURIComponent('Port ===')}`);
  assert.equal(badNode.status, 400);
  assert.ok(badNode.text.startsWith(`${BAD}1:8 (7): no match found`), badNode.text);
});

test('/v1/health/checks, /node and /state filter HealthCheck fields', async () => {
  const checks = await ok(
    'GET',
    `/v1/health/checks/web?filter=${encodeURIComponent('Status == passing and Node != "hub-node"')}`,
  );
  assert.deepEqual(ids(checks, (c) => c.CheckID).sort(), ['web-1-check', 'web-3-check']);
  const node = await ok('GET', `/v1/health/node/n2?filter=${encodeURIComponent('ServiceName == web')}`);
  assert.deepEqual(
    ids(node, (c) => c.CheckID),
    ['web-2-check'],
  );
  const state = await ok('GET', `/v1/health/state/any?filter=${encodeURIComponent('CheckID matches "^web-[12]"')}`);
  assert.deepEqual(
    ids(state, (c) => c.CheckID),
    ['web-1-check', 'web-2-check'],
  );
  for (const url of ['/v1/health/checks/web', '/v1/health/node/n2', '/v1/health/state/any']) {
    const bad = await call(hub, 'GET', `${url}?filter=${encodeURIComponent('Service.Port == 1')}`);
    assert.equal(bad.status, 400, url);
    assert.equal(bad.text, `${BAD}Selector "Service" is not valid`);
  }
});

test('/v1/agent/services and /v1/agent/checks filter the hub node’s own', async () => {
  const services = await ok('GET', `/v1/agent/services?filter=${encodeURIComponent('Service == web')}`);
  assert.deepEqual(Object.keys(services.json), ['web-agent']);
  const checks = await ok('GET', `/v1/agent/checks?filter=${encodeURIComponent('ServiceID == "db-1"')}`);
  assert.deepEqual(checks.json, {});
  const bad = await call(hub, 'GET', `/v1/agent/services?filter=${encodeURIComponent('Tags == v1')}`);
  assert.equal(bad.status, 400);
  assert.equal(bad.text, `${BAD}Invalid match operator "Equal" for selector "Tags"`);
  const badChecks = await call(hub, 'GET', `/v1/agent/checks?filter=${encodeURIComponent('Status')}`);
  assert.equal(badChecks.status, 400);
});

test('?node-meta (repeatable, every pair required) and ?near=_agent', async () => {
  const one = await ok('GET', '/v1/health/service/web?node-meta=env:prod');
  assert.deepEqual(
    ids(one, (c) => c.Service.ID),
    ['web-1', 'web-2'],
  );
  const two = await ok('GET', '/v1/catalog/service/web?node-meta=env:prod&node-meta=rack:b');
  assert.deepEqual(
    ids(two, (s) => s.ServiceID),
    ['web-2'],
  );
  const nodes = await ok('GET', '/v1/catalog/nodes?node-meta=env:dev');
  assert.deepEqual(
    ids(nodes, (n) => n.Node),
    ['n3'],
  );
  const services = await ok('GET', '/v1/catalog/services?node-meta=env:dev');
  assert.deepEqual(services.json, { web: [] });
  const state = await ok('GET', '/v1/health/state/passing?node-meta=rack:a');
  assert.deepEqual(
    ids(state, (c) => c.CheckID),
    ['web-1-check'],
  );
  // The hub's own node first; the others keep their order.
  const near = await ok('GET', '/v1/health/service/web?near=_agent');
  assert.deepEqual(
    ids(near, (c) => c.Node.Node),
    ['hub-node', 'n1', 'n2', 'n3'],
  );
  const plain = await ok('GET', '/v1/health/service/web');
  assert.deepEqual(
    ids(plain, (c) => c.Node.Node),
    ['hub-node', 'n1', 'n2', 'n3'].sort(),
  );
  const nearN2 = await ok('GET', '/v1/catalog/nodes?near=n2');
  assert.equal(nearN2.json[0].Node, 'n2');
});

test('a filtered blocking query answers when what passes the filter changes, not before', async () => {
  const url = `/v1/health/service/web?filter=${encodeURIComponent('Node.Meta.env == dev')}`;
  const first = await ok('GET', url);
  assert.deepEqual(
    ids(first, (c) => c.Service.ID),
    ['web-3'],
  );
  const waiting = call(hub, 'GET', `${url}&index=${first.index}&wait=30s`);
  // A change to an instance the filter leaves out moves the view's index but must not answer...
  await ok('PUT', '/v1/catalog/register', {
    Node: 'n1',
    Address: '10.0.0.1',
    NodeMeta: { env: 'prod', rack: 'a' },
    Service: { ID: 'web-1', Service: 'web', Port: 8001, Tags: ['v1', 'x'] },
  });
  // ...a change to one it keeps does; the answer carries that second change.
  await ok('PUT', '/v1/catalog/register', {
    Node: 'n3',
    Address: '10.0.0.3',
    NodeMeta: { env: 'dev' },
    Service: { ID: 'web-3', Service: 'web', Port: 8003, Tags: ['late'] },
  });
  const answered = await waiting;
  assert.equal(answered.status, 200);
  assert.deepEqual(
    answered.json.map((c: any) => c.Service.Tags),
    [['late']],
  );
  assert.ok(answered.index > first.index);

  // The same for a filtered catalog read answered from the catalog.
  const nodesUrl = `/v1/catalog/nodes?filter=${encodeURIComponent('Meta.env == dev')}`;
  const nodes = await ok('GET', nodesUrl);
  const nodesWaiting = call(hub, 'GET', `${nodesUrl}&index=${nodes.index}&wait=30s`);
  await ok('PUT', '/v1/catalog/register', { Node: 'n9', Address: '10.0.0.9', NodeMeta: { env: 'prod' } });
  await ok('PUT', '/v1/catalog/register', { Node: 'n8', Address: '10.0.0.8', NodeMeta: { env: 'dev' } });
  const nodesAnswered = await nodesWaiting;
  assert.deepEqual(
    ids(nodesAnswered, (n) => n.Node),
    ['n3', 'n8'],
  );
});
