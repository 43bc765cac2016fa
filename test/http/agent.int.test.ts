// /v1/agent/*: the hub acts for its own node; TTL checks pass/warn/fail/update
// and expire to critical through a logged command.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { call, startHub } from '../helpers/hub';

let hub: Hub;
before(async () => {
  hub = await startHub({ nodeName: 'hub-agent', datacenter: 'dc7' });
});
after(() => hub.close());

test('register with a TTL check: one write, node is the hub, check critical until passed', async () => {
  const before = hub.catalog.lastIndex();
  const res = await call(hub, 'PUT', '/v1/agent/service/register', {
    Name: 'web',
    ID: 'web1',
    Port: 8080,
    Tags: ['a'],
    Check: { TTL: '10m' },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(hub.catalog.lastIndex(), before + 1n, 'one register command');
  assert.equal(res.index, hub.catalog.lastIndex());

  const services = await call(hub, 'GET', '/v1/agent/services');
  assert.equal(services.json.web1.Service, 'web');
  assert.equal(services.json.web1.Port, 8080);
  assert.equal(services.json.web1.Datacenter, 'dc7');
  const checks = await call(hub, 'GET', '/v1/agent/checks');
  assert.equal(checks.json['service:web1'].Status, 'critical');
  assert.equal(checks.json['service:web1'].ServiceID, 'web1');
  assert.equal(checks.json['service:web1'].Node, 'hub-agent');
  const node = await call(hub, 'GET', '/v1/catalog/node/hub-agent');
  assert.equal(node.json.Node.Address, '127.0.0.1');
});

test('pass / warn / fail / update set status and output', async () => {
  const check = async () => (await call(hub, 'GET', '/v1/agent/checks')).json['service:web1'];
  let res = await call(hub, 'PUT', '/v1/agent/check/pass/service:web1?note=all%20good');
  assert.equal(res.status, 200, res.text);
  assert.deepEqual([(await check()).Status, (await check()).Output], ['passing', 'all good']);
  res = await call(hub, 'PUT', '/v1/agent/check/warn/service:web1');
  assert.equal((await check()).Status, 'warning');
  res = await call(hub, 'PUT', '/v1/agent/check/fail/service:web1?note=down');
  assert.deepEqual([(await check()).Status, (await check()).Output], ['critical', 'down']);
  res = await call(hub, 'PUT', '/v1/agent/check/update/service:web1', { Status: 'passing', Output: 'back' });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual([(await check()).Status, (await check()).Output], ['passing', 'back']);
  const health = await call(hub, 'GET', '/v1/health/service/web?passing');
  assert.equal(health.json.length, 1);
});

test('unknown check IDs answer 404 like Consul; bad update bodies 400; nothing changes', async () => {
  const before = hub.catalog.lastIndex();
  const res = await call(hub, 'PUT', '/v1/agent/check/pass/nope');
  assert.equal(res.status, 404);
  assert.match(res.text, /^Unknown check ID "nope"/);
  const bad = await call(hub, 'PUT', '/v1/agent/check/update/service:web1', { Status: 'great' });
  assert.equal(bad.status, 400);
  assert.match(bad.text, /^Status: must be one of/);
  const missing = await call(hub, 'PUT', '/v1/agent/check/update/service:web1', { Output: 'x' });
  assert.equal(missing.status, 400);
  assert.match(missing.text, /^Status: is required/);
  assert.ok(hub.catalog.lastIndex() - before <= 1n, 'at most the refused check-update entry');
  assert.equal((await call(hub, 'GET', '/v1/agent/checks')).json['service:web1'].Status, 'passing');
});

test('bad registrations: 400 naming the field, nothing registered', async () => {
  const before = (await call(hub, 'GET', '/v1/agent/services')).text;
  const cases: Array<[unknown, RegExp]> = [
    [{ Port: 80 }, /^Name: is required/],
    [{ Name: 'x', Port: -1 }, /^Port: must be >= 0/],
    [{ Name: 'x', Check: { TTL: 'ten seconds' } }, /^Check.TTL: not a duration/],
    [{ Name: 'x', Check: { Interval: '10s' } }, /^Check.TTL: a check needs one of/],
    [{ Name: 'x', Checks: [{ TTL: '1s' }, { HTTP: 'http://127.0.0.1/' }] }, /^Checks\[1\].Interval: is required/],
    [{ Name: 'x', Meta: { a: 1 } }, /^Meta.a: must be a string/],
  ];
  for (const [body, pattern] of cases) {
    const res = await call(hub, 'PUT', '/v1/agent/service/register', body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.match(res.text, pattern);
  }
  assert.equal((await call(hub, 'GET', '/v1/agent/services')).text, before);
});

test('agent self and deregister', async () => {
  const self = await call(hub, 'GET', '/v1/agent/self');
  assert.equal(self.json.Config.NodeName, 'hub-agent');
  assert.equal(self.json.Config.Datacenter, 'dc7');
  assert.match(self.json.Config.NodeID, /^[0-9a-f-]{36}$/);
  assert.equal(self.json.Member.Name, 'hub-agent');

  await call(hub, 'PUT', '/v1/agent/service/register', { Name: 'tmp', Check: { TTL: '1m' } });
  const res = await call(hub, 'PUT', '/v1/agent/service/deregister/tmp');
  assert.equal(res.status, 200, res.text);
  const after = await call(hub, 'GET', '/v1/agent/services');
  assert.equal(after.json.tmp, undefined);
  assert.equal((await call(hub, 'GET', '/v1/agent/checks')).json['service:tmp'], undefined);
  const unknown = await call(hub, 'PUT', '/v1/agent/service/deregister/tmp');
  assert.equal(unknown.status, 404);
  assert.match(unknown.text, /^Unknown service ID "tmp"/);
});

test('a TTL check not refreshed in time turns critical (awaited with blocking queries)', async () => {
  const reg = await call(hub, 'PUT', '/v1/agent/service/register', {
    Name: 'beat',
    Check: { TTL: '300ms', Status: 'passing' },
  });
  assert.equal(reg.status, 200, reg.text);
  let res = await call(hub, 'GET', '/v1/health/checks/beat');
  assert.equal(res.json[0].Status, 'passing');
  while (res.json[0].Status !== 'critical') {
    res = await call(hub, 'GET', `/v1/health/checks/beat?index=${res.index}&wait=30s`);
    assert.equal(res.status, 200);
  }
  assert.match(res.json[0].Output, /TTL expired/);
  // Passing it again revives it.
  await call(hub, 'PUT', '/v1/agent/check/pass/service:beat');
  assert.equal((await call(hub, 'GET', '/v1/health/checks/beat')).json[0].Status, 'passing');
  await call(hub, 'PUT', '/v1/agent/service/deregister/beat');
});
