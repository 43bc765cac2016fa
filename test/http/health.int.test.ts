// /v1/health/*: instances with checks, ?passing (warning is not passing), ?tag, checks by service/node/state.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { call, startHub } from '../helpers/hub';

let hub: Hub;
before(async () => {
  hub = await startHub();
  const reg = (node: string, addr: string, id: string, tags: string[], status: string) =>
    call(hub, 'PUT', '/v1/catalog/register', {
      Node: node,
      Address: addr,
      Service: { ID: id, Service: 'api', Tags: tags, Port: 9000 },
      Checks: [{ CheckID: `${id}-check`, Name: 'api health', ServiceID: id, Status: status }],
    });
  for (const r of await Promise.all([
    reg('n1', '10.1.0.1', 'api-1', ['blue', 'eu'], 'passing'),
    reg('n2', '10.1.0.2', 'api-2', ['green', 'eu'], 'warning'),
    reg('n3', '10.1.0.3', 'api-3', ['blue'], 'critical'),
  ]))
    assert.equal(r.status, 200, r.text);
  // A node-level check applies to every instance on the node.
  const nodeCheck = await call(hub, 'PUT', '/v1/catalog/register', {
    Node: 'n1',
    Address: '10.1.0.1',
    Check: { CheckID: 'serfHealth', Name: 'Serf', Status: 'passing' },
  });
  assert.equal(nodeCheck.status, 200, nodeCheck.text);
});
after(() => hub.close());

test('health service returns Node, Service and Checks per instance', async () => {
  const res = await call(hub, 'GET', '/v1/health/service/api');
  assert.equal(res.status, 200);
  assert.deepEqual(
    res.json.map((c: any) => c.Service.ID),
    ['api-1', 'api-2', 'api-3'],
  );
  const first = res.json[0];
  assert.equal(first.Node.Node, 'n1');
  assert.deepEqual(first.Checks.map((c: any) => c.CheckID).sort(), ['api-1-check', 'serfHealth']);
  assert.ok(res.index > 0n);
});

test('?passing keeps only instances whose checks all pass (warning is not passing)', async () => {
  for (const url of [
    '/v1/health/service/api?passing',
    '/v1/health/service/api?passing=true',
    '/v1/health/service/api?passing=1',
  ]) {
    const res = await call(hub, 'GET', url);
    assert.deepEqual(
      res.json.map((c: any) => c.Service.ID),
      ['api-1'],
      url,
    );
  }
  const off = await call(hub, 'GET', '/v1/health/service/api?passing=false');
  assert.equal(off.json.length, 3);
  const bad = await call(hub, 'GET', '/v1/health/service/api?passing=perhaps');
  assert.equal(bad.status, 400);
  assert.match(bad.text, /^passing: /);
});

test('?tag is repeatable and every tag is required', async () => {
  const blue = await call(hub, 'GET', '/v1/health/service/api?tag=blue');
  assert.deepEqual(
    blue.json.map((c: any) => c.Service.ID),
    ['api-1', 'api-3'],
  );
  const blueEu = await call(hub, 'GET', '/v1/health/service/api?tag=blue&tag=eu');
  assert.deepEqual(
    blueEu.json.map((c: any) => c.Service.ID),
    ['api-1'],
  );
  const passingEu = await call(hub, 'GET', '/v1/health/service/api?tag=eu&passing');
  assert.deepEqual(
    passingEu.json.map((c: any) => c.Service.ID),
    ['api-1'],
  );
});

test('health checks by service, node and state', async () => {
  const byService = await call(hub, 'GET', '/v1/health/checks/api');
  assert.deepEqual(byService.json.map((c: any) => c.CheckID).sort(), ['api-1-check', 'api-2-check', 'api-3-check']);
  const byNode = await call(hub, 'GET', '/v1/health/node/n1');
  assert.deepEqual(byNode.json.map((c: any) => c.CheckID).sort(), ['api-1-check', 'serfHealth']);
  const critical = await call(hub, 'GET', '/v1/health/state/critical');
  assert.deepEqual(
    critical.json.map((c: any) => c.CheckID),
    ['api-3-check'],
  );
  const warning = await call(hub, 'GET', '/v1/health/state/warning');
  assert.deepEqual(
    warning.json.map((c: any) => c.CheckID),
    ['api-2-check'],
  );
  const any = await call(hub, 'GET', '/v1/health/state/any');
  assert.equal(any.json.length, 4);
  const unknownNode = await call(hub, 'GET', '/v1/health/node/nobody');
  assert.deepEqual(unknownNode.json, []);
});

test('an unknown state is a 400 naming it; a bad ?index or ?wait too', async () => {
  const res = await call(hub, 'GET', '/v1/health/state/sleepy');
  assert.equal(res.status, 400);
  assert.match(res.text, /^state: /);
  const badIndex = await call(hub, 'GET', '/v1/health/service/api?index=abc');
  assert.equal(badIndex.status, 400);
  assert.match(badIndex.text, /^index: /);
  const badWait = await call(hub, 'GET', '/v1/health/service/api?index=1&wait=forever');
  assert.equal(badWait.status, 400);
  assert.match(badWait.text, /^wait: /);
});
