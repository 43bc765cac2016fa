// Reads served from materialized views (Consul's streaming backend): health,
// catalog service(s) and config entries answer from the shared view store.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { call, startHub } from '../helpers/hub';

let hub: Hub;
before(async () => {
  hub = await startHub();
});
after(async () => {
  await hub.close();
});

const register = (node: string, id: string, service: string, status = 'passing', tags: string[] = []) =>
  call(hub, 'PUT', '/v1/catalog/register', {
    Node: node,
    Address: '10.1.0.1',
    Service: { ID: id, Service: service, Port: 8080, Tags: tags },
    Checks: [{ CheckID: `chk-${id}`, Name: 'c', ServiceID: id, Status: status }],
  });

test('health, catalog service(s) and config reads say they come from views and read their own writes', async () => {
  const w = await register('sn1', 'api-1', 'api', 'passing', ['v1']);
  const health = await call(hub, 'GET', '/v1/health/service/api');
  assert.equal(health.headers['x-consul-query-backend'], 'streaming');
  assert.deepEqual(
    health.json.map((c: any) => c.Service.ID),
    ['api-1'],
  );
  assert.equal(health.index, w.index, 'X-Consul-Index is the view index: the entry that last changed the service');

  const svc = await call(hub, 'GET', '/v1/catalog/service/api');
  assert.equal(svc.headers['x-consul-query-backend'], 'streaming');
  assert.deepEqual(
    svc.json.map((s: any) => [s.ServiceID, s.ServicePort]),
    [['api-1', 8080]],
  );

  const list = await call(hub, 'GET', '/v1/catalog/services');
  assert.equal(list.headers['x-consul-query-backend'], 'streaming');
  assert.deepEqual(list.json.api, ['v1']);

  const put = await call(hub, 'PUT', '/v1/config', { Kind: 'service-defaults', Name: 'api', Protocol: 'grpc' });
  assert.equal(put.status, 200);
  const entry = await call(hub, 'GET', '/v1/config/service-defaults/api');
  assert.equal(entry.headers['x-consul-query-backend'], 'streaming');
  assert.equal(entry.json.Protocol, 'grpc');
  assert.equal(entry.index, put.index);
  const all = await call(hub, 'GET', '/v1/config/service-defaults');
  assert.deepEqual(
    all.json.map((e: any) => e.Name),
    ['api'],
  );
  const missing = await call(hub, 'GET', '/v1/config/service-defaults/nope');
  assert.equal(missing.status, 404);
});

test('?passing and ?tag filter in the view; a Register that stops matching removes the instance', async () => {
  await register('sn2', 'pay-1', 'pay', 'passing', ['blue']);
  await register('sn3', 'pay-2', 'pay', 'critical', ['green']);
  const passing = await call(hub, 'GET', '/v1/health/service/pay?passing');
  assert.deepEqual(
    passing.json.map((c: any) => c.Service.ID),
    ['pay-1'],
  );
  const blue = await call(hub, 'GET', '/v1/health/service/pay?tag=BLUE');
  assert.deepEqual(
    blue.json.map((c: any) => c.Service.ID),
    ['pay-1'],
    'tags match case-insensitively, as Consul',
  );

  // A blocking ?passing query wakes when pay-1 turns critical, and pay-1 is gone from it.
  const waiting = call(hub, 'GET', `/v1/health/service/pay?passing&index=${passing.index}&wait=30s`);
  const turned = await register('sn2', 'pay-1', 'pay', 'critical', ['blue']);
  const woke = await waiting;
  assert.deepEqual(woke.json, []);
  assert.equal(woke.index, turned.index);
});

test('a blocking view read wakes on a change to its service, not on other writes, and many readers share one view', async () => {
  const first = await register('sn4', 'cart-1', 'cart');
  const before = (hub.views as unknown as { size(): number }).size();
  const waiters = Array.from({ length: 50 }, () =>
    call(hub, 'GET', `/v1/health/service/cart?index=${first.index}&wait=30s`),
  );
  let settled = 0;
  for (const w of waiters) void w.then(() => settled++);
  await register('sn5', 'other-1', 'other'); // another service: the cart view does not move
  await call(hub, 'GET', '/v1/health/service/other');
  assert.equal(settled, 0, 'no cart reader answered for a write to another service');
  // One view for the fifty cart readers, one for the read of `other`.
  assert.equal(
    (hub.views as unknown as { size(): number }).size(),
    before + 2,
    'the fifty cart readers share one materializer',
  );
  const change = await register('sn6', 'cart-2', 'cart');
  const answers = await Promise.all(waiters);
  for (const a of answers) {
    assert.equal(a.index, change.index);
    assert.deepEqual(
      a.json.map((c: any) => c.Service.ID),
      ['cart-1', 'cart-2'],
    );
  }
});

test('a blocking view read whose wait ends answers with the current data and index', async () => {
  const first = await register('sn7', 'idle-1', 'idle');
  const res = await call(hub, 'GET', `/v1/health/service/idle?index=${first.index}&wait=50ms`);
  assert.equal(res.status, 200);
  assert.equal(res.index, first.index);
  assert.deepEqual(
    res.json.map((c: any) => c.Service.ID),
    ['idle-1'],
  );
});
